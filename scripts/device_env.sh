#!/usr/bin/env bash
# Sourced by the device scripts: makes a build carried from the build machine usable on the GPU
# machine, whose checkout lives elsewhere (ctest files hold absolute paths of the build machine).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
built_in="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$here/build/CMakeCache.txt" 2>/dev/null)"
if [ -n "$built_in" ] && [ "$built_in" != "$here" ] && [ ! -e "$built_in" ]; then
  mkdir -p "$(dirname "$built_in")" && ln -s "$here" "$built_in"
fi
export PATH="/usr/local/cuda/bin:$PATH"
