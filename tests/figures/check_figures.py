#!/usr/bin/env python3
"""Checks what the figures show, rendered from committed data (ctest: figures_check).

    check_figures.py SOURCE_DIR BENCH_MPS

- every figure of tests/figures/fixtures/*.json: each title, label and legend entry inside the canvas;
- long workload labels (a user's command): wrapped, and every axes keeps its room;
- relative task time: a time-sliced line on the very same values as the MPS line still shows; seeds that
  timed the completion of all N are marked so on this per-task axis;
- comparison charts: each row's noise drawn, one x range for two comparisons of one day;
- interference: the background's absolute tasks/s (alone and beside), not only the share kept;
- the duty-cycle map (results/2026-11-22-h100-80gb-hbm3-duty-cycle): labels that do not overprint, at least
  three ticks on each log axis, the slowdowns on the seeds' basis, every ratio computed from the cells beside
  it and the verdict from the table's own rows;
- the regime map (results/2026-11-26-h100-80gb-hbm3-regimes): every cell's value readable, no text over another;
- `bench_mps report` of results/.../mechanisms/memlimit (no run ok): no figure without data of its own, and
  the plot data of real folders carrying the seeds' metric, each comparison row's noise and the background rates;
- `bench_mps history` of the committed H100 default sweeps: a figure per workload, texts inside the canvas, a
  point per folder on every line;
- no report staging folder can be committed.
Exit 0 when all hold, 1 with one line per failure, 77 (skipped) where no Python has matplotlib.
"""
import csv
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

SYSTEM_PYTHON = "/usr/bin/python3"
try:
    import matplotlib
except ImportError:  # the report's own choice of Python (report_plotter: /usr/bin/python3 first)
    if sys.executable != SYSTEM_PYTHON and os.path.exists(SYSTEM_PYTHON):
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    print("check_figures.py: no Python with matplotlib: skipped")
    sys.exit(77)
matplotlib.use("Agg")
import numpy as np  # noqa: E402  (matplotlib's own dependency)
from matplotlib.text import Text  # noqa: E402

SOURCE, BENCH = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
import plot_duty_cycle  # noqa: E402
import plot_layout  # noqa: E402
import plot_report  # noqa: E402

FIXTURES = os.path.join(SOURCE, "tests", "figures", "fixtures")
failures = []
MARK = "\u2020"  # plot_report.COMPLETION_MARK: a seed that timed the completion of all N


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def render(data, name):
    spec = next(s for s in data["figures"] if s["name"] == name)
    fig = getattr(plot_report, "finish", lambda f: f)(plot_report.DRAW[name](spec, data))
    fig.canvas.draw()
    return fig


def outside_canvas(fig):
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    return [t.get_text()[:40] for t in plot_layout.title_texts(fig)
            if (lambda e: e.x0 < -1 or e.y0 < -1 or e.x1 > box.x1 + 1 or e.y1 > box.y1 + 1)(t.get_window_extent(renderer))]


def colour_pixels(fig, hex_colour):
    rgba = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].astype(int)
    target = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(rgba - target).sum(axis=2) < 40).sum())


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def check_every_fixture_inside():
    for path in sorted(glob.glob(os.path.join(FIXTURES, "*.json"))):
        with open(path) as f:
            data = json.load(f)
        for spec in data["figures"]:
            fig = render(data, spec["name"])
            out = outside_canvas(fig)
            check(not out, "{} {}: text outside the canvas: {}".format(os.path.basename(path), spec["name"], out))
            plot_report.plt.close(fig)


def check_long_labels():
    """A user's long command as a workload label: wrapped in legends and row labels, and the data keeps its room
    (each axes at least plot_layout.MIN_AXES_INCHES across). Before, such legends ran off the canvas (tight_layout found
    no room and left the figure as it was); wrapped alone, they squeezed the distribution's axes under 3 inches."""
    for name in ("long_labels.json", "long_comparison_labels.json"):
        data = fixture(name)
        for spec in data["figures"]:
            fig = render(data, spec["name"])
            renderer = fig.canvas.get_renderer()
            narrow = [round(ax.get_window_extent(renderer).width / fig.dpi, 2) for ax in fig.axes
                      if ax.get_window_extent(renderer).width / fig.dpi < plot_layout.MIN_AXES_INCHES - 0.05]
            check(not narrow, "{} {}: axes squeezed to {} inches by long labels".format(name, spec["name"], narrow))
            plot_report.plt.close(fig)


