#!/usr/bin/env bash
# Every C++ and CUDA source the repository tracks is formatted as .clang-format says, so a change cannot
# bring its own style. The tree was formatted with clang-format 14; another major version formats some
# constructs differently, so the check skips (exit 77) with the reason where clang-format 14 is absent.
# Usage: check.sh SOURCE_DIR        To format: clang-format-14 -i $(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
set -u
src=$1
# shellcheck source=tests/format/llvm14.sh
source "$(dirname "$0")/llvm14.sh"
llvm14 clang-format
cd "$src" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "SKIP: $src is not a git checkout (the check formats the files git tracks)"
  exit 77
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
bad=0
for f in "${files[@]}"; do
  if ! "$tool" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (run: $tool -i $f)"
    bad=$((bad + 1))
  fi
done
echo "format: ${#files[@]} files, $bad not formatted ($tool)"
[ "$bad" -eq 0 ]
