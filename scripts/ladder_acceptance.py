#!/usr/bin/env python3
"""Issue 42's ladder acceptance, counted from the committed gated ladders of the zoo's programs.

    python3 scripts/ladder_acceptance.py [ROOT] [--before UTC] [--parting] [--cpu]   # ROOT: the repository (default .)

--before 2026-12-03T16:00:00Z counts only the ladders started before that time (meta.json's started_utc): what a
results folder quoted when later ladders were not yet committed.
--parting adds how far the copies of a run parted, per mode and N over the programs' latest ladders: each run's
longest steady part over its shortest (units.csv's steady_s; ladders written before 2026-12-02 have none), the
median over the runs, and how many runs lie within 1.25x (copies released together cover 80 % of the longest
copy's steady part, the co-run line, only where it is within 1.25x of the shortest).
--cpu adds, over the cells not co-run in the programs' latest ladders, those whose copies' CPU use is recorded
(runs.csv's cpu_user_s, since 2026-12-04) and how many of them were bound by their cores: every run of the cell had
its median copy busy for at least 0.9 of its run (scripts/cpu_share.py; spinning on the GPU counts as busy).

A gated ladder is a committed sweep (meta.json and units.csv) of `zoo/run.sh NAME` as the zoo gives it (no
environment or other prefix), with the start gate on (`--exec-gate` not off), N = 2, 4 and 10 among its --procs,
both modes and two repeats, each copy pinned (the default: not --no-pin). Per ladder it prints its cells co-run
(a mode at one N >= 2 whose copies of both repeats all co-ran, units.csv's unit_basis), how far apart its co-run
cells' two repeats lie (the larger mean unit over the smaller, median over the cells) and its alone runs per
mode with their spread (+- half the range over the median). Per program its latest complete ladder (meta.json's
started_utc and status; the latest of any status where none completed) stands for it; a program without one has its
six cells unmeasured. Then the acceptance's counts:
cells co-run over the zoo's 6 per program (the acceptance asks 90 %) and the median of the co-run cells' repeats
apart (it asks 5 %), and the cells co-run per mode over the programs' latest ladders. zoo/programs.json names the
programs. Everything is read from the committed files.
"""
import csv
import json
import os
import re
import statistics
import sys

from cpu_share import copy_shares
from gate_study import alone_draws, cells_co_run, folders, repeat_rows, run_parting
from script_input import run_main

NS = (2, 4, 10)
MODES = ("timeslice", "mps")
WANTED_CO_RUN = 90.0     # % of the zoo's cells (issue 42's acceptance)
WANTED_REPEATS = 5.0     # % apart, median over co-run cells


def arg(argv, name):
    return argv[argv.index(name) + 1] if name in argv[:-1] else None


def zoo_program(meta):
    """The zoo program a sweep's meta.json ran as a gated ladder, or None."""
    argv = meta.get("argv", [])
    command = arg(argv, "--command") or ""
    words = command.split()
    if len(words) != 2 or words[0] != "zoo/run.sh" or "--no-pin" in argv:
        return None
    procs = {int(p) for p in (arg(argv, "--procs") or "").split(",") if p.isdigit()}
    modes = set((arg(argv, "--modes") or "").split(","))
    gate = (meta.get("exec_gate") or {}).get("asked", "off")
    if not set(NS) <= procs or modes != set(MODES) or arg(argv, "--repeats") != "2" or gate == "off":
        return None
    return words[1]


def ladders(root):
    found = []
    for d in folders(os.path.join(root, "results")):
        meta = json.load(open(os.path.join(d, "meta.json")))
        program = zoo_program(meta)
        if program:
            found.append((program, meta.get("started_utc", ""), d, meta))
    return sorted(found)


def ladder_counts(d):
    """(cells co-run at N >= 2 of the six, {mode: its cells co-run of three}, the co-run cells' repeats apart in %,
    {mode: alone draws})."""
    units = [u for u in csv.DictReader(open(os.path.join(d, "units.csv"))) if int(u["procs"]) in NS]
    co = cells_co_run(units)
    _, apart = repeat_rows(d, d)
    by_mode = {m: sum(co.get((m, n), False) for n in NS) for m in MODES}
    return sum(by_mode.values()), by_mode, apart, alone_draws(d)


def parting(d):
    """{(mode, N): [each run's longest steady part over its shortest]} of the ladder in d (N >= 2; gate_study's
    run_parting)."""
    cells = {}
    for u in csv.DictReader(open(os.path.join(d, "units.csv"))):
        if int(u["procs"]) in NS:
            cells.setdefault((u["mode"], int(u["procs"])), []).append(u)
    return {key: [r for _, r in run_parting(us) if r is not None] for key, us in cells.items()}


def cpu_bound_share():
    """The share of its run a copy keeps its CPU busy at or above which it is bound by its core: the one value, read
    from harness/predict/not_co_run_note.hpp beside this script (kCpuBoundShare), which `predict --measure` uses."""
    header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness", "predict", "not_co_run_note.hpp")
    found = re.search(r"kCpuBoundShare = ([0-9.]+);", open(header).read())
    if not found:
        raise ValueError("%s: no kCpuBoundShare" % os.path.normpath(header))
    return float(found.group(1))


def cells_not_co_run_by_cpu(d):
    """{(mode, N): the least of the cell's runs' median copy CPU share, or None where not recorded} of the cells at
    N >= 2 not co-run in the ladder in d."""
    units = [u for u in csv.DictReader(open(os.path.join(d, "units.csv"))) if int(u["procs"]) in NS]
    co = cells_co_run(units)
    shares, _ = copy_shares(csv.DictReader(open(os.path.join(d, "runs.csv"))))
    cells = {}
    for u in units:
        key = (u["mode"], int(u["procs"]))
        if co.get(key):
            continue
        run = shares.get(u["run_id"])
        share = statistics.median(c[0] for c in run) if run else None
        if key not in cells:
            cells[key] = share
        elif cells[key] is not None:
            cells[key] = None if share is None else min(cells[key], share)
    return cells


