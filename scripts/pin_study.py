#!/usr/bin/env python3
"""The host-placement table (issue 42 item 6) of a `pin` device step's program folder (runs/pin/<name>/, holding
pinned/, unpinned/ and cores<K>/ (--cores-per-worker K) sweeps, each measured by `bench_mps predict --measure`): per placement, mode and N, the copies'
arrival at the start gate (seconds from launch to the steady part: start-up and warm-up), their completion (whole
run, gate time left out), the per-step unit of units.csv (median over copies) and how many copies were co-run.
Everything is read from the committed files.

    python3 scripts/pin_study.py results/<folder>/pin/mnist     # prints the Markdown table
"""
import csv
import os
import statistics
import sys


def facts_of(row):
    return dict(kv.split("=", 1) for kv in row["facts"].split(";") if "=" in kv)


def span(values, fmt):
    if not values:
        return "-"
    med = statistics.median(values)
    return f"{fmt(med)} ({fmt(min(values))}-{fmt(max(values))})"


def placements(root):
    """pinned, unpinned, then cores<K> by K: the folders a pin step wrote."""
    cores = sorted((n for n in os.listdir(root) if n.startswith("cores") and n[5:].isdigit()), key=lambda n: int(n[5:]))
    return ["pinned", "unpinned"] + cores


def rows(root):
    yield "| placement | mode | N | arrival at the gate, s | completion, s | unit, ms | co-run | cores |"
    yield "|---|---|---:|---|---|---|---|---|"
    for placement in placements(root):
        d = os.path.join(root, placement)
        if not os.path.isfile(os.path.join(d, "runs.csv")):
            continue
        units = {}
        if os.path.isfile(os.path.join(d, "units.csv")):
            for u in csv.DictReader(open(os.path.join(d, "units.csv"))):
                units[(u["run_id"], u["worker"])] = u
        cells = {}
        for r in csv.DictReader(open(os.path.join(d, "runs.csv"))):
            if r["workload"] != "exec" or r["role"] not in ("", "worker"):
                continue
            cells.setdefault((r["mode"], int(r["procs"])), []).append(r)
        for (mode, n), rs in sorted(cells.items()):
            f = [facts_of(r) for r in rs]
            arrive = [float(x["gate_arrive_s"]) for x in f if "gate_arrive_s" in x]
            done = [float(x["completion_s"]) for x in f if "completion_s" in x]
            us = [units.get((r["run_id"], r["worker"])) for r in rs]
            vals = [float(u["unit_ms"]) for u in us if u and u["unit_ms"]]
            co = sum(1 for u in us if u and u["unit_basis"] in ("common window", "metric"))
            cores = sorted({x.get("core", "-") + (f" (x{x['cores']})" if "cores" in x else "") for x in f})
            ok = sum(r["status"] == "ok" for r in rs)
            yield (f"| {placement} | {mode} | {n} | {span(arrive, lambda v: f'{v:.2f}')} | "
                   f"{span(done, lambda v: f'{v:.2f}')} | {span(vals, lambda v: f'{v:.4g}')} | {co}/{len(rs)}"
                   f"{'' if ok == len(rs) else f' ({len(rs) - ok} not ok)'} | {','.join(cores)} |")


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: pin_study.py FOLDER (a pin step's runs/pin/<name>)", file=sys.stderr)
        return 2
    for line in rows(argv[1]):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
