#!/usr/bin/env bash
# worker_shape.sh KIND [SECONDS [WORKER-ARGS...]]: one of the MPS contention calibration's GPU-bound shapes, run by
# this project's own worker (build/harness/bench_worker, or $BENCH_WORKER) instead of a Python loop: it starts in
# about half a second where torch takes five, so a calibration of several shapes fits in minutes (issue 45), and
# its kernels' grids are set exactly, so shapes that leave SMs free can be asked for (docs/PREDICT.md "MPS
# contention, calibrated").
#   fmaB    B thread blocks of a dependent FMA chain (the duty workload, no host work): 10 kernels of about 200 us
#           a step, then a synchronize; compute bound, its grid B blocks of 128 threads
#   tinyB   the same chain in 20 kernels of about 15 us a step: small, frequent kernels
#   memB    STREAM's triad over three 256 MiB arrays by B blocks (the membw workload; 0: 4 per SM), 4 triads a step
# Timed steps run for SECONDS (default 1.5) after 20 untimed ones; the last line is "<ms> ms each", the mean step,
# for bench_mps --exec-metric '([0-9.]+) ms each'. A worker that fails makes this fail with its status.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: worker_shape.sh fmaB|tinyB|memB [SECONDS [WORKER-ARGS...]]" >&2
  exit 2
fi
kind=$1
secs=${2-1.5}
shift $(($# >= 2 ? 2 : 1))
here=$(cd "$(dirname "$0")" && pwd)
worker=${BENCH_WORKER:-$here/../../build/harness/bench_worker}
if [ ! -x "$worker" ]; then
  echo "worker_shape.sh: no worker at $worker (build it: scripts/build.sh, or set BENCH_WORKER)" >&2
  exit 2
fi
if ! [[ $kind =~ ^(fma|tiny|mem)([0-9]+)$ ]]; then
  echo "worker_shape.sh: kind '$kind': fmaB, tinyB (B thread blocks, 1-100000) or memB (0: 4 per SM)" >&2
  exit 2
fi
shape=${BASH_REMATCH[1]}
digits=${BASH_REMATCH[2]}
blocks=$((${#digits} > 6 ? 100001 : 10#$digits))  # more than six digits: too many, whatever their value
if [ "$blocks" -gt 100000 ] || { [ "$shape" != mem ] && [ "$blocks" -lt 1 ]; }; then
  echo "worker_shape.sh: kind '$kind': B must be 1-100000 (mem: 0-100000)" >&2
  exit 2
fi
if ! [[ $secs =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v s="$secs" 'BEGIN { exit !(s >= 0.1 && s <= 600) }'; then
  echo "worker_shape.sh: SECONDS '$secs': a number of seconds, 0.1-600" >&2
  exit 2
fi
case $shape in
  fma) args=(--workload duty --duty-pct 100 --duty-burst-us 2000 --duty-kernels 10 --duty-blocks "$blocks") ;;
  tiny) args=(--workload duty --duty-pct 100 --duty-burst-us 300 --duty-kernels 20 --duty-blocks "$blocks") ;;
  mem) args=(--workload membw --membw-mib 256 --membw-iters 4 --membw-blocks "$blocks") ;;
esac
# The worker's protocol: READY after its warm-up, GO on stdin, a TASK line (start and end, ns) per timed step, then
# DONE. Its DONE line is kept on stderr for the copy's log; the mean step goes to stdout.
echo GO | "$worker" "${args[@]}" --duration-s "$secs" --warmup 20 "$@" |
  awk -v kind="$kind" '
    /^TASK / { n++; total += $3 - $2; next }
    /^DONE / { print > "/dev/stderr"; next }
    END {
      if (n == 0) { print "worker_shape.sh " kind ": the worker reported no timed step" > "/dev/stderr"; exit 1 }
      printf "worker_shape %s: %d steps in %.3f s: %.4f ms each\n", kind, n, total / 1e9, total / n / 1e6
    }'
