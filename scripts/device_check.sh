#!/usr/bin/env bash
# The whole GPU check in one go, for the device machine (one H100/H200, root, nothing installable),
# on a build carried from the build machine (see scripts/device_env.sh):
#   scripts/device_check.sh OUT_DIR STEP...
# Steps (each writes its output under OUT_DIR and prints a short line):
#   tests       ctest, all labels (GPU tests included)
#   bench       the Google Benchmark micro-benchmarks
#   reference   a default run: bench_mps --procs 1,4,10 -> OUT_DIR/reference
#   aa, aa2...  more default runs (A/A comparisons) -> OUT_DIR/<step>
#   spin110     a default run with 10% longer spin kernels -> OUT_DIR/spin110
#   interrupt   Ctrl-C in the middle of an MPS block, then SIGKILL + a new run, then --resume
#   fault       bench_mps --scenario fault --procs 4 -> OUT_DIR/fault
# Full logs go to OUT_DIR/*.log; the result folders are packed into OUT_DIR/results.tar.gz. It never
# changes the GPU's settings and checks that no MPS daemon is left after every step.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/scripts/device_env.sh"
out="$1"; shift
mkdir -p "$out/runs"
bench="$here/build/harness/bench_mps"
cd "$here"

live_mps() { ps -eo stat=,comm= | awk '$1 !~ /^Z/ && $2 ~ /^nvidia-cuda-mps/' | wc -l; }
check_clean() {
  local n; n=$(live_mps)
  echo "  live nvidia-cuda-mps processes after $1: $n"
  [ "$n" -eq 0 ] || ps -eo pid,stat,comm,args | grep -i "[n]vidia-cuda-mps"
}

nvidia-smi --query-gpu=name,driver_version,compute_mode,clocks.max.sm,memory.total --format=csv,noheader | sed 's/^/GPU: /'
check_clean "start"
for step in "$@"; do
  t0=$(date +%s)
  case "$step" in
    tests)
      (cd build && ctest --output-on-failure -j 4 >"$out/tests.log" 2>&1)
      echo "tests: rc=$? $(grep -E 'tests passed|tests failed' "$out/tests.log")"
      grep -E "^\s+[0-9]+ - " "$out/tests.log" | head -20
      grep -E "Skipped|Not Run" "$out/tests.log" | head -5 ;;
    bench)
      build/bench/bench_workloads --benchmark_min_time=0.2 --benchmark_out="$out/bench.json" \
        --benchmark_out_format=json >"$out/bench.log" 2>&1
      echo "bench: rc=$?"; grep -E "^BM_" "$out/bench.log" ;;
    reference|aa*|spin110)
      extra=(); [ "$step" = spin110 ] && extra=(--spin-us 110)
      start=$(date +%s.%N)
      BENCH_MPS_NO_BUILD=1 scripts/run.sh --procs 1,4,10 --out "$out/runs/$step" "${extra[@]}" >"$out/$step.log" 2>&1
      echo "$step: scripts/run.sh --procs 1,4,10 ${extra[*]} -> rc=$? in $(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}') s"
      grep -E "^report:" "$out/$step.log"
      sed -n '/^workload/,/^$/p' "$out/$step.log" ;;
    interrupt)
      log="$out/interrupt.log"; dir="$out/runs/interrupt"
      "$bench" --procs 1,4 --repeats 2 --out "$dir" >"$log" 2>&1 &
      pid=$!
      # wait until the first MPS run of the sweep has started (its daemon is up), then Ctrl-C
      for _ in $(seq 600); do grep -q "r1-timeslice-mlp-n4" "$log" && [ "$(live_mps)" -gt 0 ] && break; sleep 0.1; done
      sleep 0.5; kill -INT "$pid"; wait "$pid"; echo "interrupt: SIGINT -> rc=$? rows=$(($(wc -l <"$dir/summary.csv") - 1))"
      check_clean "SIGINT"
      "$bench" --resume "$dir" >>"$log" 2>&1 &
      pid=$!
      for _ in $(seq 600); do [ "$(live_mps)" -gt 0 ] && break; sleep 0.1; done
      sleep 1; kill -KILL "$pid"; wait "$pid"; echo "interrupt: SIGKILL -> rc=$? rows=$(($(wc -l <"$dir/summary.csv") - 1)) live daemons=$(live_mps)"
      "$bench" --resume "$dir" >>"$log" 2>&1
      echo "interrupt: --resume -> rc=$? rows=$(($(wc -l <"$dir/summary.csv") - 1)) (expect 16)"
      grep -E "left behind|resume:|already recorded" "$log" | sed 's/^/  /' ;;
    fault)
      "$bench" --scenario fault --procs 4 --out "$out/runs/fault" >"$out/fault.log" 2>&1
      echo "fault: rc=$?"; sed -n '/^fault isolation/,$p' "$out/fault.log" ;;
    *) echo "unknown step $step" ;;
  esac
  echo "  [$step took $(( $(date +%s) - t0 )) s]"
  check_clean "$step"
done
tar -czf "$out/results.tar.gz" -C "$out/runs" . && rm -rf "$out/runs"
