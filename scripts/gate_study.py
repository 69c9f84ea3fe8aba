#!/usr/bin/env python3
"""Tables of a start-gate study folder (results/2026-11-28-gate): for each sweep folder under it (one per lease,
program and --exec-gate setting), how many copies of N >= 2 ran co-run (units.csv, written by
`bench_mps predict --measure`), the gate's arrival and release spreads (meta.json's exec_gate), and per mode and N
the median unit of the co-run copies, the steps the units follow (units.csv's phase) and per run its least
coverage and its longest over shortest kept steady part (steady_s, coverage), with each core's copies' steady
parts over their runs' medians (runs.csv's core); where a folder ran several alone runs per mode (`--exec-alone-runs`), each
mode's alone units in the order they ran with their median, spread and drift, and every co-run cell's unit over
the alone median with, in brackets, over the largest and the smallest alone draw. Everything is read from the
committed files.

    python3 scripts/gate_study.py results/2026-11-28-gate      # prints the Markdown tables
    python3 scripts/gate_study.py DIR --units units-also-88079fe7.csv   # another build's units of the same runs
"""
import csv
import json
import os
import statistics
import sys

UNITS = "units.csv"  # --units NAME: another measurement of the same folders (gate.sh GATE_MEASURE_ALSO)


def folders(root):
    for dirpath, dirnames, filenames in os.walk(root):
        if "units.csv" in filenames and "meta.json" in filenames:
            yield dirpath
        dirnames.sort()


def cells_co_run(units):
    """{(mode, procs): True where every copy of every repeat of that cell co-ran} over units.csv's rows."""
    cells = {}
    for u in units:
        cells.setdefault((u["mode"], int(u["procs"])), []).append(u["unit_basis"] in ("common window", "metric"))
    return {cell: all(v) for cell, v in cells.items()}


def coverage_row(d, root):
    units = list(csv.DictReader(open(os.path.join(d, UNITS))))
    meta = json.load(open(os.path.join(d, "meta.json")))
    gate = meta.get("exec_gate") or {}
    asked = gate.get("asked", "off")
    many = [u for u in units if int(u["procs"]) >= 2]
    co = sum(u["unit_basis"] in ("common window", "metric") for u in many)
    runs = [r for r in gate.get("runs", []) if r["copies"] > 1]
    points = sorted({r["point"] for r in runs}) or ["-"]
    arrive = [r["arrival_spread_s"] for r in runs if r.get("arrival_spread_s") is not None]
    release = [r["release_spread_s"] for r in runs if r.get("release_spread_s") is not None]
    rng = lambda v, f: f"{f(min(v))}-{f(max(v))}" if v else "-"
    cells = cells_co_run(many)
    co_cells = sum(cells.values())
    return (f"| {os.path.relpath(d, root)} | {asked} | {', '.join(points)} | {co}/{len(many)} | {co_cells}/{len(cells)} | "
            f"{rng(arrive, lambda x: f'{x:.3f}')} | {rng(release, lambda x: f'{x * 1e3:.2f}')} |")


def unit_rows(d, root):
    cells = {}
    for u in csv.DictReader(open(os.path.join(d, UNITS))):
        cells.setdefault((u["mode"], int(u["procs"])), []).append(u)
    out = []
    for (mode, n), us in sorted(cells.items()):
        vals = [float(u["unit_ms"]) for u in us if u["unit_ms"]]
        co = sum(u["unit_basis"] in ("common window", "metric") for u in us)
        med = f"{statistics.median(vals):.4g}" if vals else "-"
        out.append(f"| {os.path.relpath(d, root)} | {mode} | {n} | {co}/{len(us)} | {med} | {phase_cell(us)} | "
                   f"{parting_cell(us)} |")
    return out


