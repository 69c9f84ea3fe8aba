#!/usr/bin/env python3
"""The start gate's cost on one copy alone, from a device_check `gatecost` step's folders (issue 42):

    python3 scripts/gate_cost.py DIR

DIR/gatecost/<program>/{steady,keep,off}-<i>/ are single-copy sweeps, time-sliced, `--exec-gate steady` or `off`
(keep: steady with the gate's callbacks left on after it opens), in rounds whose order alternates
(scripts/device_steps/gatecost.sh); the unit is the program's own summary line (the `step_mean_ms` fact). Prints per
program each round's units and each gated arm's ratio to off, the median of those ratios with their range, and the
arm's median over off's median.
"""
import csv
import glob
import os
import re
import statistics
import sys


def unit_ms(folder):
    with open(os.path.join(folder, "runs.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if row["status"] != "ok":
                return None
            m = re.search(r"(?:^|;)step_mean_ms=([0-9.eE+-]+)", row["facts"])
            return float(m.group(1)) if m else None
    return None


def main():
    if len(sys.argv) != 2 or not os.path.isdir(os.path.join(sys.argv[1], "gatecost")):
        print("usage: gate_cost.py DIR (a folder holding gatecost/<program>/<gate>-<i>/)", file=sys.stderr)
        return 2
    root = os.path.join(sys.argv[1], "gatecost")
    programs = sorted(os.listdir(root))
    # The gated arms beside `off`: steady, and keep (steady with the gate's callbacks left on) where it ran.
    arms = [a for a in ("steady", "keep")
            if any(glob.glob(os.path.join(root, p, a + "-*")) for p in programs)]
    print("| program | round | " + " | ".join("%s, ms" % a for a in arms) + " | off, ms | " +
          " | ".join("%s / off" % a for a in arms) + " |")
    print("|---|---:|" + "---:|" * (2 * len(arms) + 1))
    summary = []
    for program in programs:
        ratios = {a: [] for a in arms}
        units = {a: [] for a in arms + ["off"]}
        rounds = sorted({int(p.rsplit("-", 1)[1]) for p in os.listdir(os.path.join(root, program))})
        for i in rounds:
            u = {a: unit_ms(os.path.join(root, program, "%s-%d" % (a, i)))
                 if os.path.isdir(os.path.join(root, program, "%s-%d" % (a, i))) else None for a in arms + ["off"]}
            if u["off"] is None or all(u[a] is None for a in arms):
                continue
            for a in arms + ["off"]:
                if u[a] is not None:
                    units[a].append(u[a])
            for a in arms:
                if u[a] is not None:
                    ratios[a].append(u[a] / u["off"])
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
