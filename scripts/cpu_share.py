#!/usr/bin/env python3
"""cpu_share: how much of its run each exec copy kept its CPU busy, per run of a sweep folder.

Each exec copy's runs.csv facts say what CPU its processes used over its run (`cpu_user_s`, `cpu_system_s`: its
command and every descendant reaped, recorded since 2026-12-04) beside how long the run took (`completion_s`, the
time held at the start gate left out). Their ratio reads near 1 for a copy bound by its core (pinned, its main
process and its DataLoader workers share that one core) and lower for one that waited (for the GPU without spinning,
for data, for a sleep). A copy that spin-waits on the GPU also reads near 1: read it beside the program's GPU busy
share (profile_duty). Prints one line per run: the copies' median and least share, their CPU and completion ranges,
and the median involuntary context switches (the core taken from them).

    python3 scripts/cpu_share.py SWEEP
"""
import csv
import os
import statistics
import sys

from script_input import run_main


def facts(text):
    return dict(kv.split("=", 1) for kv in text.split(";") if "=" in kv)


def copy_shares(rows):
    """{run_id: [(CPU over completion, CPU s, completion s, involuntary switches) per copy]} of runs.csv's rows, and
    how many copies lacked the facts. A failed copy (status other than ok; its facts are kept since 2026-12-05) is
    counted with those, as it was before its facts were kept."""
    runs, missing = {}, 0
    for r in rows:
        if r.get("status", "ok") != "ok":
            missing += 1
            continue
        f = facts(r.get("facts", ""))
        if "cpu_user_s" not in f or "completion_s" not in f or float(f["completion_s"]) <= 0:
            missing += 1
            continue
        cpu = float(f["cpu_user_s"]) + float(f.get("cpu_system_s", 0))
        runs.setdefault(r["run_id"], []).append((cpu / float(f["completion_s"]), cpu, float(f["completion_s"]),
                                                 int(f.get("context_switches_involuntary", 0))))
    return runs, missing


def main(argv):
    if len(argv) != 1:
        print("usage: cpu_share.py SWEEP", file=sys.stderr)
        return 2
    path = os.path.join(argv[0], "runs.csv")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print("cpu_share.py: cannot read %s: %s" % (path, e.strerror), file=sys.stderr)
        return 2
    runs, missing = copy_shares(rows)
    if not runs:
        print("cpu_share.py: %s has no copy with cpu_user_s and completion_s (an exec sweep measured since "
              "2026-12-04)" % path, file=sys.stderr)
        return 2
    for run_id, copies in runs.items():
        share = [c[0] for c in copies]
        print("%s: %d copies, CPU over completion median %.3f, least %.3f; CPU %.1f-%.1f s, completion %.1f-%.1f s; "
              "involuntary switches median %d" % (
                  run_id, len(copies), statistics.median(share), min(share), min(c[1] for c in copies),
                  max(c[1] for c in copies), min(c[2] for c in copies), max(c[2] for c in copies),
                  statistics.median(c[3] for c in copies)))
    if missing:
        print("%d copies without the CPU facts or a completion left out" % missing)
    return 0


if __name__ == "__main__":
    run_main("cpu_share.py", __doc__, lambda: main(sys.argv[1:]))
