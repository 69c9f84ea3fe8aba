#!/usr/bin/env bash
# Configures (through setup.sh) if needed and builds, showing progress; the compiler's output goes
# to build/build.log and is shown only when something fails.
#   scripts/build.sh                       everything (the tests, the micro-benchmarks)
#   scripts/build.sh bench_mps bench_worker  only these targets (what scripts/run.sh needs)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BENCH_MPS_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
log="$build/build.log"
targets=()
for t in "$@"; do targets+=(--target "$t"); done
what="${*:-everything}"
start=$SECONDS
# Progress: make's "[ NN%]" lines, one line per 10% step (a line that updates in place on a terminal).
progress() {
  local last=-10 pct
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    [[ $line =~ ^\[\ *([0-9]+)%\] ]] || continue
    pct=${BASH_REMATCH[1]}
    if [ -t 2 ]; then
      printf '\rbuild (%s): %3d%%  %ds' "$what" "$pct" $((SECONDS - start)) >&2
    elif [ "$pct" -ge $((last + 10)) ]; then
      echo "build ($what): $pct% after $((SECONDS - start)) s" >&2
      last=$pct
    fi
  done
  [ -t 2 ] && echo >&2 || true
}
: >"$log"
if ! cmake --build "$build" -j "$(nproc)" "${targets[@]}" 2>&1 | progress; then
  tail -40 "$log" >&2
  echo "build failed; full log: $log" >&2
  exit 1
fi
echo "build ($what): done in $((SECONDS - start)) s" >&2
