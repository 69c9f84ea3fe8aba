#!/usr/bin/env python3
"""units_by_cell.py: one line per mode and N of a folder's units.csv (bench_mps predict --measure), as the device
steps print them: how many copies were co-run, the units' median, the draws of a cell alone, and with --phase the
steps its first copy kept.

    scripts/units_by_cell.py DIR [--label WORD] [--phase]
"""
import argparse
import csv
import statistics
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--label", default="", help="a word before each line")
    ap.add_argument("--phase", action="store_true", help="the phase the cell's first copy kept")
    a = ap.parse_args()
    try:
        rows = list(csv.DictReader(open(a.dir + "/units.csv")))
    except OSError as e:
        print(f"units_by_cell.py: {e}", file=sys.stderr)
        sys.exit(2)
    cells = {}
    for u in rows:
        cells.setdefault((u["mode"], int(u["procs"])), []).append(u)
    label = a.label + " " if a.label else ""
    for (mode, n), us in sorted(cells.items()):
        units = [float(u["unit_ms"]) for u in us if u["unit_ms"]]
        co = sum(u["unit_basis"] in ("common window", "metric") for u in us)
        med = f"{statistics.median(units):.4g} ms" if units else "-"
        draws = f", alone draws {', '.join(f'{v:.4g}' for v in units)} ms" if n == 1 and len(units) > 1 else ""
        phase = f"; {us[0].get('phase', '')}" if a.phase else ""
        print(f"  {label}{mode} N={n}: {co}/{len(us)} copies co-run, unit median {med}{draws}{phase}")


if __name__ == "__main__":
    main()
