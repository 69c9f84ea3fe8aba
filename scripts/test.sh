#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. GPU tests (ctest label `gpu`) skip
# themselves where no GPU is visible. Extra arguments go to ctest (e.g. -L gpu, -R mps).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BENCH_MPS_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
