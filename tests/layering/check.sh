#!/usr/bin/env bash
# The wings' layering holds: every probe (a file including a header its wing may not use) fails to
# build with the door's message, and every header of harness/<wing>/ includes harness/<wing>/wing.hpp.
# Usage: check.sh SOURCE_DIR BUILD_DIR PROBE...
set -u
src=$1 build=$2
shift 2
# The probes are built in this build tree: where it cannot build (a tree carried to another machine,
# configured elsewhere or without a compiler), skip with the reason.
home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
cmake_used=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [ "$home" != "$src" ] || [ ! -x "$cmake_used" ] || [ ! -x "$compiler" ]; then
  echo "SKIP: $build cannot build here (configured for '${home}' with '${cmake_used}', compiler '${compiler}')"
  exit 77
fi
fail=0
for header in "$src"/harness/*/*.hpp; do
  wing=$(basename "$(dirname "$header")")
  [ "$(basename "$header")" = wing.hpp ] && continue
  if ! grep -q "^#include \"harness/$wing/wing.hpp\"" "$header"; then
    echo "FAIL: ${header#"$src"/} does not include harness/$wing/wing.hpp"
    fail=1
  fi
done
for probe in "$@"; do
  log=$(cmake --build "$build" --target "layering_$probe" 2>&1)
  if [ $? -eq 0 ]; then
    echo "FAIL: layering_$probe built, but its include crosses the layering"
    fail=1
  elif ! grep -q "is not linked by this target" <<<"$log"; then
    echo "FAIL: layering_$probe failed for another reason:"
    tail -5 <<<"$log"
    fail=1
  else
    echo "ok: layering_$probe refused: $(grep -o 'harness/[a-z]*/ is not linked by this target' <<<"$log" | head -1)"
  fi
done
exit $fail