def run_parting(us):
    """Per run of these units.csv rows, in run order (its steady_s and coverage; none for a units.csv written before
    the columns or a run of one copy): (the least coverage of a copy's steady part by the common window, its longest
    steady part over its shortest, None where the shortest is 0). Copies released together part by their rates."""
    runs = {}
    for u in us:
        if u.get("coverage") and u.get("steady_s"):
            runs.setdefault(u["run_id"], []).append((float(u["coverage"]), float(u["steady_s"])))
    out = []
    for _, v in sorted(runs.items()):
        if len(v) < 2:
            continue
        longest, shortest = max(x for _, x in v), min(x for _, x in v)
        out.append((min(c for c, _ in v), longest / shortest if shortest > 0 else None))
    return out


def parting_cell(us):
    """Per run of the cell: run_parting's least coverage and longest over shortest steady part; '-' for none."""
    return "; ".join(f"{least * 100:.0f} %, " + (f"{ratio:.2f}x" if ratio is not None else "-")
                     for least, ratio in run_parting(us)) or "-"


def phase_cell(us):
    """Which steps the copies' units followed (units.csv's phase, docs/PREDICT.md "One kind of step"): how many
    copies kept the whole steady part, left out a head, a tail; '-' for a units.csv written before the column."""
    phases = [u.get("phase") or "" for u in us if u.get("phase")]
    if not phases:
        return "-"
    whole = sum(p == "whole steady part" for p in phases)
    head = sum("a head" in p for p in phases)
    tail = sum("a tail" in p for p in phases)
    parts = [f"whole {whole}"] if whole else []
    parts += [f"head out {head}"] if head else []
    parts += [f"tail out {tail}"] if tail else []
    return ", ".join(parts) + f" of {len(us)}"


def core_row(d, root):
    """Each core's copies at N >= 4: their kept steady part (units.csv steady_s) over their run's median, averaged
    (runs.csv's core fact): a core that slows what runs on it shows above 1. None without steady_s or cores."""
    cores = {}
    for r in csv.DictReader(open(os.path.join(d, "runs.csv"))):
        facts = dict(x.split("=", 1) for x in (r.get("facts") or "").split(";") if "=" in x)
        cores[(r["run_id"], r["worker"])] = facts.get("core")
    runs = {}
    for u in csv.DictReader(open(os.path.join(d, UNITS))):
        core = cores.get((u["run_id"], u["worker"]))
        if int(u["procs"]) >= 4 and u.get("steady_s") and core is not None:
            runs.setdefault(u["run_id"], []).append((core, float(u["steady_s"])))
    by_core = {}
    for copies in runs.values():
        med = statistics.median(x for _, x in copies)
        for core, x in copies:
            by_core.setdefault(int(core), []).append(x / med)
    if not by_core:
        return None
    cells = ", ".join(f"{c}: {statistics.mean(v):.2f}" for c, v in sorted(by_core.items()))
    return f"| {os.path.relpath(d, root)} | {cells} |"


def step_ms(d):
    for r in csv.DictReader(open(os.path.join(d, "runs.csv"))):
        facts = dict(kv.split("=", 1) for kv in r["facts"].split(";") if "=" in kv)
        return float(facts["step_mean_ms"]) if "step_mean_ms" in facts else None


def cost_rows(root):
    """gatecost/<program>/<gate>-<i>: one copy alone, the program's own mean step, steady against off per pair."""
    base = os.path.join(root, "lease-3", "gatecost")
    if not os.path.isdir(base):
        return []
    out = []
    for prog in sorted(os.listdir(base)):
        pairs = sorted({name.split("-")[1] for name in os.listdir(os.path.join(base, prog))})
        on = [step_ms(os.path.join(base, prog, "steady-" + i)) for i in pairs]
        off = [step_ms(os.path.join(base, prog, "off-" + i)) for i in pairs]
        ratios = [a / b for a, b in zip(on, off)]
        out.append(f"| {prog} | {', '.join(f'{v:.4g}' for v in on)} | {', '.join(f'{v:.4g}' for v in off)} | "
                   f"{statistics.median(on) / statistics.median(off):.3f}x | "
                   f"{min(ratios):.3f}x-{max(ratios):.3f}x |")
    return out


