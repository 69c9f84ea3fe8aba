#!/usr/bin/env python3
"""How the profiler's late spans touched the committed GPU profiles (docs/PROFILE.md, "late spans").

    profile_late_spans.py [ROOT]      (default: results/ of this checkout)

Reads every profile-<pid>.json(.gz) under ROOT and prints, per program (the command's script name): profiles, those
with late spans, the median share of its records (kernels, copies, memsets) that came late, the mean distance a late
record's start lay before the last closed span's end (what the recorder before 2026-12-05 added to busy_ns each time:
busy_ns less the kept spans' busy time, over the late spans, where every span was kept), profiles whose busy_ns
exceeds first_ns..last_ns, and the most busy time held by spans that meet end to start (the mark of the old merge
moving a span back to the last closed end). Then how many copies' profile folders (profiles/<run>/w<i>) hold more
than one profile. One line of totals last. Exit 2 with one line for a ROOT that is not a folder.
"""
import collections
import glob
import gzip
import json
import os
import re
import statistics
import sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def program(command):
    """The script's name; for a main.py, its folder's (the PyTorch examples: mnist, siamese_network, ...)."""
    m = re.search(r"(?:([\w.-]+)/)?([\w.-]+)\.py\b", command)
    if not m:
        return (command.split() or ["?"])[0].rsplit("/", 1)[-1]
    return m.group(1) if m.group(2) == "main" and m.group(1) else m.group(2)


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results")
    if len(argv) > 2 or not os.path.isdir(root):
        print("profile_late_spans.py: %s: not a folder (usage: profile_late_spans.py [ROOT])" % root, file=sys.stderr)
        return 2
    rows = collections.defaultdict(list)
    files = sorted(glob.glob(os.path.join(root, "**", "profile-*.json*"), recursive=True))
    for path in files:
        d = load(path)
        b = d["busy"]
        spans = b["spans"]
        records = d["kernels"]["count"] + d["copies"]["count"] + d["memsets"]["count"]
        late = b.get("late_spans", 0)
        kept_busy = sum(s[2] for s in spans)
        whole = len(spans) == b["intervals"]
        meet = sum(spans[i][1] - spans[i][0] for i in range(1, len(spans))
                   if i != b["kept_head"] and spans[i][0] == spans[i - 1][1])
        rows[program(d["process"]["command"])].append({
            "late": late, "share": late / records if records else 0.0,
            "distance_s": (b["busy_ns"] - kept_busy) / late * 1e-9 if late and whole and b["busy_ns"] > kept_busy else None,
            "over": b["busy_ns"] > b["last_ns"] - b["first_ns"],
            "meet": meet / kept_busy if kept_busy else 0.0})
    print("program | profiles | with late spans | median share of records late | mean distance late, s | "
          "busy_ns over the run | most busy time in spans meeting end to start")
    for name in sorted(rows):
        r = rows[name]
        with_late = [x for x in r if x["late"]]
        dist = [x["distance_s"] for x in with_late if x["distance_s"] is not None]
        print("%s | %d | %d | %s | %s | %d | %.2f %%" % (
            name, len(r), len(with_late),
            "%.3f" % statistics.median(x["share"] for x in with_late) if with_late else "-",
            "%.3f" % statistics.mean(dist) if dist else "-",
            sum(x["over"] for x in r), 100 * max(x["meet"] for x in r)))
    copies = collections.Counter(len(glob.glob(os.path.join(w, "profile-*.json*")))
                                 for w in glob.glob(os.path.join(root, "**", "profiles", "*", "w*"), recursive=True))
    every = [x for r in rows.values() for x in r]
    print("profiles: %d; with late spans %d; busy_ns over the run %d; most busy time in spans meeting end to start "
          "%.2f %%; copies' profile folders: %d, holding more than one profile %d" % (
              len(every), sum(1 for x in every if x["late"]), sum(x["over"] for x in every),
              100 * max((x["meet"] for x in every), default=0), sum(copies.values()),
              sum(n for k, n in copies.items() if k > 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
