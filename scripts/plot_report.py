#!/usr/bin/env python3
"""Draws the figures of `bench_mps report` from plots/plot_data.json.

Usage: plot_report.py PLOT_DATA_JSON OUT_DIR [--svg]

bench_mps computes every statistic (medians, ranges, quantiles, ratios) in C++ and writes them to
plot_data.json; this script only draws them, each figure as OUT_DIR/<name>.png (and, with --svg, as
<name>.svg too: a vector copy drawn again from a folder's plots/plot_data.json when one is wanted; bench_mps
itself writes one format), with matplotlib's Agg backend (no display needed). See docs/REPORT.md for what each
figure shows.
"""
import json
import os
import sys
import textwrap
import warnings

import matplotlib
import numpy as np  # matplotlib's own dependency

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.colors import LogNorm  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FixedLocator, FormatStrFormatter, LogLocator, NullLocator, ScalarFormatter  # noqa: E402

from plot_layout import fit_legends, fit_titles, place_labels, wrapped  # noqa: E402  (scripts/plot_layout.py, beside this script)

# A draw's first tight_layout, before finish() wraps long legend entries and widens the figure, may find no room for
# them yet and say so; finish() makes the room (tests/figures checks that every text ends inside the canvas).
warnings.filterwarnings("ignore", message="Tight layout not applied", category=UserWarning)

plt.rcParams.update({
    "svg.hashsalt": "bench_mps",  # stable ids: the same data gives the same SVG
    "font.size": 10,
    "axes.titlesize": 11,
    "figure.titlesize": 12,
    "legend.fontsize": 8,
})

MODE_COLORS = {"timeslice": "#d62728", "mps": "#1f77b4", "streams": "#17becf", "threads": "#e377c2",
               "green": "#bcbd22", "mps:auto": "#7f3c8d", "mps+prio": "#393b79"}
