#!/usr/bin/env bash
# Builds if needed, runs the benchmark and renders its report:
#   scripts/run.sh --procs 1,4,10 [more bench_mps options]
#   scripts/run.sh --demo            a short sweep without a GPU (CPU stand-ins, fake MPS daemon), stamped as a demo
# Other bench_mps commands pass through unchanged (scripts/run.sh compare A B, scripts/run.sh report DIR).
# BENCH_MPS_NO_BUILD=1 uses the existing build as it is (e.g. a build carried to another machine).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BENCH_MPS_BUILD_DIR:-$root/build}"
bench="$build/harness/bench_mps"
case "${1:-}" in
  -h|--help)  # this script's own lines, then bench_mps's options where it is built: no build for a help
    sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
    echo
    if [ -x "$bench" ]; then exec "$bench" --help; fi
    echo "bench_mps is not built yet: scripts/run.sh builds it on its first run (or scripts/build.sh), then --help lists its options"
    exit 0 ;;
esac
if [ "${BENCH_MPS_NO_BUILD:-0}" != 1 ] || [ ! -x "$bench" ]; then
  "$root/scripts/build.sh" bench_mps bench_worker || exit $?   # only what a sweep runs
fi
cd "$root"
case "${1:-}" in
  report|compare) exec "$bench" "$@" ;;
  --demo)
    # A machine without a GPU can try the whole flow: CPU stand-in workers, the fake MPS daemon of
    # tests/fakes (first on PATH, for this sweep only), a report; every output is stamped as a demo.
    shift
    export PATH="$root/tests/fakes:$PATH"
    export FAKE_MPS_JOURNAL="${TMPDIR:-/tmp}/bench_mps-demo-journal-$$"
    echo "run.sh --demo: no GPU data: CPU stand-in workers and a fake MPS daemon (tests/fakes), to show the flow" >&2
    # The demo's plan, each option only where the user did not give it nor an option it cannot go with
    # (bench_mps takes an option once): "option value|options that exclude it".
    given() { for a in "${@:2}"; do [ "$a" = "$1" ] || [ "${a%%=*}" = "$1" ] && return 0; done; return 1; }
    scenario=sweep prev=
    for a in "$@"; do
      case "$a" in --scenario=*) scenario=${a#*=} ;; esac
      [ "$prev" = --scenario ] && scenario=$a
      prev=$a
    done
    # a fault's victims must still run when the faulter fails (after --fault-delay-ms, 250 ms): 300 tasks of 2 ms
    tasks=20; [ "$scenario" = fault ] && tasks=300
    plan=("--cpu-task-us 2000|" "--modes timeslice,mps|" "--repeats 2|" "--tasks $tasks|--duration")
    case "$scenario" in  # each scenario's CPU stand-ins, in the options it takes
      interference) plan+=("--foreground cpu|" "--background cpu|" "--procs 2,4|") ;;  # one foreground, N-1 beside
      xray) plan+=("--cpu-stand-in|" "--procs 1,2,4|") ;;
      regimes) plan+=("--cpu-stand-in|" "--procs 1,2,4|" "--regime-bursts-ms 1,3|" "--regime-duties 25,75|") ;;
      *) plan+=("--workloads cpu|" "--procs 1,2,4|") ;;
    esac
    demo=(--demo)
    for entry in "${plan[@]}"; do
      pair=${entry%%|*} excluded_by=${entry#*|} opt=${entry%% *} skip=0
      given "$opt" "$@" && skip=1
      for other in $excluded_by; do given "$other" "$@" && skip=1; done
      [ "$skip" = 1 ] || demo+=($pair)
    done
    set -- "${demo[@]}" "$@"
    ;;
esac

out_log="$(mktemp)"
trap 'rm -f "$out_log" "${FAKE_MPS_JOURNAL:-}"' EXIT
"$bench" "$@" | tee "$out_log"
rc=${PIPESTATUS[0]}
dir="$(sed -n 's/^results: //p' "$out_log" | tail -1)"
# A sweep that recorded runs (also a failed or interrupted one) gets its report; a --gpus run (its
# index.json) gets the fleet report across its GPUs.
if [ -n "$dir" ] && { [ -f "$dir/index.json" ] ||
                      { [ -s "$dir/summary.csv" ] && [ "$(wc -l <"$dir/summary.csv")" -gt 1 ]; }; }; then
  "$bench" report "$dir" || { report_rc=$?; [ "$rc" -eq 0 ] && rc=$report_rc; }
fi
exit "$rc"
