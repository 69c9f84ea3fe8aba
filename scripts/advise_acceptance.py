#!/usr/bin/env python3
"""Issue 42's advise acceptance, counted from committed advise folders: each program's verdict on each lease.

    python3 scripts/advise_acceptance.py FOLDER...

Each FOLDER holds <program>/advice.json (one advise run each, as scripts/device_check.sh's advise steps write them).
A lease is the GPU a run names (advice.json's gpu.uuid), so one folder may hold two leases and two folders one.
Only complete runs decided on the per-step basis count (the acceptance asks per unit). A program is decided alike
when two or more leases gave it the same decided verdict and no lease a different decided one; an undecided run
counts as close to the line when its MPS-over-time-sliced interval is under 10 points wide. Prints one line per
run, then one line per program, then the count the acceptance asks for (5 of 6 programs decided alike).
"""
import json
import os
import sys

from advise_index import interval as interval_text  # the same words as INDEX.md: "1.02x (0.99-1.04)"

WIDE_POINTS = 10.0  # an undecided run's interval must be narrower than this (acceptance of issue 42)
WANTED = 5          # programs decided alike on two leases


def runs(folders):
    for folder in folders:
        for program in sorted(os.listdir(folder)):
            path = os.path.join(folder, program, "advice.json")
            if not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8") as f:
                a = json.load(f)
            yield folder.rstrip("/"), program, a


def width_points(m):
    if m.get("lo") is None or m.get("hi") is None:
        return None
    return 100 * (m["hi"] - m["lo"])


def co_run_text(a):
    """Worker sets at N >= 2 whose copies co-ran (a per-step unit from their profiles); '' for a program timed by
    its own printed metric, whose sets carry no such mark."""
    sets = [s for c in a["ladder"] if c["procs"] >= 2 for s in c["sets"] if "co_run" in s]
    if not sets:
        return ""
    return ", %d of %d worker sets at N >= 2 co-ran" % (sum(1 for s in sets if s["co_run"]), len(sets))


def main(folders):
    by_program = {}
    for folder, program, a in runs(folders):
        r, d = a["recommendation"], a["decision"]
        m = d["mps_over_timeslice"]
        counted = a["status"] == "complete" and d["basis"] == "unit"
        w = width_points(m)
        # one copy under MPS is not one copy time-sliced: the mode tells them apart
        kind = r["verdict"] + (" under MPS" if r["verdict"] == "one-copy" and r.get("mode") == "mps" else "")
        verdict = kind + (" N=%d" % r["procs"] if r["procs"] else "")
        print("run: %s on %s (%s): %s, MPS over time-sliced per step %s, %s%s%s" % (
            program, a["gpu"]["uuid"][:12], os.path.basename(folder), verdict, interval_text(m),
            "interval %.1f points wide" % w if w is not None else "no interval", co_run_text(a),
            "" if counted else " (not counted: %s, basis %s)" % (a["status"], d["basis"])))
        if counted:
            by_program.setdefault(program, []).append((a["gpu"]["uuid"], kind, w))
    alike = []
    for program in sorted(by_program):
        entries = by_program[program]
        decided = {}
        for uuid, verdict, _ in entries:
            if verdict != "undecided":
                decided.setdefault(verdict, set()).add(uuid)
        undecided = [w for _, verdict, w in entries if verdict == "undecided"]
        leases = len({uuid for uuid, _, _ in entries})
        if len(decided) > 1:
            state = "decided differently: " + ", ".join(
                "%s on %d" % (v, len(u)) for v, u in sorted(decided.items()))
        elif decided and len(next(iter(decided.values()))) >= 2:
            verdict, uuids = next(iter(decided.items()))
            state = "decided alike (%s) on %d leases" % (verdict, len(uuids))
            alike.append(program)
        elif decided:
            state = "decided (%s) on 1 lease" % next(iter(decided))
        else:
            state = "undecided"
        if undecided:
            close = [w for w in undecided if w is not None and w < WIDE_POINTS]
            state += "; %d undecided run(s), %d of them under %.0f points wide" % (
                len(undecided), len(close), WIDE_POINTS)
        print("program: %s: %d lease(s), %s" % (program, leases, state))
    print("decided alike on two leases or more: %d of %d programs (%s); the acceptance asks %d of 6" % (
        len(alike), len(by_program), ", ".join(alike) or "none", WANTED))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: scripts/advise_acceptance.py FOLDER...", file=sys.stderr)
        sys.exit(2)
    missing = [f for f in sys.argv[1:] if not os.path.isdir(f)]
    if missing:
        print("advise_acceptance.py: no such folder: %s" % missing[0], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
