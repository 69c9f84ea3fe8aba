#!/usr/bin/env python3
"""scripts/cpu_share.py on a runs.csv with known facts: each run's copies' CPU over completion (median and least),
their CPU and completion ranges and median involuntary switches as computed by hand; a copy without the facts is
counted and left out; a sweep with none, a missing folder and no argument exit 2.

    python3 tests/scripts/check_cpu_share.py ROOT
"""
import csv
import os
import tempfile

from script_check import check, main_of, run_script


def write(d, rows):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "runs.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["run_id", "worker", "status", "facts"])
        w.writerows(rows)


def run(root, *args):
    return run_script(root, "scripts/cpu_share.py", *args)


def main(root):
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "good")
        write(good, [
            ("r1-mps-exec-n2", 0, "ok", "completion_s=10;cpu_user_s=9;cpu_system_s=1;context_switches_involuntary=100"),
            ("r1-mps-exec-n2", 1, "ok", "completion_s=20;cpu_user_s=10;cpu_system_s=0;context_switches_involuntary=300"),
            ("r1-mps-exec-n1", 0, "ok", "completion_s=8;cpu_user_s=6;cpu_system_s=0;context_switches_involuntary=7"),
            ("r1-mps-exec-n1", 1, "failed", "exit_code=1"),
        ])
        rc, so, se = run(root, good)
        want = ["r1-mps-exec-n2: 2 copies, CPU over completion median 0.750, least 0.500; CPU 10.0-10.0 s, "
                "completion 10.0-20.0 s; involuntary switches median 200",
                "r1-mps-exec-n1: 1 copies, CPU over completion median 0.750, least 0.750; CPU 6.0-6.0 s, "
                "completion 8.0-8.0 s; involuntary switches median 7",
                "1 copies without the CPU facts or a completion left out"]
        check(rc == 0 and so.splitlines() == want, "known runs: rc %d\n%s%s" % (rc, so, se))
        none = os.path.join(tmp, "none")
        write(none, [("r1-mps-exec-n1", 0, "ok", "completion_s=8")])
        rc, so, se = run(root, none)
        check(rc == 2 and "has no copy with cpu_user_s" in se, "no CPU facts: rc %d %r" % (rc, se))
        rc, so, se = run(root, os.path.join(tmp, "missing"))
        check(rc == 2 and "cannot read" in se, "a missing folder: rc %d %r" % (rc, se))
        rc, so, se = run(root)
        check(rc == 2 and "usage" in se, "no argument: rc %d %r" % (rc, se))
        # Damaged numbers: one line and 2 (scripts/script_input.py), not a traceback; --help is the description.
        bad = os.path.join(tmp, "bad")
        write(bad, [("r1-mps-exec-n1", 0, "ok", "completion_s=1x3;cpu_user_s=9;cpu_system_s=1")])
        rc, so, se = run(root, bad)
        check(rc == 2 and se.count("\n") == 1 and "Traceback" not in se and "cannot read its input" in se,
              "a damaged number: rc %d %r" % (rc, se))
        rc, so, se = run(root, "--help")
        check(rc == 0 and so.startswith("cpu_share:"), "--help: rc %d %r" % (rc, so[:80]))


if __name__ == "__main__":
    main_of("cpu_share", main)
