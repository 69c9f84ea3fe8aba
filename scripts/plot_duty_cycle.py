#!/usr/bin/env python3
"""The duty-cycle map: what MPS buys over time-slicing against how busy one process keeps the GPU.

    python3 scripts/plot_duty_cycle.py OUT_DIR [MORE_DIRS ...]

Reads every pair of results folders util-<point>/ and <point>/ under OUT_DIR and MORE_DIRS (written by
scripts/duty_cycle.sh and scripts/device_check.sh), and writes into OUT_DIR:
  duty_cycle.csv  one row per point: GPU utilisation alone, and at N=10 the per-process slowdown of each
                  mode and MPS's throughput over time-slicing (median, min, max over the paired repeats)
  duty_cycle.png  the figure
  report.md       the table, the figure and the verdict read from them
  meta.json       what made these files, from which results folders (with their git sha), on which GPU
x: NVML's GPU utilisation of one process alone (util-<point>: time-sliced, N=1, >= ~3 s).
Slowdown at N=10 over the same repeat's one process alone, time-sliced, on the seeds' basis where the
point allows it: the completion of all N (the run's makespan: seed 001 timed ten copies until all had
finished) where every process did a fixed amount of work (N x the tasks of the run alone); per-task time
where the work was a fixed duration instead (mlp gpu-bound), named so in the table's basis column. The
mean time of one process's work (each copy's own time, averaged) is kept beside it in duty_cycle.csv.
MPS / time-sliced: the two slowdowns' ratio, the figures beside it (min-max over the paired repeats in
brackets). Seed 001's point is drawn at its published 35% (gpustat on a P100).
"""
import csv
import math
import os
import re
import statistics
import sys

N = 10
SEED001 = {"util": 0.35, "ts": 221 / 80, "mps": 124 / 80, "ratio": 221 / 124}  # results/seeds.csv, P100


def read_summary(folder):
    with open(os.path.join(folder, "summary.csv"), newline="") as f:
        return [r for r in csv.DictReader(f) if r["status"] == "ok"]


def spread(values):
    v = [x for x in values if math.isfinite(x)]
    if not v:
        return (math.nan, math.nan, math.nan)
    return (statistics.median(v), min(v), max(v))


def describe(name, params):
    m = re.match(r"seed001-h(\d+)$", name)
    if m:
        return "seed001", float(m.group(1)), f"mlp seed001, host {m.group(1)} us/step"
    if name == "seed001":
        h = re.search(r"host_us=([0-9.]+)", params)
        return "seed001", float(h.group(1)) if h else math.nan, f"mlp seed001 default, host {h.group(1) if h else '?'} us/step"
    if name == "gpubound":
        return "gpu-bound", math.nan, "mlp gpu-bound (one CUDA graph per step)"
    if name == "spin":
        return "spin", math.nan, "spin (seed 000's busy kernel, 4 blocks)"
    if name == "exec":
        return "exec", math.nan, "PyTorch MNIST client (exec)"
    return name, math.nan, name


BASIS_COMPLETION = "completion of all N"
BASIS_TASK = "per task (fixed duration)"


def fixed_work(run, alone):
    """Whether each of the run's processes did the work of the run alone (fixed tasks, not a fixed time)."""
    return int(run["tasks_total"]) == int(run["procs"]) * int(alone["tasks_total"])


def point(util_dir, dir_, name):
    util_rows = [r for r in read_summary(util_dir) if r["mode"] == "timeslice" and r["procs"] == "1"]
    rows = read_summary(dir_)
    if not util_rows or not rows:
        return None
    by = {(r["mode"], int(r["procs"]), int(r["repeat"])): r for r in rows}
    pairs = []  # per repeat with both modes at N and time-sliced alone: (alone, time-sliced N, MPS N)
    for (mode, n, rep), r in sorted(by.items()):
        if mode == "timeslice" and n == N and ("timeslice", 1, rep) in by and ("mps", N, rep) in by:
            pairs.append((by[("timeslice", 1, rep)], r, by[("mps", N, rep)]))
    if not pairs:
        return None
    completion = all(fixed_work(ts, alone) and fixed_work(mps, alone) for alone, ts, mps in pairs)
    column = "makespan_s" if completion else "task_mean_ms"
    ts_slow = [float(ts[column]) / float(alone[column]) for alone, ts, _ in pairs]
    mps_slow = [float(mps[column]) / float(alone[column]) for alone, _, mps in pairs]
    copy_ts = [float(ts["task_mean_ms"]) / float(alone["task_mean_ms"]) for alone, ts, _ in pairs]
    copy_mps = [float(mps["task_mean_ms"]) / float(alone["task_mean_ms"]) for alone, _, mps in pairs]
    per_repeat = [a / b for a, b in zip(ts_slow, mps_slow)]
    ts, mps = spread(ts_slow), spread(mps_slow)
    kind, host_us, label = describe(name, rows[0]["params"])
    return {"point": name, "kind": kind, "host_us": host_us, "label": label,
            "gpu_util_alone": statistics.median(float(r["gpu_util_mean"]) for r in util_rows),
            "basis": BASIS_COMPLETION if completion else BASIS_TASK, "ts": ts, "mps": mps,
            # the ratio of the two medians beside it; its range over the paired repeats
            "ratio": (ts[0] / mps[0], min(per_repeat), max(per_repeat)),
            "copy_ts": spread(copy_ts), "copy_mps": spread(copy_mps), "repeats": len(pairs),
            "folder": os.path.relpath(dir_, OUT), "path": dir_}