def spread_text(draws):
    if not draws:
        return "none"
    med = statistics.median(draws)
    return "%d (+-%.0f %%)" % (len(draws), 100 * (max(draws) - min(draws)) / 2 / med)


def main(root, before=None, show_parting=False, show_cpu=False):
    zoo = [p["name"] for p in json.load(open(os.path.join(root, "zoo", "programs.json")))]
    latest = {}
    for program, started, d, meta in ladders(root):
        if before and not started < before:
            continue
        cells, by_mode, apart, draws = ladder_counts(d)
        gate = meta["exec_gate"]["asked"]
        status = "" if meta.get("status") == "complete" else ", status %s" % meta.get("status")
        print("ladder: %s (%s, %s, %s, --exec-gate %s%s): %d of 6 cells co-run; repeats of co-run cells %s; "
              "alone runs time-sliced %s, MPS %s" % (
                  program, os.path.relpath(d, root), started, meta["gpu"]["uuid"][:12], gate, status, cells,
                  "median %.1f %% apart (%d of them)" % (statistics.median(apart), len(apart)) if apart else "none",
                  spread_text(draws.get("timeslice")), spread_text(draws.get("mps"))))
        complete = meta.get("status") == "complete"
        kept = latest.get(program)  # ladders come in start order: a later complete one replaces any
        if complete or kept is None or not kept[3]:
            latest[program] = (cells, apart, os.path.relpath(d, root), complete, by_mode)
    cells_all, apart_all = 0, []
    mode_all = {m: 0 for m in MODES}
    for program in zoo:
        if program in latest:
            cells, apart, where, _, by_mode = latest[program]
            cells_all += cells
            apart_all += apart
            for m in MODES:
                mode_all[m] += by_mode[m]
            print("program: %s: latest ladder %s, %d of 6 cells co-run" % (program, where, cells))
        else:
            print("program: %s: no gated ladder committed (6 cells unmeasured)" % program)
    total = 6 * len(zoo)
    measured = 6 * len(latest)
    print("zoo's gated ladder: %d of %d programs with a ladder; cells co-run %d of %d (%.1f %%; %d of the %d "
          "measured, %.1f %%); the acceptance asks %.0f %%" % (
              len(latest), len(zoo), cells_all, total, 100 * cells_all / total, cells_all, measured,
              100 * cells_all / measured if measured else 0.0, WANTED_CO_RUN))
    if latest:
        print("by mode over those ladders: time-sliced %d of %d cells co-run, MPS %d of %d" % (
            mode_all["timeslice"], 3 * len(latest), mode_all["mps"], 3 * len(latest)))
    if show_parting:
        parted = {}
        for program in latest:
            for key, ratios in parting(os.path.join(root, latest[program][2])).items():
                parted.setdefault(key, []).extend(ratios)
        for mode in MODES:
            print("copies parted, %s: %s" % (mode, "; ".join(
                "N=%d %.2fx (%d of %d runs within 1.25x)" % (
                    n, statistics.median(parted[(mode, n)]), sum(r <= 1.25 for r in parted[(mode, n)]),
                    len(parted[(mode, n)])) for n in NS if parted.get((mode, n)))))
    if show_cpu:
        recorded, bound, programs = 0, 0, set()
        cpu_bound = cpu_bound_share()
        not_co_run = 0
        for program in latest:
            for share in cells_not_co_run_by_cpu(os.path.join(root, latest[program][2])).values():
                not_co_run += 1
                if share is not None:
                    recorded += 1
                    bound += share >= cpu_bound
                    programs.add(program)
        print("cells not co-run: %d; with each copy's CPU recorded %d (%s); bound by their cores (every run's median "
              "copy busy for at least %.1f of its run) %d of those" % (
                  not_co_run, recorded, ", ".join(sorted(programs)) or "none", cpu_bound, bound))
    if apart_all:
        print("co-run cells' two repeats: median %.1f %% apart over %d cells (largest %.1f %%); the acceptance asks "
              "within a median %.0f %%" % (statistics.median(apart_all), len(apart_all), max(apart_all),
                                           WANTED_REPEATS))
    return 0


def command_line():
    args = sys.argv[1:]
    cut = None
    if "--before" in args:
        i = args.index("--before")
        if i + 1 >= len(args) or not args[i + 1].endswith("Z"):
            print("ladder_acceptance.py: --before takes a UTC time such as 2026-12-03T16:00:00Z", file=sys.stderr)
            return 2
        cut = args[i + 1]
        del args[i:i + 2]
    flags = {f: f in args for f in ("--parting", "--cpu")}
    args = [a for a in args if a not in flags]
    unknown = [a for a in args if a.startswith("-")]
    if unknown or len(args) > 1:
        print("ladder_acceptance.py: %s; usage: ladder_acceptance.py [ROOT] [--before UTC] [--parting] [--cpu]" % (
            "unknown option %s" % unknown[0] if unknown else "one ROOT at most"), file=sys.stderr)
        return 2
    root = args[0] if args else "."
    if not os.path.isdir(os.path.join(root, "results")) or not os.path.isfile(os.path.join(root, "zoo", "programs.json")):
        print("ladder_acceptance.py: %s has no results/ folder and zoo/programs.json (ROOT is the repository)" % (
            args[0] if args else "this folder"), file=sys.stderr)
        return 2
    return main(root, cut, flags["--parting"], flags["--cpu"])


if __name__ == "__main__":
    run_main("ladder_acceptance.py", __doc__, command_line)