EXTRA_COLORS = ["#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
SERIES_STYLES = ["-", "--", (0, (6, 2, 1, 2, 1, 2)), (0, (1, 1))]  # the reference lines use gray (0, (8, 4)) and ":"
SERIES_MARKERS = ["o", "s", "D", "^", "v", "P"]
SEED_MARKERS = ["*", "X", "P", "h", "<", ">"]
# A seed that timed the completion of all N copies (seed 001), drawn on this per-task axis.
COMPLETION_MARK = " \u2020"
COMPLETION_NOTE = "\u2020 seed timed the completion of all N copies,\n   not the time per task"
VERDICT_COLORS = {"FASTER": "#2ca02c", "SLOWER": "#d62728", "SAME": "#7f7f7f", "UNSURE": "#ff7f0e",
                  "INSUFFICIENT": "#9467bd"}


# One colour per mode in every figure of every report: time-sliced red, unlimited MPS blue, and each
# active-thread limit its own colour by percent (mps:50 is the same colour wherever it appears).
ATP_COLORS = {75: "#9467bd", 50: "#2ca02c", 25: "#ff7f0e", 10: "#8c564b"}


# Modes without a fixed colour (mps:auto+prio, streams:32, green:64, ...) get one from this list by a
# stable hash of their name, so a mode has the same colour in every figure and every report.
HASHED_COLORS = ["#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1",
                 "#636363", "#9c9ede", "#cedb9c", "#e7969c"]


def mode_color(mode, modes=None):
    if mode.startswith("external-"):
        mode = mode[len("external-"):]
    if mode in MODE_COLORS:
        return MODE_COLORS[mode]
    if mode.startswith("mps:") and mode[4:].isdigit():
        pct = int(mode[4:])
        return ATP_COLORS.get(pct, EXTRA_COLORS[pct % len(EXTRA_COLORS)])
    return HASHED_COLORS[sum((i + 1) * ord(c) for i, c in enumerate(mode)) % len(HASHED_COLORS)]


def error_bars(median, low, high):
    """matplotlib's asymmetric yerr from (median, min, max) lists; a missing bound draws no bar."""
    below = [m - (lo if lo is not None else m) for m, lo in zip(median, low)]
    above = [(hi if hi is not None else m) - m for m, hi in zip(median, high)]
    return [below, above]


def plain_log_axis(axis, ticks):
    """A log axis labelled with plain numbers at `ticks`."""
    axis.set_major_locator(FixedLocator(sorted(set(ticks))))
    axis.set_minor_locator(NullLocator())
    formatter = ScalarFormatter()
    formatter.set_scientific(False)
    axis.set_major_formatter(formatter)


def relayout(fig):
    """tight_layout again, except for figures laid out by hand (fig.manual_layout)."""
    if not getattr(fig, "manual_layout", False):
        fig.tight_layout()


def finish(fig):
    """The last layout steps of every figure: no legend entry longer than a legend line and no title wider than
    the figure (both wrapped, never clipped)."""
    fit_legends(fig, relayout)
    fit_titles(fig, relayout)
    return fig


def save(fig, out_dir, name, svg):
    finish(fig)
    fig.savefig(os.path.join(out_dir, name + ".png"), dpi=120)
    if svg:
        fig.savefig(os.path.join(out_dir, name + ".svg"), metadata={"Date": None})
    plt.close(fig)


def draw_relative_task_time(spec, data):
    modes, series = data["modes"], data["series"]
    fig, ax = plt.subplots(figsize=(12, 6))
    max_n = max(2, spec["max_n"])
    ns = list(range(1, max_n + 1))
    ax.plot(ns, ns, color="#7f7f7f", linestyle=(0, (8, 4)), linewidth=1.0, label="ideal time-slicing: N")
    ax.axhline(1, color="#7f7f7f", linestyle=":", linewidth=1.0, label="ideal sharing: 1")
    y_values = [1, max_n]
    for line in spec["lines"]:
        i = series.index(line["series"]) if line["series"] in series else 0
        # Where modes coincide (N=1, or a workload MPS cannot help) every line must still show: the
        # time-sliced line is drawn thin, on top, with open markers; each other mode wider and below it,
        # later modes narrower, so a line under another shows as a border around it.
        rank = modes.index(line["mode"]) if line["mode"] in modes else len(modes)
        on_top = line["mode"] == "timeslice"
        ax.errorbar(line["n"], line["median"], yerr=error_bars(line["median"], line["min"], line["max"]),
                    color=mode_color(line["mode"], modes), linestyle=SERIES_STYLES[i % len(SERIES_STYLES)],
                    linewidth=1.3 if on_top else max(1.8, 3.2 - 0.6 * rank),
                    marker=SERIES_MARKERS[i % len(SERIES_MARKERS)], markersize=9 if on_top else 6,
                    markerfacecolor="white" if on_top else None, markeredgewidth=1.6 if on_top else 1.0,
                    capsize=3, zorder=4 if on_top else 3 - 0.1 * rank,
                    label="{}, {} (this run)".format(line["series"], line["mode_label"]))
        y_values += line["median"]
    sources = []
    for point in spec["seeds"]:
        if point["source_id"] not in sources:
            sources.append(point["source_id"])
    seen = set()
    for point in spec["seeds"]:
        marker = SEED_MARKERS[sources.index(point["source_id"]) % len(SEED_MARKERS)]
        key = (point["source_id"], point["mode"])
        completion = point.get("metric") == "completion_time"  # not a per-task time: say so beside the marker
        ax.scatter([point["n"]], [point["ratio"]], s=110, marker=marker, facecolors="none",
                   edgecolors=mode_color(point["mode"], modes + [point["mode"]]), linewidths=1.6, zorder=5,
                   label=None if key in seen else "seed: {} ({}){}".format(
                       point["label"], point["mode_label"], COMPLETION_MARK if completion else ""))
        if completion:
            ax.annotate(COMPLETION_MARK.strip(), (point["n"], point["ratio"]), textcoords="offset points",
                        xytext=(8, 4), fontsize=10, fontweight="bold", zorder=6)
        seen.add(key)
        y_values.append(point["ratio"])
    if any(p.get("metric") == "completion_time" for p in spec["seeds"]):
        ax.plot([], [], linestyle="none", label=COMPLETION_NOTE)  # the mark's meaning, in the legend
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax.xaxis, [1] + [n for line in spec["lines"] for n in line["n"]] +
                   [p["n"] for p in spec["seeds"]] + [max_n])
    lo, hi = min(y_values), max(y_values)
    plain_log_axis(ax.yaxis, [t for t in (0.5, 1, 2, 4, 8, 16, 32, 64, 128) if lo / 1.5 <= t <= hi * 1.5])
    ax.set_xlabel("N processes sharing the GPU")
    ax.set_ylabel("per-task time at N / one process alone, time-sliced")
    ax.set_title("{}\n{}".format(spec["title"], data["machine"]))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, framealpha=0.9)  # outside the data
    fig.tight_layout()
    return fig


def draw_throughput(spec, data):
    modes = data["modes"]
    panels = spec["panels"]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.8), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        ticks = []
        for line in panel["lines"]:
            ax.errorbar(line["n"], line["median"], yerr=error_bars(line["median"], line["min"], line["max"]),
                        color=mode_color(line["mode"], modes), marker="o", capsize=4, label=line["mode_label"],
                        clip_on=False)  # a cell of 0 tasks/s (every task failed) sits on the axis, drawn over it
            ticks += line["n"]
        ax.set_xticks(sorted(set(ticks)))
        ax.set_ylim(bottom=0)
        ax.set_xlabel("N processes sharing the GPU")
        ax.set_ylabel("tasks/s, all processes together")
        ax.set_title(panel["series"])
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.08), ncol=3, fontsize=7)  # above the data
    fig.suptitle("{} (median, min-max over repeats)\n{}".format(spec["title"], data["machine"]))
    fig.tight_layout()
    return fig