def check_relative_task_time():
    fig = render(fixture("relative_overlap.json"), "relative_task_time")
    ax = fig.axes[0]
    legend = legend_texts(ax)
    ax.get_legend().remove()  # count the lines' own pixels, not the legend's
    fig.canvas.draw()
    red, blue = colour_pixels(fig, plot_report.MODE_COLORS["timeslice"]), colour_pixels(fig, plot_report.MODE_COLORS["mps"])
    check(red > 0.2 * blue and blue > 0.2 * red,
          "relative_task_time: coinciding lines not both visible (time-sliced {} px, MPS {} px)".format(red, blue))
    marked = [t for t in legend if "p100_qiita" in t]
    check(marked and all(MARK in t for t in marked),
          "relative_task_time: completion-time seeds unmarked in the legend: {}".format(marked))
    check(not any(MARK in t for t in legend if "v100_blog" in t),
          "relative_task_time: a per-task seed marked as completion time")
    check(any("completion of all N" in t for t in legend), "relative_task_time: the legend does not say what the mark means")
    plot_report.plt.close(fig)


def check_comparisons():
    ranges = []
    for name in ("comparison_a.json", "comparison_b.json"):
        data = fixture(name)
        fig = render(data, "comparison")
        ax = fig.axes[0]
        pairs = data["figures"][0]["pairs"]
        noise = [c for c in ax.collections if c.get_gid() == "noise"]
        check(len(noise) == sum(p["noise"] is not None for p in pairs),
              "{}: {} noise whiskers for {} rows with noise".format(name, len(noise), sum(p["noise"] is not None for p in pairs)))
        ranges.append(tuple(round(v, 6) for v in ax.get_xlim()))
        plot_report.plt.close(fig)
    check(len(set(ranges)) == 1, "comparison charts of one day: x ranges differ: {}".format(ranges))


def check_interference():
    data = fixture("interference.json")
    fig = render(data, "interference")
    ax = fig.axes[1]
    heights = sorted(round(p.get_height(), 3) for p in ax.patches)
    want = sorted(round(v, 3) for m in data["figures"][0]["groups"][0]["modes"] for v in (m["bg_per_s"], m["bg_alone_per_s"]))
    check(heights == want, "interference: background bars {} are not the absolute rates {}".format(heights, want))
    check("tasks/s" in ax.get_ylabel(), "interference: the background axis is not in tasks/s")
    plot_report.plt.close(fig)


def table(report):
    rows = []
    for line in report.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[1].endswith("%") and cells[0] != "point":
            rows.append({"label": cells[0], "busy": float(cells[1][:-1]), "basis": cells[2],
                         "ts": float(cells[3].split("x")[0]), "mps": float(cells[4].split("x")[0]),
                         "ratio": float(cells[5].split("x")[0])})
    return rows


def makespan_slowdown(folder, mode):
    with open(os.path.join(folder, "summary.csv"), newline="") as f:
        by = {(r["mode"], r["procs"], r["repeat"]): r for r in csv.DictReader(f) if r["status"] == "ok"}
    return statistics.median(float(r["makespan_s"]) / float(by[("timeslice", "1", rep)]["makespan_s"])
                             for (m, n, rep), r in by.items() if m == mode and n == "10" and ("timeslice", "1", rep) in by)


