#!/usr/bin/env bash
# Runs one test program in a PID namespace of its own, with /proc remounted and a private TMPDIR:
#   run_isolated.sh PROGRAM ARGS...
# The tests that start (fake) MPS daemons look for daemons machine-wide in /proc and keep their locks
# and pipe folders under $TMPDIR, as bench_mps does. In a namespace of its own a test sees only its
# own processes and files, so such tests run side by side instead of one at a time; when the
# program ends, the kernel ends everything left in its namespace. tests/CMakeLists.txt uses this only
# where `unshare` worked at configure time, and the GPU tests never (they run alone: RUN_SERIAL).
# Where it does not work here (a build carried to another machine), the tests take turns on a lock.
set -u
base="${TMPDIR:-/tmp}"
private=$(mktemp -d "$base/bench_mps_test.XXXXXX") || exit 1
trap 'rm -rf "$private"' EXIT
if unshare --pid --fork --mount-proc --kill-child true 2>/dev/null; then
  # bash is the namespace's PID 1 and the test its child in the foreground (signals as usual): bash
  # reaps the daemons the test leaves orphaned (a zombie still answers kill -0, so a fake daemon's
  # `quit` would wait it out). The `exit` keeps bash from exec'ing the test in its own place.
  TMPDIR="$private" unshare --pid --fork --mount-proc --kill-child bash -c '"$@"; exit $?' run_isolated "$@"
else
  TMPDIR="$private" flock "$base/bench_mps_tests.lock" "$@"
fi