def draw_task_time_distribution(spec, data):
    modes = spec["modes"]
    panels = spec["panels"]
    fig, axes = plt.subplots(1, len(panels), figsize=(max(6.0, 1.2 * len(spec["procs"]) * len(modes)) * len(panels) / 1.4,
                                                      5.2), squeeze=False)
    legend_modes = {}  # mode -> label, over every panel: one legend, outside the data
    for ax, panel in zip(axes[0], panels):
        procs = sorted({box["n"] for box in panel["boxes"]})
        present = [m for m in modes if any(box["mode"] == m for box in panel["boxes"])]
        width = 0.8 / max(1, len(present))
        stats, positions, colors, p99 = [], [], [], []
        for box in panel["boxes"]:
            group = procs.index(box["n"])
            slot = present.index(box["mode"])
            position = group + (slot - (len(present) - 1) / 2) * width
            stats.append({"med": box["p50"], "q1": box["p25"], "q3": box["p75"], "whislo": box["p1"],
                          "whishi": box["p99"], "fliers": [box["min"], box["max"]], "mean": box["mean"]})
            positions.append(position)
            colors.append(mode_color(box["mode"], modes))
            p99.append(box["p99"])
        parts = ax.bxp(stats, positions=positions, widths=width * 0.85, patch_artist=True, showfliers=True,
                       flierprops={"marker": ".", "markersize": 4, "markerfacecolor": "black"},
                       medianprops={"color": "black", "linewidth": 1.5})
        for patch, median, color in zip(parts["boxes"], parts["medians"], colors):
            patch.set_facecolor(color)
            patch.set_alpha(0.55)
            median.set_color(color)  # a box only a few ms tall still shows its mode by its p50 line
            median.set_linewidth(2.5)
        ax.scatter(positions, p99, marker="v", color="black", s=22, zorder=5)
        ax.set_xticks(range(len(procs)))
        ax.set_xticklabels(["N={}".format(n) for n in procs])
        ax.set_xlim(-0.6, len(procs) - 0.4)
        ax.set_yscale("log")
        values = [v for st in stats for v in (st["whislo"], st["whishi"], *st["fliers"]) if v and v > 0]
        narrow = values and max(values) / min(values) < 30  # under ~1.5 decades: label 1, 1.5, 2, 3, ... 9
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
                                              if narrow else (1.0, 2.0, 5.0)))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.set_ylabel("per-task time (ms), log scale")
        ax.set_title(panel["series"])
        ax.grid(True, axis="y", which="both", alpha=0.25)
        for m in present:
            legend_modes.setdefault(m, next(b["mode_label"] for b in panel["boxes"] if b["mode"] == m))
    handles = [Patch(facecolor=mode_color(m, modes), alpha=0.55, label=legend_modes[m])
               for m in modes if m in legend_modes]
    handles.append(Line2D([], [], color="black", linewidth=1.5, label="p50 (line in box, in the mode's colour)"))
    handles.append(Line2D([], [], marker="v", color="black", linestyle="none", label="p99 (whisker end)"))
    axes[0][-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)  # outside the data
    fig.suptitle("{}: box p25-p75, whiskers p1-p99, dots min/max\n{}".format(spec["title"], data["machine"]))
    fig.tight_layout()
    return fig


def draw_mps_speedup(spec, data):
    bars = spec["bars"]
    groups = sorted({bar["n"] for bar in bars})
    kinds = []
    for bar in bars:
        if (bar["series"], bar["mode"]) not in kinds:
            kinds.append((bar["series"], bar["mode"]))
    width = 0.8 / len(kinds)
    fig, ax = plt.subplots(figsize=(max(6.5, 1.1 * len(groups) * len(kinds) + 2), 4.8))
    # The mode's colour, as in every figure; the workload (series) by its hatch.
    series_order = []
    for series, _ in kinds:
        if series not in series_order:
            series_order.append(series)
    hatches = ["", "//", "..", "xx", "\\\\", "++"]
    for k, (series, mode) in enumerate(kinds):
        mine = [b for b in bars if b["series"] == series and b["mode"] == mode]
        x = [groups.index(b["n"]) + (k - (len(kinds) - 1) / 2) * width for b in mine]
        medians = [b["median"] for b in mine]
        ax.bar(x, medians, width * 0.9, color=mode_color(mode), edgecolor="black", linewidth=0.5,
               hatch=hatches[series_order.index(series) % len(hatches)],
               yerr=error_bars(medians, [b["min"] for b in mine], [b["max"] for b in mine]), capsize=3,
               label="{}, {}".format(series, mine[0]["mode_label"]))
        for xi, m in zip(x, medians):
            ax.annotate("{:.2f}x".format(m), (xi, m), textcoords="offset points", xytext=(0, 3), ha="center",
                        fontsize=8)
    ax.axhline(1, color="black", linewidth=0.8, linestyle="--", label="1: no gain over time-slicing")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(["N={}".format(n) for n in groups])
    ax.set_ylabel("throughput with MPS / time-sliced throughput")
    ax.set_title("{} (median, min-max over repeats)\n{}".format(spec["title"], data["machine"]))
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)  # outside the data
    fig.tight_layout()
    return fig