def collect(dirs):
    points = []
    for d in dirs:
        for entry in sorted(os.listdir(d)):
            if entry.startswith("util-") and os.path.isfile(os.path.join(d, entry[5:], "summary.csv")):
                p = point(os.path.join(d, entry), os.path.join(d, entry[5:]), entry[5:])
                if p:
                    points.append(p)
    return sorted(points, key=lambda p: p["gpu_util_alone"])


def fmt(x, digits=2):
    return "-" if not math.isfinite(x) else f"{x:.{digits}f}"


def crossing(rows, level):
    """Utilisation alone where MPS / time-sliced first reaches `level` along the seed001 rows
    (linear between neighbours), or None."""
    s = sorted((r for r in rows if r["seed001"] and math.isfinite(r["ratio"][0])), key=lambda r: r["busy"])
    for a, b in zip(s, s[1:]):
        ya, yb = a["ratio"][0], b["ratio"][0]
        if ya < level <= yb:
            return a["busy"] + (level - ya) / (yb - ya) * (b["busy"] - a["busy"])
    return None


def write_csv(points):
    with open(os.path.join(OUT, "duty_cycle.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["point", "kind", "host_us", "gpu_util_alone", "procs", "basis", "timeslice_slowdown",
                    "timeslice_slowdown_min", "timeslice_slowdown_max", "mps_slowdown", "mps_slowdown_min",
                    "mps_slowdown_max", "mps_over_timeslice", "mps_over_timeslice_min", "mps_over_timeslice_max",
                    "timeslice_copy_mean_slowdown", "mps_copy_mean_slowdown", "repeats", "folder"])
        for p in points:
            w.writerow([p["point"], p["kind"], "" if not math.isfinite(p["host_us"]) else f"{p['host_us']:g}",
                        f"{p['gpu_util_alone']:.4f}", N, p["basis"], *(f"{x:.4f}" for x in p["ts"]),
                        *(f"{x:.4f}" for x in p["mps"]), *(f"{x:.4f}" for x in p["ratio"]),
                        f"{p['copy_ts'][0]:.4f}", f"{p['copy_mps'][0]:.4f}", p["repeats"], p["folder"]])


def log_ticks(ax):
    """Plain-number ticks at 1, 2, 5 x 10^k on a log y axis: at least three in any range wider than ~2.5x."""
    from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    formatter = ScalarFormatter()
    formatter.set_scientific(False)
    ax.yaxis.set_major_formatter(formatter)
    ax.yaxis.set_minor_formatter(NullFormatter())


def short_label(p):
    return {"seed001": f"seed001 h={p['host_us']:g}", "gpu-bound": "mlp gpu-bound", "spin": "spin",
            "exec": "PyTorch client"}.get(p["kind"], p["point"])


