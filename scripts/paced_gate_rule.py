#!/usr/bin/env python3
"""The rule of results/2026-12-03-advise-lease4/PLAN-paced-gate.md, read from a gate step's folders (written before
the run it judges). For each FOLDER (one `--exec-gate` setting of paced-infer: runs.csv, meta.json, units.csv):

- A, the backlog: at N=10 under MPS, per run, the copies held at the gate at least 0.1 s (runs.csv's facts
  gate_held_s) and each one's p99 latency (step_p99_ms) against the p99 of its run's least-held copy. A gate passes
  A where every such copy, in every run, has a p99 under 3x its run's least-held copy's; where no copy was held
  0.1 s, A cannot be judged.
- B, co-run: cells at N >= 2 where every copy of the cell's runs is co-run in units.csv (as scripts/gate_study.py
  counts a cell), out of the cells measured.

    python3 scripts/paced_gate_rule.py OUT/runs/gate/paced-infer/steady OUT/runs/gate/paced-infer/wait:21 ...
"""
import csv
import json
import os
import sys

from gate_study import cells_co_run  # the same count of a cell as gate_study.py's

HELD_S = 0.1  # the plan's "held at least 0.1 s"
TIMES = 3.0  # the plan's "under 3x its run's least-held copy's"


def facts(row):
    out = {}
    for part in (row.get("facts") or "").split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


def rule_a(rows):
    """(verdict, lines): verdict "pass", "fail" or "cannot be judged"."""
    runs = {}
    for r in rows:
        if r["mode"] == "mps" and r["procs"] == "10" and r.get("role", "worker") in ("", "worker"):
            f = facts(r)
            if "gate_held_s" in f and "step_p99_ms" in f:
                runs.setdefault(r["run_id"], []).append((float(f["gate_held_s"]), float(f["step_p99_ms"]), r["worker"]))
    lines, judged, failed = [], 0, 0
    for run_id, copies in sorted(runs.items()):
        least = min(copies)
        held = [c for c in copies if c[0] >= HELD_S]
        judged += len(held)
        over = [c for c in held if c[1] >= TIMES * least[1]]
        failed += len(over)
        worst = max((c[1] / least[1] for c in held), default=None)
        lines.append(f"{run_id}: least held w{least[2]} {least[0]:.3f} s p99 {least[1]:.1f} ms; held >= {HELD_S} s: "
                     f"{len(held)} of {len(copies)} copies" +
                     ("" if worst is None else f", worst p99 {worst:.2f}x the least-held's, {len(over)} at {TIMES:g}x or more"))
    if not runs:
        return "cannot be judged (no MPS run at N=10)", lines
    if judged == 0:
        return f"cannot be judged (no copy held {HELD_S} s or more)", lines
    return ("fail" if failed else "pass"), lines


def rule_b(folder):
    path = os.path.join(folder, "units.csv")
    if not os.path.exists(path):
        return "no units.csv"
    cells = cells_co_run([u for u in csv.DictReader(open(path)) if int(u["procs"]) >= 2])
    co = sum(cells.values())
    return f"{co} of {len(cells)} cells co-run (N >= 2, every copy of both repeats)"


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    for folder in argv[1:]:
        runs = os.path.join(folder, "runs.csv")
        if not os.path.exists(runs):
            print(f"paced_gate_rule: {runs}: no such file", file=sys.stderr)
            return 2
        gate = (json.load(open(os.path.join(folder, "meta.json"))).get("exec_gate") or {}).get("asked", "?")
        verdict, lines = rule_a(list(csv.DictReader(open(runs))))
        print(f"{folder} (--exec-gate {gate}): A {verdict}; B {rule_b(folder)}")
        for line in lines:
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
