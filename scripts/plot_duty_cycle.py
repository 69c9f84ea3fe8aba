#!/usr/bin/env python3
"""The duty-cycle map: what MPS buys over time-slicing against how busy one process keeps the GPU.

    python3 scripts/plot_duty_cycle.py OUT_DIR [MORE_DIRS ...]

Reads every pair of results folders util-<point>/ and <point>/ under OUT_DIR and MORE_DIRS (written by
scripts/duty_cycle.sh and scripts/device_check.sh), and writes into OUT_DIR:
  duty_cycle.csv  one row per point: GPU utilisation alone, and at N=10 the per-process slowdown of each
                  mode and MPS's throughput over time-slicing (median, min, max over the paired repeats)
  duty_cycle.png / .svg  the figure
  report.md       the table, the figure and the verdict read from them
  meta.json       what made these files, from which results folders (with their git sha), on which GPU
x: NVML's GPU utilisation of one process alone (util-<point>: time-sliced, N=1, >= ~3 s).
Per-process slowdown: mean time of one process's work at N=10 over the same repeat's time-sliced N=1
(the seeds' basis; for exec and mlp's seed001 profile that work is the whole run, its completion time).
MPS / time-sliced: throughput at N=10 under MPS over time-sliced, same repeat. Seed 001's point is
drawn at its published 35% (gpustat on a P100).
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


def point(util_dir, dir_, name):
    util_rows = [r for r in read_summary(util_dir) if r["mode"] == "timeslice" and r["procs"] == "1"]
    rows = read_summary(dir_)
    if not util_rows or not rows:
        return None
    by = {(r["mode"], int(r["procs"]), int(r["repeat"])): r for r in rows}
    ts_slow, mps_slow, ratio = [], [], []
    for (mode, n, rep), r in by.items():
        if n != N:
            continue
        alone = by.get(("timeslice", 1, rep))
        if alone:
            (ts_slow if mode == "timeslice" else mps_slow if mode == "mps" else []).append(
                float(r["task_mean_ms"]) / float(alone["task_mean_ms"]))
        if mode == "mps" and ("timeslice", N, rep) in by:
            ratio.append(float(r["throughput_tasks_per_s"]) / float(by[("timeslice", N, rep)]["throughput_tasks_per_s"]))
    kind, host_us, label = describe(name, rows[0]["params"])
    return {"point": name, "kind": kind, "host_us": host_us, "label": label,
            "gpu_util_alone": statistics.median(float(r["gpu_util_mean"]) for r in util_rows),
            "ts": spread(ts_slow), "mps": spread(mps_slow), "ratio": spread(ratio), "repeats": len(ratio),
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


def crossing(points, key, level):
    """Utilisation alone where MPS / time-sliced first reaches `level` along the seed001 points
    (linear between neighbours), or None."""
    s = [p for p in points if p["kind"] == "seed001" and math.isfinite(p[key][0])]
    for a, b in zip(s, s[1:]):
        ya, yb = a[key][0], b[key][0]
        if ya < level <= yb:
            return a["gpu_util_alone"] + (level - ya) / (yb - ya) * (b["gpu_util_alone"] - a["gpu_util_alone"])
    return None


def write_csv(points):
    with open(os.path.join(OUT, "duty_cycle.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["point", "kind", "host_us", "gpu_util_alone", "procs", "timeslice_slowdown", "timeslice_slowdown_min",
                    "timeslice_slowdown_max", "mps_slowdown", "mps_slowdown_min", "mps_slowdown_max",
                    "mps_over_timeslice", "mps_over_timeslice_min", "mps_over_timeslice_max", "repeats", "folder"])
        for p in points:
            w.writerow([p["point"], p["kind"], "" if not math.isfinite(p["host_us"]) else f"{p['host_us']:g}",
                        f"{p['gpu_util_alone']:.4f}", N, *(f"{x:.4f}" for x in p["ts"]), *(f"{x:.4f}" for x in p["mps"]),
                        *(f"{x:.4f}" for x in p["ratio"]), p["repeats"], p["folder"]])


def plot(points):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    markers = {"seed001": "o", "gpu-bound": "s", "spin": "D", "exec": "^"}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12.5, 5))
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
                ax.errorbar(100 * p["gpu_util_alone"], med, yerr=[[med - lo], [hi - med]], fmt=markers.get(p["kind"], "o"),
                            color=colour, ms=6, capsize=2,
                            label=f"{name}: ours" if p is (seed[0] if seed else points[0]) else None)
    # labels of the points, once, on the left panel
    for p in points:
        if math.isfinite(p["ratio"][0]):
            short = {"seed001": f"seed001 h={p['host_us']:g}", "gpu-bound": "mlp gpu-bound", "spin": "spin",
                     "exec": "PyTorch client"}.get(p["kind"], p["point"])
            ax1.annotate(short, (100 * p["gpu_util_alone"], p["ratio"][0]), textcoords="offset points", xytext=(5, 4),
                         fontsize=7)
    ax1.plot([100 * SEED001["util"]], [SEED001["ratio"]], "*", color="black", ms=14, label="seed 001 (P100)")
    ax1.axhline(1, color="grey", ls=":", lw=1)
    ax1.set_title(f"MPS throughput over time-sliced, N={N}")
    ax1.set_ylabel("throughput ratio (1 = MPS buys nothing)")
    ax2.plot([100 * SEED001["util"]], [SEED001["ts"]], "*", color="tab:red", mec="black", ms=14,
             label="seed 001 time-sliced")
    ax2.plot([100 * SEED001["util"]], [SEED001["mps"]], "*", color="tab:blue", mec="black", ms=14, label="seed 001 MPS")
    ax2.axhline(1, color="tab:blue", ls=":", lw=1, label="ideal MPS (1x)")
    ax2.axhline(N, color="tab:red", ls=":", lw=1, label=f"N = {N} (GPU fully shared)")
    ax2.set_title(f"Per-process time at N={N} over one process time-sliced")
    ax2.set_ylabel("slowdown (x)")
    for ax in (ax1, ax2):
        ax.set_xlabel("GPU utilisation of one process alone (NVML, %)")
        ax.set_yscale("log")
        ax.set_xlim(0, 100)
        ax.grid(True, which="both", alpha=0.25)
    ax1.legend(loc="upper left", fontsize=8)
    ax2.legend(loc="upper left", fontsize=8, ncol=2)
    fig.text(0.5, 0.005, "o mlp seed001 (host work per step varied)   s mlp gpu-bound   D spin   ^ PyTorch client via exec;"
             " bars: min-max over repeats", ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(OUT, f"duty_cycle.{ext}"), dpi=110)


def write_report(points, meta):
    lines = [f"# Duty cycle: what MPS buys against how busy one process keeps the GPU ({meta})", "",
             "![duty cycle](duty_cycle.png)", "",
             f"Each point is one workload: x is NVML's GPU utilisation with one process alone (time-sliced, a run of "
             f"at least ~3 s); y is at N={N}, median over paired repeats (min-max in brackets). Per-process slowdown is "
             "one process's time for its work at N over one process alone time-sliced (the seeds' basis; for mlp "
             "seed001 and exec the work is the whole run). Ideal: MPS 1x; time-sliced between 1x and N. Seed 001's "
             "star is its published P100 figure at its published 35% (gpustat). Data: duty_cycle.csv; each point's "
             "results folders are named in it.", "",
             "| point | GPU busy alone | time-sliced slowdown | MPS slowdown | MPS / time-sliced | repeats |",
             "|---|---:|---:|---:|---:|---:|"]
    for p in points:
        cells = [f"{fmt(p[k][0])}x ({fmt(p[k][1])}-{fmt(p[k][2])})" for k in ("ts", "mps", "ratio")]
        lines.append(f"| {p['label']} | {100 * p['gpu_util_alone']:.0f}% | {' | '.join(cells)} | {p['repeats']} |")
    lines.append(f"| seed 001, P100 (published) | 35% | {SEED001['ts']:.2f}x | {SEED001['mps']:.2f}x | "
                 f"{SEED001['ratio']:.2f}x | - |")
    lines.append("")
    verdict = []
    x15 = crossing(points, "ratio", 1.5)
    if x15 is not None:
        low = [p for p in points if p["kind"] == "seed001" and p["gpu_util_alone"] < x15]
        high = [p for p in points if p["gpu_util_alone"] >= x15 and math.isfinite(p["ratio"][0])]
        best = max(high, key=lambda p: p["ratio"][0]) if high else None
        verdict.append(f"Below about {100 * x15:.0f}% GPU busy alone, MPS buys little here: at most "
                       f"{max(p['ratio'][0] for p in low):.2f}x the time-sliced throughput at N={N}"
                       if low else f"MPS reaches 1.5x the time-sliced throughput at about {100 * x15:.0f}% GPU busy alone")
        if best:
            verdict.append(f"above it the gain grows with the duty cycle, up to {best['ratio'][0]:.2f}x "
                           f"({best['label']}, {100 * best['gpu_util_alone']:.0f}% busy alone)")
    if verdict:
        lines += ["**Verdict (read from the table):** " + "; ".join(verdict) + ".", ""]
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
            "files": ["duty_cycle.csv", "duty_cycle.png", "duty_cycle.svg", "report.md"],
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
              f"  mps/ts {fmt(p['ratio'][0])}x")
    return 0


OUT = "."
if __name__ == "__main__":
    sys.exit(main())