def check_duty_cycle(tmp):
    src = os.path.join(SOURCE, "results")
    for name, out in (("2026-11-22-h100-80gb-hbm3-duty-cycle", "dc"), ("2026-11-22-h100-80gb-hbm3-seed001", "s1")):
        shutil.copytree(os.path.join(src, name), os.path.join(tmp, out),
                        ignore=lambda d, files: [f for f in files if f in ("tasks.csv", "timeline.csv", "runs.csv", "plots")])
    dc, s1 = os.path.join(tmp, "dc"), os.path.join(tmp, "s1")
    plot_duty_cycle.OUT = dc
    points = plot_duty_cycle.collect([dc, s1])
    fig = plot_duty_cycle.plot(points) or plot_report.plt.gcf()  # the figure it drew
    fig.canvas.draw()  # at the figure's own dpi (its savefig drew at the PNG's)
    renderer = fig.canvas.get_renderer()
    labels = fig.axes[0].texts
    boxes = [Text.get_window_extent(t, renderer) for t in labels]  # the words, leaders aside
    check(len(labels) == len(points), "duty cycle: {} labels for {} points".format(len(labels), len(points)))
    for i, a in enumerate(boxes):
        for j in range(i):
            b = boxes[j]
            check(not (a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1),
                  "duty cycle: labels overprint: '{}' and '{}'".format(labels[i].get_text(), labels[j].get_text()))
    for ax in fig.axes:
        lo, hi = ax.get_ylim()
        ticks = [t for t in ax.get_yticks() if lo <= t <= hi]
        check(len(ticks) >= 3, "duty cycle: a log axis with {} ticks ({})".format(len(ticks), ax.get_title()))
    check(not outside_canvas(fig), "duty cycle: text outside the canvas: {}".format(outside_canvas(fig)))
    plot_duty_cycle.write_report(points, "fixture")
    with open(os.path.join(dc, "report.md")) as f:
        report = f.read()
    rows = table(report)
    check(len(rows) == len(points) + 1, "duty cycle: {} table rows for {} points and the seed".format(len(rows), len(points)))
    for r in rows:  # a ratio beside its operands is computed from them (2-decimal cells: rounding allowed)
        tol = 0.006 + r["ratio"] * (0.006 / r["ts"] + 0.006 / r["mps"])
        check(abs(r["ratio"] - r["ts"] / r["mps"]) <= tol,
              "duty cycle: {}: MPS / time-sliced {} is not {} / {}".format(r["label"], r["ratio"], r["ts"], r["mps"]))
    exec_row = next((r for r in rows if "exec" in r["label"]), {"basis": None, "ts": None})
    want = makespan_slowdown(os.path.join(s1, "exec"), "timeslice")  # one copy per process: completion of all N
    check(exec_row["basis"] == "completion of all N" and abs(exec_row["ts"] - want) < 0.006,
          "duty cycle: exec's time-sliced slowdown {} ({}) is not the completion of all N, {:.2f}".format(
              exec_row["ts"], exec_row["basis"], want))
    m = re.search(r"Below about (\d+)% GPU busy alone.*?at most ([0-9.]+)x.*?up to ([0-9.]+)x", report)
    if check(m, "duty cycle: no verdict in the report"):
        threshold, at_most, up_to = float(m.group(1)), float(m.group(2)), float(m.group(3))
        low = [r["ratio"] for r in rows if r["busy"] < threshold]
        high = [r["ratio"] for r in rows if r["busy"] > threshold + 1]
        check(low and at_most == max(low), "duty cycle: verdict says at most {}x below {}%, the table {}".format(at_most, threshold, low))
        check(high and up_to == max(high), "duty cycle: verdict says up to {}x, the table's rows above {}".format(up_to, high))
    plot_report.plt.close(fig)


def report_copy(tmp, folder, name, edit=None):
    dst = os.path.join(tmp, name)
    shutil.copytree(os.path.join(SOURCE, "results", folder), dst,
                    ignore=lambda d, files: [f for f in files if f in ("plots", "report.md") or f.startswith(".report-staging")])
    if edit:
        edit(dst)
    proc = subprocess.run([BENCH, "report", dst], capture_output=True, text=True, timeout=300)
    check(proc.returncode == 0, "bench_mps report {}: exit {}: {}".format(folder, proc.returncode, proc.stderr.strip()[-300:]))
    with open(os.path.join(dst, "plots", "plot_data.json")) as f:
        data = json.load(f)
    with open(os.path.join(dst, "report.md")) as f:
        return dst, data, f.read()


