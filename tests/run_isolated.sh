#!/usr/bin/env bash
# Runs one test program in a PID namespace of its own, with /proc remounted and a private TMPDIR:
#   run_isolated.sh PROGRAM ARGS...
# The tests that start (fake) MPS daemons look for daemons machine-wide in /proc and keep their locks
# and pipe folders under $TMPDIR, as bench_mps does. In a namespace of its own a test sees only its
# own processes and files, so such tests run side by side instead of one at a time; when the
# program ends, the kernel ends everything left in its namespace. tests/CMakeLists.txt uses this only
# where `unshare` works (root, util-linux) and the GPU tests never (they run alone: RUN_SERIAL).
set -u
base="${TMPDIR:-/tmp}"
private=$(mktemp -d "$base/bench_mps_test.XXXXXX") || exit 1
TMPDIR="$private" unshare --pid --fork --mount-proc --kill-child "$@"
rc=$?
rm -rf "$private"
exit $rc