def repeat_rows(d, root):
    """Cells with two repeats or more, both co-run: each repeat's mean unit over its copies, and how far apart."""
    runs = {}
    for u in csv.DictReader(open(os.path.join(d, UNITS))):
        runs.setdefault((u["mode"], int(u["procs"]), int(u["repeat"])), []).append(u)
    cells = {}
    for (mode, n, rep), us in runs.items():
        co = all(u["unit_basis"] in ("common window", "metric") for u in us)
        mean = statistics.mean(float(u["unit_ms"]) for u in us) if co else None
        cells.setdefault((mode, n), []).append(mean)
    out, diffs = [], []
    for (mode, n), means in sorted(cells.items()):
        if len(means) < 2 or n < 2:
            continue
        if any(m is None for m in means):
            out.append(f"| {os.path.relpath(d, root)} | {mode} | {n} | not co-run in every repeat | - |")
            continue
        diff = 100 * (max(means) / min(means) - 1)
        diffs.append(diff)
        out.append(f"| {os.path.relpath(d, root)} | {mode} | {n} | {', '.join(f'{m:.4g}' for m in means)} | "
                   f"{diff:.1f} % |")
    return out, diffs


def run_order(d):
    """{run_id: position} in the order the runs ran (runs.csv holds them so)."""
    order = {}
    for r in csv.DictReader(open(os.path.join(d, "runs.csv"))):
        order.setdefault(r["run_id"], len(order))
    return order


def alone_draws(d):
    """{mode: [unit of each alone run, in run order]} (each run's mean over its copies; co-run or not, N=1)."""
    order = run_order(d)
    runs = {}
    for u in csv.DictReader(open(os.path.join(d, UNITS))):
        if int(u["procs"]) == 1 and u["unit_ms"]:
            runs.setdefault((u["mode"], u["run_id"]), []).append(float(u["unit_ms"]))
    draws = {}
    for (mode, run_id), us in sorted(runs.items(), key=lambda kv: order.get(kv[0][1], 1 << 30)):
        draws.setdefault(mode, []).append(statistics.mean(us))
    return draws


def over_anchor(value, draws):
    """"1.62x (1.41-1.88)": value over the draws' median, and over their largest and smallest."""
    med = statistics.median(draws)
    if len(draws) < 2:
        return f"{value / med:.2f}x"
    return f"{value / med:.2f}x ({value / max(draws):.2f}-{value / min(draws):.2f})"


def alone_rows(d, root):
    """Per mode: the alone draws in run order, their median, spread (+- half the range over the median), drift."""
    out = []
    for mode, draws in sorted(alone_draws(d).items()):
        med = statistics.median(draws)
        half = 100 * (max(draws) - min(draws)) / 2 / med
        drift = f"{draws[-1] / draws[0]:.2f}x" if len(draws) > 1 else "-"
        out.append(f"| {os.path.relpath(d, root)} | {mode} | {len(draws)} | {', '.join(f'{v:.4g}' for v in draws)} | "
                   f"{med:.4g} | {min(draws):.4g}-{max(draws):.4g} (+-{half:.0f} %) | {drift} |")
    return out


