#!/usr/bin/env python3
"""Writes DIR/INDEX.md: every advice of an advise folder of several leases (DIR/<lease>/<program>/advice.json)
in one table, and a first line that says whether each program run on two or more leases got the same verdict.

    python3 scripts/advise_index.py results/2026-11-27-advise-intervals

Nothing in INDEX.md is typed by hand: each cell comes from an advice.json (`bench_mps advise --redo` writes
those again from their sweeps); README.md quotes INDEX.md's table and first line (scripts/update_readme.py).
"""
import json
import os
import sys


def interval(r):
    if not r or r.get("ratio") is None:
        return "-"
    if r.get("lo") is None or r.get("hi") is None:
        return "%.2fx (no interval)" % r["ratio"]
    return "%.2fx (%.2f-%.2f)" % (r["ratio"], r["lo"], r["hi"])


def best_sets(advice, mode):
    """Worker sets of the best ok cell of `mode` on the deciding basis."""
    key = "throughput" if advice["decision"]["basis"] == "unit" else "throughput_run"
    cells = [c for c in advice["ladder"] if c["mode"] == mode and c["ok"] and c.get(key) is not None]
    return len(max(cells, key=lambda c: c[key])["sets"]) if cells else 0


def main(folder):
    rows, verdicts = [], {}
    for lease in sorted(os.listdir(folder)):
        lease_dir = os.path.join(folder, lease)
        if not os.path.isdir(lease_dir):
            continue
        for program in sorted(os.listdir(lease_dir)):
            path = os.path.join(lease_dir, program, "advice.json")
            if not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8") as f:
                a = json.load(f)
            d, r = a["decision"], a["recommendation"]
            verdict = r["verdict"] + (" N=%d" % r["procs"] if r["procs"] else "")
            verdicts.setdefault(program, []).append(r["verdict"])
            alone = a["alone"]
            rows.append("| %s | %s | %s | %s | %s | %s | %d / %d | %s | %s |" % (
                lease, "[%s](%s/%s/advice.md)" % (program, lease, program), verdict, d["basis"],
                interval(d["mps_over_timeslice"]), interval(d.get("mps_unit_speedup")), best_sets(a, "mps"),
                best_sets(a, "timeslice"),
                "-" if alone.get("run_s") is None else "%.3g" % alone["run_s"],
                "-" if alone.get("startup_s") is None else "%.3g" % alone["startup_s"]))
    twice = {p: v for p, v in verdicts.items() if len(v) > 1}
    same = sorted(p for p, v in twice.items() if len(set(v)) == 1)
    differ = sorted(p for p, v in twice.items() if len(set(v)) > 1)
    once = sorted(p for p, v in verdicts.items() if len(v) == 1)
    head = "%d advice runs of %d programs: of the %d run on two leases or more, %s got the same verdict on each%s; %s ran on one lease." % (
        len(rows), len(verdicts), len(twice), ", ".join("%s (%s)" % (p, twice[p][0]) for p in same) or "none",
        (", %s did not" % ", ".join(differ)) if differ else "", ", ".join(once) or "none")
    text = head + "\n\n# Advice with intervals, lease by lease\n\nWritten by `python3 scripts/advise_index.py %s` from each " \
        "folder's advice.json.\nThe verdict is decided on the basis named (docs/ADVISE.md \"Two bases\"); MPS over time-sliced " \
        "is the best MPS cell's throughput over the best time-sliced cell's on that basis, with its ~94 %% interval over their " \
        "worker sets; each unit under MPS is the time-sliced unit time over MPS's at the time-sliced knee, where the " \
        "two modes' units per second tie (a paced program: docs/ADVISE.md); a run alone and its start-up are one copy's, " \
        "in seconds.\n\n## Every lease\n" \
        "| lease | program | verdict | basis | MPS over time-sliced | each unit under MPS | worker sets (MPS / time-sliced) | " \
        "a run alone, s | its start-up, s |\n|---|---|---|---|---:|---:|---:|---:|---:|\n" % folder.rstrip("/") + "\n".join(rows) + "\n"
    with open(os.path.join(folder, "INDEX.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(head)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: scripts/advise_index.py DIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
