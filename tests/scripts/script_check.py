"""What the checks of tests/scripts share: a list of failed checks printed as they fail, running one of the
repository's scripts as a process, and the exit status (1 where any check failed, 2 on a bad command line)."""
import os
import subprocess
import sys

FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print("FAIL: " + what)


def run_script(root, script, *args, timeout=120):
    """(exit status, stdout, stderr) of `python3 ROOT/SCRIPT ARGS...`."""
    p = subprocess.run([sys.executable, os.path.join(root, script)] + list(args), capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def main_of(name, body):
    """Runs body(ROOT) with the one argument the check takes; exits 1 where a check failed."""
    if len(sys.argv) != 2:
        print("usage: %s ROOT" % os.path.basename(sys.argv[0]), file=sys.stderr)
        sys.exit(2)
    body(sys.argv[1])
    print("%d failed" % len(FAILS) if FAILS else "%s: all checks passed" % name)
    sys.exit(1 if FAILS else 0)