def ratio_rows(d, root):
    """Each co-run cell at N >= 2: its copies' median unit over the alone runs of its mode and of time-slicing, and
    the throughput of all copies together over the common window (each run's sum over its copies of 1000 / unit:
    steps per second; the median over the cell's runs) in copies alone (time-sliced), the interval over the
    alone draws as for the unit."""
    draws = alone_draws(d)
    cells, runs = {}, {}
    for u in csv.DictReader(open(os.path.join(d, UNITS))):
        if int(u["procs"]) >= 2:
            cells.setdefault((u["mode"], int(u["procs"])), []).append(u)
            runs.setdefault((u["mode"], int(u["procs"]), u["run_id"]), []).append(u)
    out = []
    for (mode, n), us in sorted(cells.items()):
        if not all(u["unit_basis"] in ("common window", "metric") for u in us):
            out.append(f"| {os.path.relpath(d, root)} | {mode} | {n} | not co-run | - | - | - | - |")
            continue
        med = statistics.median(float(u["unit_ms"]) for u in us)
        same = over_anchor(med, draws[mode]) if draws.get(mode) else "-"
        ts = over_anchor(med, draws["timeslice"]) if draws.get("timeslice") else "-"
        rates = [sum(1000 / float(u["unit_ms"]) for u in r) for (m, k, _), r in runs.items() if (m, k) == (mode, n)]
        rate = statistics.median(rates)
        alone = draws.get("timeslice")
        # copies alone: the rate over one copy's (1000 / its unit); the largest draw gives the highest ratio
        together = (f"{rate * statistics.median(alone) / 1000:.2f} ({rate * min(alone) / 1000:.2f}-"
                    f"{rate * max(alone) / 1000:.2f})" if alone else "-")
        out.append(f"| {os.path.relpath(d, root)} | {mode} | {n} | {med:.4g} | {same} | {ts} | {rate:.4g} | "
                   f"{together} |")
    return out


def print_table(header, rule, rows):
    """A blank line, then a Markdown table: its header row, its rule row, its rows."""
    print()
    print(header)
    print(rule)
    for r in rows:
        print(r)


def main():
    global UNITS
    args = sys.argv[1:]
    if len(args) == 3 and args[1] == "--units":
        UNITS = args[2]
    elif len(args) != 1:
        print("gate_study.py: usage: gate_study.py FOLDER [--units NAME]", file=sys.stderr)
        sys.exit(2)
    root = args[0]
    lacking = [d for d in folders(root) if "gatecost" not in d and not os.path.isfile(os.path.join(d, UNITS))]
    if lacking:
        print(f"gate_study.py: {lacking[0]} has no {UNITS}", file=sys.stderr)
        sys.exit(2)
    ds = [d for d in folders(root) if "gatecost" not in d]
    print("| folder | --exec-gate | point | copies co-run (N >= 2) | cells co-run | arrivals spread s | "
          "releases spread ms |")
    print("|---|---|---|---:|---:|---:|---:|")
    for d in ds:
        print(coverage_row(d, root))
    print_table("| folder | mode | N | copies co-run | unit median ms (co-run copies) | steps the unit follows | "
                "per run: least coverage, longest over shortest steady part |", "|---|---|---:|---:|---:|---|---|",
                [r for d in ds for r in unit_rows(d, root)])
    rows, diffs = [], []
    for d in ds:
        r, x = repeat_rows(d, root)
        rows += r
        diffs += x
    if rows:
        print_table("| folder | mode | N | each repeat's mean unit, ms | apart (larger over smaller) |",
                    "|---|---|---:|---|---:|", rows)
        print()
        print(f"Repeats of a co-run cell: {len(diffs)} cells, median {statistics.median(diffs):.1f} % apart, "
              f"largest {max(diffs):.1f} %.")
    with_draws = [d for d in ds if any(len(v) > 1 for v in alone_draws(d).values())]
    if with_draws:
        print_table("| folder | mode | alone runs | unit ms, in run order | median | spread | last / first |",
                    "|---|---|---:|---|---:|---|---:|", [r for d in with_draws for r in alone_rows(d, root)])
        print_table("| folder | mode | N | unit median ms (co-run) | x alone, same mode (over largest-smallest draw) | "
                    "x alone time-sliced (likewise) | steps/s, all copies | in copies alone, time-sliced "
                    "(smallest-largest draw) |", "|---|---|---:|---:|---|---|---:|---|",
                    [r for d in with_draws for r in ratio_rows(d, root)])
    by_core = [r for r in (core_row(d, root) for d in ds) if r]
    if by_core:
        print_table("| folder | per core (N >= 4): mean of a copy's kept steady part over its run's median |",
                    "|---|---|", by_core)
    cost = cost_rows(root)
    if cost:
        print_table("| program | step ms, gate steady (pairs 1-3) | step ms, gate off | median on / median off | per pair |",
                    "|---|---|---|---:|---:|", cost)


if __name__ == "__main__":
    main()
