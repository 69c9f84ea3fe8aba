#!/usr/bin/env bash
# Copies what a carried build needs on the GPU machine into .device/build (ignored by git): the
# programs, the test binaries and ctest's files, without object files and static libraries, so that
# the working tree and the build fit in the device tool's 64 MiB. On the device machine:
#   rm -rf build && mv .device/build build && scripts/device_check.sh "$OUT" STEP...
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BENCH_MPS_BUILD_DIR:-$root/build}"
dest="$root/.device/build"
rm -rf "$dest"
mkdir -p "$dest"
(cd "$build" && find . -type f ! -name '*.o' ! -name '*.a' ! -name '*.log' ! -path '*/CMakeFiles/*' \
   ! -path './Testing/*' ! -name 'compile_commands.json' -print0 | tar --null -T - -cf -) | tar -xf - -C "$dest"
du -sh "$dest" | sed 's/^/pack_build: /'