# The comparison charts' x range, in percent either side of 0: the smallest rung that holds every bar,
# noise whisker and the threshold, so that charts of similar comparisons share one range.
COMPARISON_RANGES = [2, 5, 10, 20, 50, 100, 200, 500, 1000]


def comparison_range(extent):
    return next((r for r in COMPARISON_RANGES if extent * 1.15 <= r), COMPARISON_RANGES[-1])


def draw_comparison(spec, data):
    pairs = list(reversed(spec["pairs"]))  # first row of comparison.csv on top
    row_labels = [wrapped(p["label"]) for p in pairs]  # a long workload label (a user's command) on more lines
    extra_lines = sum(label.count("\n") for label in row_labels)
    fig, ax = plt.subplots(figsize=(10.5, max(3.0, 0.38 * len(pairs) + 0.16 * extra_lines + 1.8)))
    threshold = spec.get("threshold")
    if threshold is not None:
        ax.axvspan(-100 * threshold, 100 * threshold, color="#7f7f7f", alpha=0.15)
    ax.axvline(0, color="black", linewidth=0.8)
    y = list(range(len(pairs)))
    changes = [100 * p["change"] if p["change"] is not None else 0.0 for p in pairs]
    noises = [100 * p["noise"] if p.get("noise") is not None else None for p in pairs]
    limit = comparison_range(max([abs(c) for c in changes] + [n for n in noises if n is not None] +
                                 [100 * threshold if threshold else 0]))
    ax.barh(y, changes, color=[VERDICT_COLORS.get(p["verdict"], "#333333") for p in pairs], height=0.7)
    for yi, n in zip(y, noises):  # each row's noise: what the verdict weighed the change against
        if n is not None:
            whisker = ax.errorbar([0], [yi], xerr=[[min(n, limit)], [min(n, limit)]], fmt="none", ecolor="black",
                                  elinewidth=1.2, capsize=4, zorder=4)
            whisker.lines[2][0].set_gid("noise")
    for yi, p, c in zip(y, pairs, changes):
        text = "n/a" if p["change"] is None else "{:+.1f}%".format(c)
        beyond = abs(c) > limit  # a bar past the widest range: cut at its edge, its label inside and marked so
        at = max(-limit, min(limit, c))
        ax.annotate(text + (" (cut)" if beyond else ""), (at, yi), textcoords="offset points",
                    xytext=((4 if c >= 0 else -4) * (-1 if beyond else 1), 9),
                    ha=("left" if c >= 0 else "right") if not beyond else ("right" if c >= 0 else "left"),
                    va="center", fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels(row_labels)
    ax.set_xlim(-limit, limit)
    ax.set_xlabel("change of {}: (new - base) / |base|, %".format(spec["metric"]))
    ax.set_title("{}\n{}".format(spec["title"], data["machine"]))
    handles = [Patch(color=color, label=verdict) for verdict, color in VERDICT_COLORS.items()]
    if threshold is not None:
        handles.append(Patch(color="#7f7f7f", alpha=0.15, label="threshold ±{:.1f}%".format(100 * threshold)))
    if any(n is not None for n in noises):
        handles.append(Line2D([], [], color="black", marker="|", markersize=8, linewidth=1.2,
                              label="row's noise ±(width of the ~94% t interval\n"
                                    "of the worker sets' mean) / mean,\nthe wider side"))
    if any(p["clock_flag"] for p in pairs):
        handles.append(Line2D([], [], linestyle="none", label="* SM clocks differ >2%"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def draw_interference(spec, data):
    groups = spec["groups"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    ax_lat, ax_bg = axes
    absolute = any(m.get("bg_per_s") is not None for g in groups for m in g["modes"])
    labels, positions, width, x = [], [], 0.8, 0
    for group in groups:
        for m in group["modes"]:
            color = mode_color(m["mode"])
            label = "{} (N={})".format(m["mode"], group["n"]) if len(groups) > 1 else m["mode"]
            if m["p99_vs_alone"] is not None:
                low, high = m["p99_vs_alone_min"], m["p99_vs_alone_max"]
                err = None
                if low is not None and high is not None:
                    err = [[m["p99_vs_alone"] - low], [high - m["p99_vs_alone"]]]
                ax_lat.bar([x], [m["p99_vs_alone"]], width, color=color, yerr=err, capsize=4)
            if absolute:  # tasks/s alone (open) and beside (filled): the modes' rates side by side
                alone, beside = m.get("bg_alone_per_s"), m.get("bg_per_s")
                if alone is not None:
                    ax_bg.bar([x], [alone], width, facecolor="none", edgecolor=color, linewidth=1.5, zorder=3)
                if beside is not None:
                    ax_bg.bar([x], [beside], width * 0.6, color=color, zorder=2)
                    if m["bg_kept"] is not None:
                        ax_bg.annotate("kept {:.0%}".format(m["bg_kept"]), (x, max(beside, alone or 0)),
                                       textcoords="offset points", xytext=(0, 3), ha="center", fontsize=7)
            elif m["bg_kept"] is not None:
                ax_bg.bar([x], [m["bg_kept"]], width, color=color)
            labels.append(label)
            positions.append(x)
            x += 1
        x += 0.6
    for ax in axes:
        ax.set_xticks(positions)
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    ax_lat.set_yscale("log")
    plain_log_axis(ax_lat.yaxis, [1, 2, 5, 10, 20, 50, 100, 200, 500])
    ax_lat.axhline(1, color="#7f7f7f", linestyle=":", linewidth=1.0)
    ax_lat.set_ylabel("foreground p99 latency / alone (1 = undisturbed)")
    ax_lat.set_title("foreground latency", fontsize=10)
    if absolute:
        ax_bg.set_ylim(0, ax_bg.get_ylim()[1] * 1.12)
        ax_bg.set_ylabel("background tasks/s, all background jobs")
        ax_bg.set_title("background throughput: alone (open) and beside the foreground (filled)", fontsize=10)
        ax_bg.legend(handles=[Patch(facecolor="none", edgecolor="black", label="alone, same mode"),
                              Patch(facecolor="#7f7f7f", label="beside the foreground"),
                              Line2D([], [], linestyle="none", label="kept = beside / alone, same mode")],
                     loc="lower right", fontsize=7, framealpha=0.9)
    else:  # plot data from before the absolute rates: the share, with its basis named
        ax_bg.axhline(1, color="#7f7f7f", linestyle=":", linewidth=1.0)
        ax_bg.set_ylim(0, 1.1)
        ax_bg.set_ylabel("background throughput / alone in the same mode")
        ax_bg.set_title("background throughput kept (basis: the same mode alone)", fontsize=10)
    fig.suptitle(spec["title"], fontsize=11)
    fig.tight_layout()
    return fig


def draw_xray(spec, data):
    """The X-ray: a Gantt chart of busy contexts per mode, and the wait of a short step against N."""
    panels = spec["panels"]
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(5.2 * len(panels) + 4.6, 3.9),
                             gridspec_kw={"width_ratios": [1.4] * len(panels) + [1]}, squeeze=False)
    axes = list(axes[0])  # a list however many panels (none: no busy run finished)
    for ax, panel in zip(axes, panels):
        color = mode_color(panel["mode"])
        for i, spans in enumerate(panel["contexts"]):
            ax.broken_barh([(a, b - a) for a, b in spans], (i - 0.35, 0.7), facecolors=color)
        ax.set_ylim(-0.7, len(panel["contexts"]) - 0.3)
        ax.set_yticks(range(len(panel["contexts"])))
        ax.set_yticklabels(["context {}".format(i) for i in range(len(panel["contexts"]))], fontsize=8)
        ax.set_xlim(0, spec["window_ms"])
        ax.set_xlabel("ms (GPU clock, 25 ms of one run)")
        ax.set_title("{}: N={} busy contexts".format(panel["mode_label"], panel["n"]), fontsize=10)
        ax.grid(True, axis="x", alpha=0.3)
    ax = axes[-1]
    waits = [w for w in spec["waits"] if w["measured"] is not None]  # a probe that did not finish has no wait
    if not waits:
        ax.text(0.5, 0.5, "no wait measured\n(no time-sliced wait probe finished)", ha="center", va="center",
                transform=ax.transAxes, fontsize=9)
        ax.set_axis_off()
        fig.suptitle(spec["title"], fontsize=11)
        fig.tight_layout()
        return fig
    ns = [w["n"] for w in waits]
    measured = [w["measured"] for w in waits]
    p99 = [w["p99"] if w["p99"] is not None else w["measured"] for w in waits]
    ax.errorbar(ns, measured, yerr=[[0] * len(ns), [max(0, a - b) for a, b in zip(p99, measured)]], fmt="o",
                color=mode_color("timeslice"), capsize=3, label="measured (p99 whisker)")
    ax.plot(ns, [w["predicted"] if w["predicted"] is not None else float("nan") for w in waits], color="#7f7f7f",
            linestyle=(0, (8, 4)),
            label="(N-1) x (slice + switch)")
    ax.set_xlabel("N contexts")
    ax.set_ylabel("wait per short step, ms")
    ax.set_title("a short step beside N-1 busy contexts", fontsize=10)
    ax.set_xticks(ns)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.suptitle(spec["title"], fontsize=11)
    fig.tight_layout()
    return fig


MAP_LEVELS = [1.1, 1.5, 2, 3, 5, 8, 12, 16, 20, 30]
POINT_MARKERS = {"placed": "D", "seed": "*"}


def cell_value(v):
    """A regime-map cell's loss as printed on it: 1.02, 5.81, 10.5."""
    return "{:.2f}".format(v) if v < 9.995 else "{:.1f}".format(v)


def draw_regime_map(spec, data):
    """Heat maps of the loss over burst x duty per panel (mode, N), the model's contours, placed points."""
    panels = spec["panels"]
    top = max([c["loss"] for p in panels for c in p["cells"] if c["loss"] is not None] + [2])
    norm = LogNorm(vmin=1, vmax=max(2, top))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.0 * len(panels) + 1.2, 6.4), squeeze=False, sharey=True)
    fig.subplots_adjust(left=0.06, right=0.9, top=0.86, bottom=0.27, wspace=0.08)
    fig.manual_layout = True  # the colour bar's axes sit where subplots_adjust left room: no tight_layout
    contour_labels = []  # (a panel's contour labels, its cells' values): a label over a value is dropped below
    for k, (ax, panel) in enumerate(zip(axes[0], panels)):
        cells = [c for c in panel["cells"] if c["loss"] is not None]
        ax.scatter([c["burst_ms"] for c in cells], [100 * c["duty"] for c in cells], c=[c["loss"] for c in cells],
                   cmap="viridis", norm=norm, marker="s", s=640, edgecolors="white", linewidths=0.8, zorder=2)
        values = [ax.annotate(cell_value(c["loss"]), (c["burst_ms"], 100 * c["duty"]), ha="center", va="center",
                              fontsize=6.5, color="white" if c["loss"] < 0.6 * top else "black", zorder=3)
                  for c in cells]  # each cell's value readable: two decimals (1.02, not "1"), one from 10 up
        model = panel["model"]
        z = np.array([[v if v is not None else np.nan for v in row] for row in model["loss"]])
        levels = [lv for lv in MAP_LEVELS if np.nanmin(z) < lv < np.nanmax(z)]
        if levels:
            cs = ax.contour(model["bursts_ms"], [100 * d for d in model["duties"]], z, levels=levels, colors="#444444",
                            linewidths=0.8, linestyles="--", zorder=1)
            contour_labels.append((ax.clabel(cs, fmt=lambda v: "{:g}x".format(v), fontsize=7, inline_spacing=2), values))
        # Placed workloads and seeds: a numbered marker on the map, its name and loss in the legend below the
        # panel (labels on the map itself overprinted the cells' values).
        placed = [p for p in panel["points"] if p["burst_ms"] is not None and p["duty"] is not None]
        numbers = []  # [burst, duty %, [numbers]]: points this close share one label ("3,4") so none overprints
        for i, pt in enumerate(placed, 1):
            loss = "{:.2f}x".format(pt["loss"]) if pt["loss"] is not None else "-"
            ax.scatter([pt["burst_ms"]], [100 * pt["duty"]], marker=POINT_MARKERS.get(pt["kind"], "o"), s=110,
                       facecolors="none", edgecolors="#d62728", linewidths=1.8, zorder=4,
                       label="{}: {} {}".format(i, pt["label"], loss))
            near = [g for g in numbers if abs(np.log(pt["burst_ms"] / g[0])) < 0.15 and abs(100 * pt["duty"] - g[1]) < 4]
            if near:
                near[0][2].append(str(i))
            else:
                numbers.append([pt["burst_ms"], 100 * pt["duty"], [str(i)]])
        for burst, duty, ids in numbers:
            ax.annotate(",".join(ids), (burst, duty), xytext=(0, 9), textcoords="offset points", ha="center",
                        va="bottom", fontsize=6, color="#d62728", fontweight="bold", zorder=5)
        if placed:
            ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.13), fontsize=7, frameon=False, ncol=1,
                      handletextpad=0.3, borderaxespad=0.0)
        ax.set_xscale("log")
        plain_log_axis(ax.xaxis, [0.1, 0.3, 1, 3, 10])
        ax.set_xlim(0.06, 20)
        ax.set_ylim(-2, 106)
        ax.set_xlabel("burst alone, ms (GPU time per step)")
        if k == 0:
            ax.set_ylabel("duty cycle alone, %")
        ax.set_title("{}, N={}".format(panel["mode_label"], panel["n"]), fontsize=10)
        ax.grid(True, alpha=0.25)
    cax = fig.add_axes([0.915, 0.29, 0.012, 0.55])
    fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap="viridis"), cax=cax,
                 label="loss: per-step time at N / one copy alone")
    fig.suptitle(spec["title"] + "\ncells: measured; dashed: the model's loss; markers: placed workloads and seeds",
                 fontsize=11)
    drop_labels_over(fig, contour_labels)
    return fig