def plot(points):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from plot_layout import fit_titles, place_labels

    markers = {"seed001": "o", "gpu-bound": "s", "spin": "D", "exec": "^"}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12.5, 5.4))
    seed = [p for p in points if p["kind"] == "seed001"]
    for ax, keys in ((ax1, [("ratio", "MPS / time-sliced", "tab:green")]),
                     (ax2, [("ts", "time-sliced", "tab:red"), ("mps", "MPS", "tab:blue")])):
        for key, name, colour in keys:
            if seed:
                ax.plot([100 * p["gpu_util_alone"] for p in seed], [p[key][0] for p in seed], "-", color=colour,
                        alpha=0.5, lw=1)
            for p in points:
                med, lo, hi = p[key]
                if not math.isfinite(med):
                    continue
                ax.errorbar(100 * p["gpu_util_alone"], med, yerr=[[max(0, med - lo)], [max(0, hi - med)]],
                            fmt=markers.get(p["kind"], "o"), color=colour, ms=6, capsize=2,
                            label=f"{name}: ours" if p is (seed[0] if seed else points[0]) else None)
    ax1.plot([100 * SEED001["util"]], [SEED001["ratio"]], "*", color="black", ms=14, label="seed 001 (P100)")
    ax1.axhline(1, color="grey", ls=":", lw=1)
    ax1.set_title(f"MPS throughput over time-sliced, N={N}")
    ax1.set_ylabel("time-sliced slowdown / MPS slowdown (1 = MPS buys nothing)")
    ax2.plot([100 * SEED001["util"]], [SEED001["ts"]], "*", color="tab:red", mec="black", ms=14,
             label="seed 001 time-sliced")
    ax2.plot([100 * SEED001["util"]], [SEED001["mps"]], "*", color="tab:blue", mec="black", ms=14, label="seed 001 MPS")
    ax2.axhline(1, color="tab:blue", ls=":", lw=1, label="ideal MPS (1x)")
    ax2.axhline(N, color="tab:red", ls=":", lw=1, label=f"N = {N} (GPU fully shared)")
    ax2.set_title(f"Slowdown at N={N} over one process alone, time-sliced")
    ax2.set_ylabel("completion of all N (per task: gpu-bound) / alone")
    for ax in (ax1, ax2):
        ax.set_xlabel("GPU utilisation of one process alone (NVML, %)")
        ax.set_yscale("log")
        log_ticks(ax)
        ax.set_xlim(0, 100)
        ax.grid(True, which="major", alpha=0.3)
        ax.grid(True, which="minor", alpha=0.1)
    ax1.legend(loc="upper left", fontsize=8)
    ax2.legend(loc="upper left", fontsize=8, ncol=2)
    fig.text(0.5, 0.005, "o mlp seed001 (host work per step varied)   s mlp gpu-bound   D spin   ^ PyTorch client via exec;"
             " bars: min-max over repeats", ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fit_titles(fig, lambda f: f.tight_layout(rect=(0, 0.03, 1, 1)))
    # the points' names, once, on the left panel, each where it overprints no other (after the layout)
    place_labels(ax1, [(short_label(p), 100 * p["gpu_util_alone"], p["ratio"][0])
                       for p in points if math.isfinite(p["ratio"][0])])
    fig.savefig(os.path.join(OUT, "duty_cycle.png"), dpi=110)
    return fig


def table_rows(points):
    """The report's table: (label, busy alone, basis, time-sliced, MPS, MPS / time-sliced, repeats) per row, each
    value a (median, min, max) triple; the published seed 001 row last. The verdict reads these rows only."""
    rows = [{"label": p["label"], "busy": p["gpu_util_alone"], "basis": p["basis"], "ts": p["ts"], "mps": p["mps"],
             "ratio": p["ratio"], "repeats": str(p["repeats"]), "seed001": p["kind"] == "seed001"} for p in points]
    rows.append({"label": "seed 001, P100 (published)", "busy": SEED001["util"], "basis": BASIS_COMPLETION,
                 "ts": (SEED001["ts"],) * 3, "mps": (SEED001["mps"],) * 3, "ratio": (SEED001["ratio"],) * 3,
                 "repeats": "-", "seed001": False})
    return rows


def verdict(rows):
    """The verdict, computed from the table's rows: where the seed001 points cross 1.5x, the most MPS buys
    below that (every row), and the most above it."""
    x15 = crossing(rows, 1.5)
    if x15 is None:
        return ""
    measured = [r for r in rows if math.isfinite(r["ratio"][0])]
    low = [r for r in measured if r["busy"] < x15]
    high = [r for r in measured if r["busy"] >= x15]
    parts = []
    if low:
        top = max(low, key=lambda r: r["ratio"][0])
        parts.append(f"Below about {100 * x15:.0f}% GPU busy alone (where the seed001 points cross 1.5x), MPS buys "
                     f"little here: at most {fmt(top['ratio'][0])}x the time-sliced throughput at N={N} "
                     f"({top['label']}, {100 * top['busy']:.0f}% busy alone)")
    else:
        parts.append(f"MPS reaches 1.5x the time-sliced throughput at about {100 * x15:.0f}% GPU busy alone")
    if high:
        best = max(high, key=lambda r: r["ratio"][0])
        parts.append(f"above it the gain grows with the duty cycle, up to {fmt(best['ratio'][0])}x "
                     f"({best['label']}, {100 * best['busy']:.0f}% busy alone)")
    return "**Verdict (read from the table):** " + "; ".join(parts) + "."


def write_report(points, meta):
    rows = table_rows(points)
    lines = [f"# Duty cycle: what MPS buys against how busy one process keeps the GPU ({meta})", "",
             "![duty cycle](duty_cycle.png)", "",
             f"Each point is one workload: x is NVML's GPU utilisation with one process alone (time-sliced, a run of "
             f"at least ~3 s); y is at N={N}, median over paired repeats (min-max in brackets). A slowdown is a time at "
             "N over the same repeat's one process alone, time-sliced, on the basis the *basis* column names: the "
             "seeds' basis, the completion of all N processes (the run's makespan: seed 001 timed ten copies until "
             "all had finished), wherever each process did a fixed amount of work; the time per task where the "
             "work was a fixed duration (mlp gpu-bound), which has no completion to time. The mean of each process's "
             "own time (not the last one's) is smaller where copies finish unevenly; duty_cycle.csv keeps it "
             "(`*_copy_mean_slowdown`). MPS / time-sliced is the ratio of the two slowdowns beside it (brackets: its "
             "range over the paired repeats). Ideal: MPS 1x; time-sliced between 1x and N. Seed 001's star is its "
             "published P100 figure at its published 35% (gpustat). Data: duty_cycle.csv; each point's results "
             "folders are named in it. The busy share comes from that separate alone run (`util-<point>/`), so it "
             "can differ by a few points from the same workload's N=1 busy share in another report (a shorter run, "
             "another day or card: e.g. spin and mlp read 99% and 94-96% in the default reference runs).", "",
             "| point | GPU busy alone | basis | time-sliced slowdown | MPS slowdown | MPS / time-sliced | repeats |",
             "|---|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        cells = [f"{fmt(r[k][0])}x" + (f" ({fmt(r[k][1])}-{fmt(r[k][2])})" if r["repeats"] != "-" else "")
                 for k in ("ts", "mps", "ratio")]
        lines.append(f"| {r['label']} | {100 * r['busy']:.0f}% | {r['basis']} | {' | '.join(cells)} | {r['repeats']} |")
    lines.append("")
    text = verdict(rows)
    if text:
        lines += [text, ""]
    with open(os.path.join(OUT, "report.md"), "w") as f:
        f.write("\n".join(lines))


def write_meta(points):
    """meta.json of the derived files: what made them, from which results folders, on which GPU."""
    import datetime
    import json
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    git = subprocess.run(["git", "-C", here, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    with open(os.path.join(points[0]["path"], "meta.json")) as f:
        first = json.load(f)
    sources = []
    for p in points:
        for folder in (p["path"], os.path.join(os.path.dirname(p["path"]), "util-" + p["point"])):
            with open(os.path.join(folder, "meta.json")) as f:
                m = json.load(f)
            sources.append({"folder": os.path.relpath(folder, OUT), "git_sha": m.get("tool", {}).get("git_sha"),
                            "git_dirty": m.get("tool", {}).get("git_dirty"), "started_utc": m.get("started_utc"),
                            "gpu_uuid": (m.get("gpu") or {}).get("uuid")})
    meta = {"what": "duty-cycle map derived from the results folders in `sources` by scripts/plot_duty_cycle.py",
            "files": ["duty_cycle.csv", "duty_cycle.png", "report.md"],
            "command": ["python3", "scripts/plot_duty_cycle.py"] + sys.argv[1:],
            "generated_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "generator_git_sha": git or None, "procs": N, "gpu": first.get("gpu"), "host": first.get("host"),
            "sources": sources}
    with open(os.path.join(OUT, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


def main():
    global OUT
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    OUT = sys.argv[1]
    points = collect(sys.argv[1:])
    if not points:
        print(f"plot_duty_cycle.py: no util-<point>/<point> folder pairs under {' '.join(sys.argv[1:])}", file=sys.stderr)
        return 2
    import json
    meta = "unknown GPU"
    meta_path = os.path.join(points[0]["path"], "meta.json")
    if os.path.isfile(meta_path):
        with open(meta_path) as f:
            gpu = json.load(f).get("gpu") or {}
        meta = f"{gpu.get('name', '?')}, driver {gpu.get('driver_version', '?')}"
    write_csv(points)
    plot(points)
    write_report(points, meta)
    write_meta(points)
    for p in points:
        print(f"{p['label']:<45} busy {100 * p['gpu_util_alone']:5.1f}%  ts {fmt(p['ts'][0])}x  mps {fmt(p['mps'][0])}x"
              f"  mps/ts {fmt(p['ratio'][0])}x  ({p['basis']})")
    return 0


OUT = "."
if __name__ == "__main__":
    sys.exit(main())