def check_reports(tmp):
    dst, data, report = report_copy(tmp, "2026-11-24-h100-80gb-hbm3-mechanisms/memlimit", "memlimit")
    check(not data["figures"], "memlimit (no run ok): figures drawn: {}".format([s["name"] for s in data["figures"]]))
    check(not os.path.exists(os.path.join(dst, "plots", "relative_task_time.png")), "memlimit: relative_task_time.png drawn")
    check("Not drawn: Per-task time over one process alone" in report, "memlimit: the report does not say why no figure")
    _, data, _ = report_copy(tmp, "2026-11-22-h100-80gb-hbm3-seed001/seed001", "seed001")
    seeds = [p for s in data["figures"] if s["name"] == "relative_task_time" for p in s["seeds"]]
    check(seeds and all("metric" in p for p in seeds), "seed001 plot data: seeds without their metric")
    _, data, _ = report_copy(tmp, "2026-11-24-compare/levers-fresh", "levers-fresh")
    pairs = data["figures"][0]["pairs"]
    check(all(isinstance(p.get("noise"), float) for p in pairs), "comparison plot data: a row without its noise")
    _, data, _ = report_copy(tmp, "2026-11-24-h100-80gb-hbm3-interference", "interference")
    modes = [m for g in data["figures"][0]["groups"] for m in g["modes"]]
    by = {m["mode"]: m for m in modes}
    check(all(m.get("bg_per_s") and m.get("bg_alone_per_s") for m in modes), "interference plot data: no background rates")
    if "timeslice" in by and "mps" in by and by["timeslice"].get("bg_alone_per_s"):
        check(by["timeslice"]["bg_alone_per_s"] < 0.6 * by["mps"]["bg_alone_per_s"],
              "interference plot data: time-sliced fillers alone are not at about half MPS's rate")


def edit_rows(folder, name, change):
    """Rewrites folder/NAME (a .csv, or its committed .csv.gz unpacked) with change(row) applied to each row; a row
    for which it returns False is dropped."""
    path = os.path.join(folder, name)
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        import gzip
        with gzip.open(path + ".gz", "rt", newline="") as g, open(path, "w", newline="") as f:
            f.write(g.read())
        os.remove(path + ".gz")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        header = list(rows[0].keys()) if rows else []
    kept = [r for r in rows if change(r) is not False]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, header, lineterminator="\n")
        w.writeheader()
        w.writerows(kept)


def check_edge_reports(tmp):
    """Data the docs call valid that once made the plotting fail (exit 1): an X-ray whose first repeat's busy runs
    at the N the timeline shows failed (no tasks), and whose time-sliced wait probe at N=10 recorded no wait."""
    xray = "2026-11-26-h100-80gb-hbm3-xray"
    failed = set()

    def edit(dst):
        def summary(r):
            if r["repeat"] == "1" and r["procs"] == "4" and r["scenario"] == "xray_busy":
                r.update(status="crashed", reason="worker 0 killed by SIGSEGV")
                failed.add(r["run_id"])
            if r["scenario"] == "xray_wait" and r["mode"] == "timeslice" and r["procs"] == "10":
                r.update(xray_wait_ms="", xray_wait_p99_ms="")
        edit_rows(dst, "summary.csv", summary)
        edit_rows(dst, "runs.csv", lambda r: r.update(status="crashed") if r["run_id"] in failed else None)
        edit_rows(dst, "tasks.csv", lambda r: r["run_id"] not in failed)
        with open(os.path.join(dst, "meta.json")) as f:
            meta = json.load(f)
        meta["runs_failed"] = meta.get("runs_failed", 0) + len(failed)
        with open(os.path.join(dst, "meta.json"), "w") as f:
            json.dump(meta, f, indent=2)

    dst, data, report = report_copy(tmp, xray, "xray-edges", edit)
    check(failed, "xray edges: no busy run of repeat 1 at N=4 to fail")
    spec = next((f for f in data["figures"] if f["name"] == "xray"), None)
    if check(spec is not None, "xray edges: no X-ray figure"):
        check(all(w["n"] != 10 or w["measured"] is None for w in spec["waits"]), "xray edges: the blank wait came back")
        check(os.path.exists(os.path.join(dst, "plots", "xray.png")), "xray edges: xray.png not drawn")


