#!/usr/bin/env python3
"""The start gate's cost on one copy alone, from a device_check `gatecost` step's folders (issue 42):

    python3 scripts/gate_cost.py DIR

DIR/gatecost/<program>/{steady,off}-<i>/ are single-copy sweeps, time-sliced, `--exec-gate steady` or `off`, in
pairs whose order alternates (scripts/device_steps/gatecost.sh); the unit is the program's own summary line (the
`step_mean_ms` fact). Prints per program each pair's units and their ratio (gate on over off), the median of the
pair ratios with their range, and the median on over the median off.
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
    print("| program | pair | gate on, ms | gate off, ms | on / off |")
    print("|---|---:|---:|---:|---:|")
    summary = []
    for program in sorted(os.listdir(root)):
        on, off, ratios = [], [], []
        pairs = sorted({int(p.rsplit("-", 1)[1]) for p in os.listdir(os.path.join(root, program))})
        for i in pairs:
            a = unit_ms(os.path.join(root, program, "steady-%d" % i))
            b = unit_ms(os.path.join(root, program, "off-%d" % i))
            if a is None or b is None:
                continue
            on.append(a)
            off.append(b)
            ratios.append(a / b)
            print("| %s | %d | %.4f | %.4f | %.3fx |" % (program, i, a, b, a / b))
        if ratios:
            summary.append("%s: %d pairs, on / off per pair median %.3fx (%.3fx-%.3fx); median on over median off "
                           "%.3fx" % (program, len(ratios), statistics.median(ratios), min(ratios), max(ratios),
                                      statistics.median(on) / statistics.median(off)))
    print()
    for line in summary:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
