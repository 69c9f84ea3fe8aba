#!/usr/bin/env bash
# A small clang-tidy set over the harness's sources (issue 44), for what tests/format/dead_declarations.py cannot
# see inside one file: an unused variable, constant, private field, using-declaration or namespace alias, a function
# defined and never called in its file; a use after move; a definition in a header. clang-tidy 14 with the build's
# compile_commands.json; skipped (exit 77) with the reason where either is absent.
# Usage: tidy.sh SOURCE_DIR BUILD_DIR            every harness/*/*.cpp, in parallel (one per core)
#        tidy.sh SOURCE_DIR BUILD_DIR FILE...    those files, as C++17 with -Wall -Wextra (the check's own fixture)
set -u
src=$1
build=$2
shift 2
checks='-*,clang-diagnostic-unused-variable,clang-diagnostic-unused-const-variable,clang-diagnostic-unused-function'
checks+=',clang-diagnostic-unused-private-field,misc-unused-using-decls,misc-unused-alias-decls'
checks+=',bugprone-use-after-move,misc-definitions-in-headers'
# shellcheck source=tests/format/llvm14.sh
source "$(dirname "$0")/llvm14.sh"
llvm14 clang-tidy
cd "$src" || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ $# -gt 0 ]; then
  for f in "$@"; do "$tool" --quiet -checks="$checks" "$f" -- -std=c++17 -Wall -Wextra >>"$log" 2>&1; done
else
  if [ ! -f "$build/compile_commands.json" ]; then
    echo "SKIP: $build/compile_commands.json not found (configure with CMAKE_EXPORT_COMPILE_COMMANDS)"
    exit 77
  fi
  ls harness/*/*.cpp | xargs -P "$(nproc)" -n 4 "$tool" --quiet -p "$build" -checks="$checks" >>"$log" 2>&1
fi
# Findings in this repository's files only (a system header's are not ours), each once.
findings=$(grep -E "^$src/[^:]+:[0-9]+:[0-9]+: (warning|error):|^[^/][^:]*:[0-9]+:[0-9]+: (warning|error):" "$log" |
           sort -u)
if [ -n "$findings" ]; then
  echo "$findings"
  echo "clang-tidy: $(echo "$findings" | wc -l) findings"
  exit 1
fi
echo "clang-tidy: 0 findings ($checks)"
