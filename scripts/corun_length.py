#!/usr/bin/env python3
"""How long must a program's steady part be for N gated copies of it to run together? A model from its runs alone.

A copy is co-run when the window in which every copy of its run was steady covers at least 80 % of its own steady
part (docs/PREDICT.md). Released together by the start gate, copies that do the same work part only by their
rates, and the window then covers the fastest copy's steady time over the slowest's. This script reads the alone
runs (N=1) of gated, profiled sweeps: each run's steps after its gate (the host waits' ends, profiles/RUN/w0),
the part its units.csv kept ("steps A-B of C", or a "whole steady part" of `steps` steps), and draws N copies' steady times by a block bootstrap over those
steps (blocks of --block steps, from any alone run of the mode: the rate's swings within a run, and between runs,
the draws see), for the steady part as measured (k = 1) and k times as long (k x the steps, the same swings).
It prints, per mode, k and N, the share of draws whose fastest over slowest steady time is at least 0.80 and the
median of that ratio. The model assumes the copies' swings are independent and that sharing the GPU slows every
copy alike; what copies sharing a host and a GPU do beyond that it does not see.

    python3 scripts/corun_length.py SWEEP... [--block STEPS] [--draws 2000] [--seed 1] [--swings 23]

--swings M first prints each alone run's kept steps summed M at a time, in order: how its rate swings along the run.
"""
import argparse
import csv
import glob
import gzip
import json
import os
import random
import re
import statistics
import sys

from script_input import run_main


def alone_runs(sweep):
    """(mode, steps kept) of each alone run of a sweep folder, read from its units.csv, meta.json and profiles."""
    meta = json.load(open(os.path.join(sweep, "meta.json")))
    points = {r["run_id"]: r["point"] for r in (meta.get("exec_gate") or {}).get("runs", [])}
    for row in csv.DictReader(open(os.path.join(sweep, "units.csv"))):
        if row["procs"] != "1":
            continue
        found = glob.glob(os.path.join(sweep, "profiles", row["run_id"], "w0", "*.json*"))
        kept = re.match(r"steps (\d+)-(\d+) of (\d+)", row.get("phase", ""))
        whole = row.get("phase", "") == "whole steady part" and row.get("steps", "").isdigit()
        point = re.fullmatch(r"wait:(\d+)", points.get(row["run_id"], ""))
        if not found or not (kept or whole) or not point:
            print(f"{sweep} {row['run_id']}: left out (no profile, no kept steps or no gate at a host wait)")
            continue
        opener = gzip.open if found[0].endswith(".gz") else open
        ends = [span[1] for span in json.load(opener(found[0]))["waits"]["spans"]]
        after_gate = ends[int(point.group(1)) - 1:]
        steps = [(b - a) / 1e6 for a, b in zip(after_gate, after_gate[1:])]
        # "steps A-B of C": the part kept; "whole steady part": its first `steps` steps after the gate
        first, last = (int(kept.group(1)), int(kept.group(2))) if kept else (1, int(row["steps"]))
        yield row["mode"], steps[first - 1:last]


def draw_steady(pool, steps, block, rng):
    total, n = 0.0, 0
    while n < steps:
        run = rng.choice(pool)
        i = rng.randrange(0, max(1, len(run) - block + 1))
        total += sum(run[i:i + block])
        n += block
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sweeps", nargs="+")
    ap.add_argument("--block", type=int, default=0, help="steps a block (default: half the kept steps)")
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--k", default="1,2,4,8", help="multiples of the steady part as measured")
    ap.add_argument("--procs", default="2,4,10")
    ap.add_argument("--swings", type=int, default=0, help="print each run's steps summed this many at a time")
    a = ap.parse_args()
    pools = {}
    for sweep in a.sweeps:
        for mode, steps in alone_runs(sweep):
            pools.setdefault(mode, []).append(steps)
            if a.swings > 0:
                sums = [sum(steps[i:i + a.swings]) for i in range(0, len(steps) - a.swings + 1, a.swings)]
                print(f"{sweep} {mode}: {a.swings} steps at a time, ms: " + " ".join("%.0f" % x for x in sums))
    if not pools:
        print("corun_length.py: %s: no run alone with kept steps (units.csv's alone runs, N=1)" % " ".join(a.sweeps),
              file=sys.stderr)
        return 2
    for mode, pool in sorted(pools.items()):
        kept = statistics.median(len(s) for s in pool)
        block = a.block or max(1, int(kept) // 2)
        totals = ", ".join("%.0f" % sum(s) for s in pool)
        print(f"{mode}: {len(pool)} alone runs, {kept:.0f} kept steps each (median), steady parts {totals} ms; "
              f"blocks of {block} steps")
        rng = random.Random(a.seed)
        for k in (int(x) for x in a.k.split(",")):
            cells = []
            for n in (int(x) for x in a.procs.split(",")):
                ratios = []
                for _ in range(a.draws):
                    t = [draw_steady(pool, int(kept) * k, block, rng) for _ in range(n)]
                    ratios.append(min(t) / max(t))
                share = sum(r >= 0.8 for r in ratios) / len(ratios)
                cells.append(f"N={n} co-run {share:.2f} (median fastest/slowest {statistics.median(ratios):.2f})")
            print(f"  {k}x: " + " | ".join(cells))


if __name__ == "__main__":
    run_main("corun_length.py", __doc__, main)
