#!/usr/bin/env python3
"""The start gate's cost on one copy alone, from a device_check `gatecost` step's folders (issue 42):

    python3 scripts/gate_cost.py DIR...

DIR/gatecost/<program>/{steady,keep,unsubscribe,detach,wait<K>,off}-<i>/ are single-copy sweeps, time-sliced,
`--exec-gate steady` or `off` (steady: what its build does once the gate opens, meta.json's exec_gate.after_open
where recorded; keep: steady with the gate's callbacks left on after it opens; unsubscribe: steady with them switched
off; detach: steady with CUPTI detached from the copy once it opens; wait<K>: `--exec-gate wait:K`, a gate point
given, so no profiled warm-up finds it), in rounds whose order alternates
(scripts/device_steps/gatecost.sh); the unit is the program's own summary line (the `step_mean_ms` fact). Prints per
program each round's units and each gated arm's ratio to off, the median of those ratios with their range, and the
arm's median over off's median. Then each arm's pairs (pooled, given several folders: calls, leases): their median
ratio with a 90 % interval by resampling pairs, and whether that interval decides a cost within 1 %.
"""
import csv
import json
import os
import random
import re
import statistics
import sys

from script_input import run_main

BOOTSTRAP = 2000
SEED = 42


def unit_ms(folder):
    with open(os.path.join(folder, "runs.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if row["status"] != "ok":
                return None
            m = re.search(r"(?:^|;)step_mean_ms=([0-9.eE+-]+)", row["facts"])
            return float(m.group(1)) if m else None
    return None


def arm_of(folder):
    """The arm a `<arm>-<i>` folder ran: its name's, but a `steady` sweep whose meta.json records what the gate did
    once it opened (exec_gate.after_open, since 2026-12-04) is that arm (detach, unsubscribe or keep)."""
    arm = os.path.basename(folder).rsplit("-", 1)[0]
    if arm != "steady":
        return arm
    try:
        with open(os.path.join(folder, "meta.json")) as f:
            after = (json.load(f).get("exec_gate") or {}).get("after_open")
    except (OSError, ValueError):
        return arm
    return after if after in ("detach", "unsubscribe", "keep") else arm


def one_folder(folder, pooled):
    """Prints one folder's table and summary lines; adds its ratios to pooled[(program, arm)]."""
    root = os.path.join(folder, "gatecost")
    programs = sorted(os.listdir(root))
    # The gated arms beside `off` where they ran: steady, keep, unsubscribe, detach, then wait<K> by K.
    runs = {p: {} for p in programs}  # {program: {(arm, round): folder}}
    for p in programs:
        for d in sorted(os.listdir(os.path.join(root, p))):
            name, i = d.rsplit("-", 1)
            arm = arm_of(os.path.join(root, p, d))
            # a steady run beside an arm of the same effect in its round keeps its own name
            runs[p][(arm if (arm, int(i)) not in runs[p] else name, int(i))] = os.path.join(root, p, d)
    named = {arm for p in programs for arm, _ in runs[p]}
    arms = [a for a in ("steady", "keep", "unsubscribe", "detach") if a in named]
    arms += sorted((a for a in named if re.match(r"^wait[0-9]+$", a)), key=lambda a: int(a[4:]))
    print("| program | round | " + " | ".join("%s, ms" % a for a in arms) + " | off, ms | " +
          " | ".join("%s / off" % a for a in arms) + " |")
    print("|---|---:|" + "---:|" * (2 * len(arms) + 1))
    summary = []
    for program in programs:
        ratios = {a: [] for a in arms}
        units = {a: [] for a in arms + ["off"]}
        rounds = sorted({i for _, i in runs[program]})
        for i in rounds:
            u = {a: unit_ms(runs[program][(a, i)]) if (a, i) in runs[program] else None for a in arms + ["off"]}
            if u["off"] is None or all(u[a] is None for a in arms):
                continue
            for a in arms + ["off"]:
                if u[a] is not None:
                    units[a].append(u[a])
            for a in arms:
                if u[a] is not None:
                    ratios[a].append(u[a] / u["off"])
                    pooled.setdefault((program, a), []).append(u[a] / u["off"])
            print("| %s | %d | " % (program, i) + " | ".join("-" if u[a] is None else "%.4f" % u[a] for a in arms) +
                  " | %.4f | " % u["off"] +
                  " | ".join("-" if u[a] is None else "%.3fx" % (u[a] / u["off"]) for a in arms) + " |")
        for a in arms:
            r = ratios[a]
            if r:
                summary.append("%s, %s: %d pairs, %s / off per pair median %.3fx (%.3fx-%.3fx); median %s over "
                               "median off %.3fx" % (program, a, len(r), a, statistics.median(r), min(r), max(r), a,
                                                    statistics.median(units[a]) / statistics.median(units["off"])))
    print()
    for line in summary:
        print(line)


def bootstrap_median(values):
    """A 90 % interval of the median by resampling the pairs (fixed seed)."""
    rng = random.Random(SEED)
    meds = sorted(statistics.median(rng.choice(values) for _ in values) for _ in range(BOOTSTRAP))
    return meds[int(0.05 * BOOTSTRAP)], meds[int(0.95 * BOOTSTRAP) - 1]


def main():
    folders = sys.argv[1:]
    if not folders or not all(os.path.isdir(os.path.join(f, "gatecost")) for f in folders):
        print("usage: gate_cost.py DIR... (folders holding gatecost/<program>/<gate>-<i>/)", file=sys.stderr)
        return 2
    pooled = {}
    for f in folders:
        if len(folders) > 1:
            print("%s:\n" % f)
        one_folder(f, pooled)
        print()
    if not pooled:
        print("gate_cost.py: %s: no round with an arm and off both measured (their runs.csv's step_mean_ms)" %
              " ".join(folders), file=sys.stderr)
        return 2
    if len(folders) > 1:
        print("Pooled over the %d folders (each pair its own ratio; the median's 90 %% interval by resampling pairs, "
              "seed %d):" % (len(folders), SEED))
    else:
        print("Its pairs (each its own ratio; the median's 90 %% interval by resampling pairs, seed %d):" % SEED)
    if folders:
        for (program, arm), r in sorted(pooled.items()):
            lo, hi = bootstrap_median(r)
            verdict = ("within 1 %" if lo >= 0.99 and hi <= 1.01 else
                       "a cost over 1 %" if lo > 1.01 else "not decided at 1 %")
            print("%s, %s: %d pairs, %s / off median %.3fx (90 %% interval %.3fx-%.3fx; pairs %.3fx-%.3fx): %s" % (
                program, arm, len(r), arm, statistics.median(r), lo, hi, min(r), max(r), verdict))
    return 0


if __name__ == "__main__":
    run_main("gate_cost.py", __doc__, main)
