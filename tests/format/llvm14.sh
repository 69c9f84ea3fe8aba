# Sourced by tests/format/check.sh and tidy.sh: llvm14 NAME sets `tool` to NAME-14, or NAME where that is version
# 14; where neither is there it says SKIP with the reason and exits 77 (ctest's skip): the tree is formatted and
# checked with version 14, and another major version reads some constructs differently.
llvm14() {
  tool=""
  local candidate
  for candidate in "$1-14" "$1"; do
    if command -v "$candidate" >/dev/null && "$candidate" --version | grep -q "version 14\."; then
      tool=$candidate
      return 0
    fi
  done
  echo "SKIP: $1 14 not found (scripts/setup.sh installs it on Debian 12)"
  exit 77
}
