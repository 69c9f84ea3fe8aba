"""What the analysis scripts share about their input: a file that is missing, damaged or not what they read is one
line on stderr and exit 2, never a Python traceback; a reader that went away (`| head`) ends them quietly, as it
ends other tools; `-h` or `--help` prints the script's own description and exits 0.

    from script_input import run_main
    if __name__ == "__main__":
        run_main("cpu_share.py", __doc__, lambda: main(sys.argv[1:]))
"""
import csv
import json
import signal
import sys

# What reading a damaged folder raises in these scripts: a file missing or unreadable, JSON that is not JSON or not
# an object, a CSV cut short or without its columns, a number that is not one, a value that divides by zero.
DAMAGED = (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError, ZeroDivisionError, csv.Error,
           json.JSONDecodeError, UnicodeDecodeError)


def run_main(name, doc, main):
    """Exits with main()'s status; help first, damaged input as one line and 2."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        print((doc or name).strip())
        sys.exit(0)
    try:
        code = main()
    except DAMAGED as e:
        what = " ".join(str(e).split())[:300] or "no detail"
        print("%s: cannot read its input (%s: %s); nothing was written" % (name, type(e).__name__, what),
              file=sys.stderr)
        code = 2
    sys.exit(code)
