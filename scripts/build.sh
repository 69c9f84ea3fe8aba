#!/usr/bin/env bash
# Configures (through setup.sh) if needed and builds; quiet unless something fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BENCH_MPS_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
log="$build/build.log"
if ! cmake --build "$build" -j "$(nproc)" >"$log" 2>&1; then
  tail -40 "$log" >&2
  echo "build failed; full log: $log" >&2
  exit 1
fi
