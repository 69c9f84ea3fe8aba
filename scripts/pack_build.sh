#!/usr/bin/env bash
# Copies what a carried build needs on the GPU machine into .device/build (ignored by git): the
# programs, the test binaries and ctest's files, without object files and static libraries, so that
# the working tree and the build fit in the device tool's 64 MiB. On the device machine:
#   rm -rf build && mv .device/build build && scripts/device_check.sh "$OUT" STEP...
#   scripts/pack_build.sh --slim   only bench_mps, bench_worker, the profiler library, the GPU test programs and
#                                  the micro-benchmarks (the device_check steps but `tests`: the whole build is
#                                  over 64 MiB)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BENCH_MPS_BUILD_DIR:-$root/build}"
dest="$root/.device/build"
rm -rf "$dest"
mkdir -p "$dest"
if [ "${1:-}" = --slim ]; then
  (cd "$build" && find . -maxdepth 1 -name CMakeCache.txt -print0 && find harness -maxdepth 2 -type f \
     \( -name bench_mps -o -name bench_worker -o -name 'libbench_mps_profiler.so*' \) -print0 && \
     find tests -maxdepth 1 -type f \( -name 'test_gpu_*' -o -name nvtx_steps \) -perm -u+x -print0 && \
     { [ ! -d bench ] || find bench -maxdepth 1 -type f \( -name 'bench_*' -perm -u+x -o -name 'libbenchmark*' \) -print0; }) \
    | (cd "$build" && tar --null -T - -cf -) \
    | tar -xf - -C "$dest"
else
  (cd "$build" && find . -type f ! -name '*.o' ! -name '*.a' ! -name '*.log' ! -path '*/CMakeFiles/*' \
     ! -path './Testing/*' ! -name 'compile_commands.json' -print0 | tar --null -T - -cf -) | tar -xf - -C "$dest"
fi
du -sh "$dest" | sed 's/^/pack_build: /'
# The sha and dirty flag a result's meta.json will carry are the build's (written when make ran): say when they
# are not the tree's, so a device run is not labelled with another commit.
info="$build/generated/bench_mps_git_info.hpp"
if [ -f "$info" ]; then
  built_sha=$(sed -n 's/^#define BENCH_MPS_GIT_SHA "\(.*\)"$/\1/p' "$info")
  built_dirty=$(sed -n 's/^#define BENCH_MPS_GIT_DIRTY \(.*\)$/\1/p' "$info")
  head_sha=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
  if [ "$built_sha" != "$head_sha" ] || [ "$built_dirty" != false ]; then
    echo "pack_build: warning: the build says ${built_sha:0:7} (dirty: $built_dirty), the tree is at ${head_sha:0:7}:" \
      "results will carry the build's; commit, then run make again before packing" >&2
  fi
fi