def check_regime_map():
    """The committed regime map (results/2026-11-26-h100-80gb-hbm3-regimes): every cell's value readable (two
    decimals: an MPS cell of 1.02 is not printed "1"), no text in a panel over another, all inside the canvas."""
    with open(os.path.join(SOURCE, "results", "2026-11-26-h100-80gb-hbm3-regimes", "plots", "plot_data.json")) as f:
        data = json.load(f)
    spec = next(s for s in data["figures"] if s["name"] == "regime_map")
    fig = plot_report.DRAW["regime_map"](spec, data)
    plot_report.finish(fig)  # as plot_report.save lays it out
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax, panel in zip(fig.axes, spec["panels"]):
        texts = [t for t in ax.texts if t.get_text()]
        values = sorted(t.get_text() for t in texts if re.fullmatch(r"[0-9.]+", t.get_text()))
        cells = sorted(plot_report.cell_value(c["loss"]) for c in panel["cells"] if c["loss"] is not None)
        check(all(v in values for v in cells), "regime map {}: cell values not printed as {}".format(ax.get_title(), cells[:5]))
        check(all(re.fullmatch(r"\d+\.\d+", plot_report.cell_value(c["loss"])) for c in panel["cells"] if c["loss"] is not None),
              "regime map {}: a cell printed without decimals".format(ax.get_title()))
        boxes = [(t.get_text(), Text.get_window_extent(t, renderer)) for t in texts]
        for i, (ta, a) in enumerate(boxes):
            for tb, b in boxes[:i]:
                check(not (a.x0 < b.x1 - 1 and b.x0 < a.x1 - 1 and a.y0 < b.y1 - 1 and b.y0 < a.y1 - 1),
                      "regime map {}: '{}' overprints '{}'".format(ax.get_title(), ta, tb))
    check(not outside_canvas(fig), "regime map: text outside the canvas: {}".format(outside_canvas(fig)))


def check_no_staging():
    with open(os.path.join(SOURCE, ".gitignore")) as f:
        check(".report-staging-*" in f.read().split(), ".gitignore: no rule for .report-staging-*")
    listed = subprocess.run(["git", "-C", SOURCE, "ls-files"], capture_output=True, text=True)
    if listed.returncode == 0:
        staged = [p for p in listed.stdout.splitlines() if ".report-staging-" in p]
        check(not staged, "a report staging folder is committed: {}".format(staged[:3]))


def check_history(tmp):
    """bench_mps history on the committed H100 default sweeps: a figure per workload, every text inside the canvas,
    one line per mode and N with a point per folder, the legend naming INSUFFICIENT and the changes called."""
    folders = [os.path.join(SOURCE, "results", d) for d in (
        "2026-11-26-h100-80gb-hbm3", "2026-11-27-h100-80gb-hbm3", "2026-11-27-reference-check/h100-lease-a",
        "2026-11-27-reference-check/h100-lease-d", "2026-11-27-reference-check/h100-lease-h")]
    out = os.path.join(tmp, "history")
    proc = subprocess.run([BENCH, "history"] + folders + ["--out", out], capture_output=True, text=True, timeout=300)
    if not check(proc.returncode == 0, "bench_mps history: exit {}: {}".format(proc.returncode, proc.stderr.strip())):
        return
    with open(os.path.join(out, "plots", "plot_data.json")) as f:
        data = json.load(f)
    check(len(data["figures"]) == 2, "history: {} figures, expected one per workload (spin, mlp)".format(
        len(data["figures"])))
    for spec in data["figures"]:
        check(os.path.exists(os.path.join(out, "plots", spec["name"] + ".png")), "history: {}.png not drawn".format(
            spec["name"]))
        fig = plot_report.draw_history(spec, data)
        fig.canvas.draw()
        outside = outside_canvas(fig)
        check(not outside, "history {}: text outside the canvas: {}".format(spec["name"], outside))
        check(len(spec["lines"]) == 6, "history {}: {} lines, expected 6 (2 modes x N = 1, 4, 10)".format(
            spec["name"], len(spec["lines"])))
        for line in spec["lines"]:
            check(len(line["points"]) == len(folders), "history {} {}: {} points for {} folders".format(
                spec["name"], line["label"], len(line["points"]), len(folders)))
        texts = legend_texts(fig.axes[0])
        check(any("INSUFFICIENT" in t for t in texts) and any("change called" in t for t in texts),
              "history {}: the legend does not name INSUFFICIENT and the changes: {}".format(spec["name"], texts))
        plot_report.plt.close(fig)


def main():
    with tempfile.TemporaryDirectory(prefix="check_figures.") as tmp:
        check_every_fixture_inside()
        check_long_labels()
        check_relative_task_time()
        check_comparisons()
        check_interference()
        check_duty_cycle(tmp)
        check_regime_map()
        if check(os.access(BENCH, os.X_OK), "no bench_mps at {}".format(BENCH)):
            check_reports(tmp)
            check_edge_reports(tmp)
            check_history(tmp)
        check_no_staging()
    for f in failures:
        print("FAIL: " + f)
    print("check_figures.py: {} failure(s)".format(len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