def drop_labels_over(fig, pairs):
    """Removes each contour label that would print over a cell's value (the contour itself stays)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for labels, values in pairs:
        boxes = [v.get_window_extent(renderer) for v in values]
        for label in labels:
            e = label.get_window_extent(renderer)
            if any(e.x0 < b.x1 and b.x0 < e.x1 and e.y0 < b.y1 and b.y0 < e.y1 for b in boxes):
                label.remove()


def draw_model_vs_measured(spec, data):
    points = spec["points"]
    fig, ax = plt.subplots(figsize=(8.6, 6))
    values = [p["measured"] for p in points] + [p["predicted"] for p in points]
    lo, hi = min(values + [1]) / 1.2, max(values + [2]) * 1.2
    ax.plot([lo, hi], [lo, hi], color="#7f7f7f", linestyle=(0, (8, 4)), linewidth=1.0, label="perfect prediction")
    ax.fill_between([lo, hi], [lo / 1.15, hi / 1.15], [lo * 1.15, hi * 1.15], color="#7f7f7f", alpha=0.15,
                    label="+-15%")
    seen = set()
    notes = []
    for p in points:
        marker = {"grid": "s", "placed": "D", "seed": "*"}.get(p["kind"], "o")
        key = (p["kind"], p["mode"])
        ax.scatter([p["measured"]], [p["predicted"]], marker=marker, s=60 if p["kind"] != "seed" else 140,
                   facecolors="none" if p["kind"] != "grid" else mode_color(p["mode"]),
                   edgecolors=mode_color(p["mode"]), linewidths=1.2, zorder=3,
                   label=None if key in seen else "{} ({})".format(p["kind"], "time-sliced" if p["mode"] == "timeslice" else "MPS"))
        seen.add(key)
        off = abs(p["predicted"] / p["measured"] - 1) > 0.15
        if p["kind"] != "grid" and (off or p["measured"] > 1.3):
            notes.append(("{} N={}".format(p["label"], p["n"]), p["measured"], p["predicted"]))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ticks = [t for t in (1, 1.5, 2, 3, 5, 10, 20, 30) if lo <= t <= hi]
    plain_log_axis(ax.xaxis, ticks)
    plain_log_axis(ax.yaxis, ticks)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured loss (per-step time at N / alone)")
    ax.set_ylabel("the model's loss")
    ax.set_title(spec["title"].replace(" (", "\n("), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, framealpha=0.9)
    fig.tight_layout()
    place_labels(ax, notes)  # after the layout: each label where it overprints no other
    return fig

def draw_advice(spec, data):
    """bench_mps advise: measured throughput of N copies in copies alone on the basis that decided (markers, each
    with its ~94% interval over its worker sets and one copy alone's as whiskers), time-sliced and MPS, beside the ideal N; where the
    unit decides, the predictions too (lines, a band where the model gives a bracket); a cell whose worker sets did
    not co-run, a cross on the axis (no value per unit)."""
    fig, ax = plt.subplots(figsize=(7.5, 5))
    top = max([spec.get("max_procs") or 1] + [max(line["n"]) for line in spec["lines"] if line["n"]])
    ax.plot([1, top], [1, top], color="gray", linestyle=(0, (8, 4)), linewidth=1, label="ideal (N copies alone)")
    names = {"timeslice": "time-sliced", "mps": "MPS"}
    for line in spec["lines"]:
        if not line["n"]:
            continue
        color = mode_color(line["mode"], data["modes"])
        label = "{} {}".format(names.get(line["mode"], line["mode"]), line["kind"])
        if line["kind"] == "predicted":
            ax.plot(line["n"], line["throughput"], color=color, linestyle="--", label=label)
            if any(lo < hi for lo, hi in zip(line["low"], line["throughput"])):
                ax.fill_between(line["n"], line["low"], line["throughput"], color=color, alpha=0.15, linewidth=0)
        else:
            ax.plot(line["n"], line["throughput"], color=color, marker="o", linestyle="-", label=label)
            whiskers = [(n, t, lo, hi) for n, t, lo, hi in
                        zip(line["n"], line["throughput"], line.get("lo", []), line.get("hi", []))
                        if lo is not None and hi is not None]
            if whiskers:
                ax.errorbar([w[0] for w in whiskers], [w[1] for w in whiskers],
                            yerr=[[w[1] - w[2] for w in whiskers], [w[3] - w[1] for w in whiskers]],
                            fmt="none", ecolor=color, capsize=3, linewidth=1)
        apart = line.get("not_co_run") or []  # cells none of whose worker sets co-ran: no value per unit
        if line["kind"] == "measured" and apart:
            ax.plot(apart, [0] * len(apart), color=color, marker="x", markersize=8, linestyle="none", clip_on=False,
                    label="{} not co-run (N={}; left out)".format(names.get(line["mode"], line["mode"]),
                                                                 ", ".join(str(n) for n in apart)))
    ax.set_xlabel("N copies sharing the GPU")
    per = "whole run" if spec.get("basis") == "run" else spec.get("unit") or "task"
    ax.set_ylabel("throughput, in copies alone (per {})".format(per))
    ax.set_xlim(left=0.5)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title("Will MPS help? {}\n{}; decided per {}, whiskers ~94% over its and one copy alone's worker sets".format(
        spec["title"], data["machine"], per), fontsize=10)
    fig.tight_layout()
    return fig


DRAW = {
    "advice": draw_advice,
    "interference": draw_interference,
    "xray": draw_xray,
    "regime_map": draw_regime_map,
    "model_vs_measured": draw_model_vs_measured,
    "relative_task_time": draw_relative_task_time,
    "throughput": draw_throughput,
    "task_time_distribution": draw_task_time_distribution,
    "mps_speedup": draw_mps_speedup,
    "comparison": draw_comparison,
}


# plots/plot_data.json's format (kPlotDataFormatVersion in harness/results/results_schema.hpp).
PLOT_DATA_VERSION = 1


def draw_history(spec, data):
    """bench_mps history: one line per mode and N, each folder's mean relative to the series' first sufficient
    one (in percent), its ~94% interval as whiskers, INSUFFICIENT points hollow, changes called marked."""
    folders = spec["folders"]
    x_of = {f["index"]: i for i, f in enumerate(folders)}
    fig, ax = plt.subplots(figsize=(max(7.5, 0.9 * len(folders) + 4.5), 4.8))
    threshold = spec.get("threshold")
    if threshold:
        ax.axhspan(-100 * threshold, 100 * threshold, color="#7f7f7f", alpha=0.12)
    ax.axhline(0, color="black", linewidth=0.8)
    for n, line in enumerate(spec["lines"]):
        pts = [p for p in line["points"] if p["mean"] is not None and p["folder"] in x_of]
        base = next((p["mean"] for p in pts if p["sufficient"]), None)
        if not pts or not base:
            continue
        xs = [x_of[p["folder"]] for p in pts]
        ys = [100 * (p["mean"] / base - 1) for p in pts]
        color = "C{}".format(n % 10)
        ax.plot(xs, ys, color=color, linewidth=1.2, label=line["label"])
        for p, xi, yi in zip(pts, xs, ys):
            if p["lower"] is not None and p["upper"] is not None:
                lo, hi = 100 * (p["lower"] / base - 1), 100 * (p["upper"] / base - 1)
                ax.errorbar([xi], [yi], yerr=[[yi - lo], [hi - yi]], fmt="none", ecolor=color, capsize=3)
            ax.plot([xi], [yi], marker="o", color=color, markerfacecolor=color if p["sufficient"] else "white")
        for c in line["changes"]:
            if c["folder"] in x_of:
                xi = x_of[c["folder"]]
                yi = ys[xs.index(xi)] if xi in xs else 0
                ax.annotate(c["label"], (xi, yi), textcoords="offset points", xytext=(4, 8), fontsize=8, color=color)
                ax.axvline(xi - 0.5, color=color, linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(folders)))
    ax.set_xticklabels([f["label"] for f in folders], fontsize=7)
    ax.set_xlim(-0.6, len(folders) - 0.4)
    ax.set_ylabel("{}: change from the first folder, %".format(spec["metric"]))
    ax.set_xlabel("folder (driver version, date), in order")
    width = max(40, int(len(folders) * 9 + 35))  # characters the plot area holds at this size, about
    ax.set_title("\n".join(textwrap.fill(part, width) for part in spec["title"].split("\n")), fontsize=9)
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], marker="o", color="black", markerfacecolor="white", linestyle="none"))
    labels.append("INSUFFICIENT (not judged)")
    handles.append(Line2D([], [], color="black", linestyle="--", linewidth=0.8))
    labels.append("change called (persisted)")
    if threshold:
        handles.append(Patch(color="#7f7f7f", alpha=0.12))
        labels.append("threshold ±{:.1f}%".format(100 * threshold))
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def main(argv):
    svg = argv[3:] == ["--svg"]
    if len(argv) != 3 and not svg:
        print("usage: plot_report.py PLOT_DATA_JSON OUT_DIR [--svg]", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        data = json.load(f)
    version = data.get("format_version") if isinstance(data, dict) else None
    if version != PLOT_DATA_VERSION:
        print("plot_report.py: {}: format version {}, this script reads {} (render it again with the "
              "bench_mps of this checkout)".format(argv[1], version, PLOT_DATA_VERSION), file=sys.stderr)
        return 2
    for spec in data["figures"]:
        draw = draw_history if spec.get("kind") == "history" else DRAW.get(spec["name"])
        if draw is None:
            print("plot_report.py: unknown figure '{}'".format(spec["name"]), file=sys.stderr)
            return 2
        save(draw(spec, data), argv[2], spec["name"], svg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
