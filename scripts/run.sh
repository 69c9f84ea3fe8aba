#!/usr/bin/env bash
# Builds if needed and runs the benchmark: scripts/run.sh --procs 1,4,10 [more bench_mps options].
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BENCH_MPS_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
cd "$root"
exec "$build/harness/bench_mps" "$@"
