#!/usr/bin/env python3
"""Each goal of the pre-registered study, in every score, and each miss of its first score in numbers (issue 45's
acceptance: "If a goal is not reached honestly, the study as measured with each miss explained in numbers").

    python3 scripts/study_misses.py STUDY      # e.g. results/2026-12-02-study; writes STUDY/MISSES.md

Reads what scripts/gated_study.py wrote: cells.csv (the first score) and each later score's cells-WORD.csv, with
its SCORE*.md. Every goal is computed again from the cells by gated_study.py's own scoring (score_rows, goals) and
must read as that score's SCORE*.md says, word for word, or the script refuses (exit 2): a table that drifted from
its score is never written. Then, for the first score, every goal it missed with the cells behind it: for a median
or p90, the counted cells past the goal (program, N, predicted, measured, error, the interval); for a baseline, the
baseline's median and the cells where it came nearer than the simulator; for coverage, the cells outside their
interval and on which side; for the programs busy under 10 %, the floor and each cell. Nothing is predicted or
measured here.
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gated_study import (BUSY, GOAL_COVERAGE, GOAL_MEDIAN, GOAL_P90, MODES, NOISE_MARGIN, goals, refuse,  # noqa: E402
                         score_rows)
from predict_study import error, number, pct, quantile  # noqa: E402
from script_input import run_main  # noqa: E402

FIRST = ""  # cells.csv and SCORE.md: the first score; a later one is cells-WORD.csv and SCORE-WORD.md


def read_cells(path):
    """The cells of one score as gated_study.py's cells_of made them (what its scoring reads)."""
    cells = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            c = {k: number(r[k]) for k in ("duty", "predicted", "low", "high", "measured", "err", "naive", "naive_err",
                                           "regime", "regime_err", "alone_err", "busy_err", "min", "max",
                                           "common_share")}
            c.update(program=r["program"], set=r["set"], mode=r["mode"], procs=int(r["procs"]), basis=r["basis"],
                     counted=r["counted"] == "True", runs=int(r["runs"]),
                     covered=None if r["covered"] == "" else r["covered"] == "True")
            c["busy"] = c["duty"] >= BUSY
            # As cells_of: each repeat as the predictor of the other.
            c["noise"] = [abs(error(c["min"], c["max"])), abs(error(c["max"], c["min"]))] if c["runs"] == 2 else []
            cells.append(c)
    if not cells:
        raise ValueError("%s holds no cell" % path)
    return cells


def scores_of(study):
    """[(word, cells.csv path, SCORE.md path)]: the first score, then the later ones by name."""
    found = []
    for name in sorted(os.listdir(study)):
        if name.startswith("cells") and name.endswith(".csv"):
            word = name[len("cells"):-len(".csv")]
            score = os.path.join(study, "SCORE%s.md" % word)
            if os.path.isfile(score):
                found.append((word, os.path.join(study, name), score))
    found.sort(key=lambda s: (s[0] != FIRST, s[0]))
    if not found or found[0][0] != FIRST:
        refuse("study_misses: %s holds no cells.csv beside SCORE.md (scripts/gated_study.py writes them)" % study)
    return found


def goal_lines(cells):
    held = [c for c in cells if c["set"] == "held-out"]
    _, busy = score_rows([c for c in held if c["busy"]], "")
    _, idle = score_rows([c for c in held if not c["busy"]], "")
    return goals(busy, idle), busy, idle


def score_goal_lines(path):
    """The goal lines of SCORE*.md's first "## Goals" section."""
    lines, inside = [], False
    for line in open(path).read().splitlines():
        if line.startswith("## Goals"):
            inside = True
            continue
        if inside and line.startswith("#"):
            break
        if inside and line.startswith("- "):
            lines.append(line)
    return lines


def short(line):
    """A goal line's name without its baselines' values, and its value and verdict with them: ("per unit,
    timeslice, beats naive and the regime model on the median", "11.5%, missed (49.5%, 4.8%)")."""
    name, _, said = line[2:].rpartition(": ")
    value = r" \((-|[0-9.]+%)\)"  # a baseline's median or the noise floor, not "(N-1)"
    values = re.findall(value, name)
    return re.sub(value, "", name), said + (" (%s)" % ", ".join(values) if values else "")


def missed(said, goal):
    """Whether a score's goal (its name without values, as short() gives it) was missed."""
    return said.get(goal, "").split(" (")[0].endswith("missed")


def cell_row(c):
    inside = "-" if c["covered"] is None else ("inside" if c["covered"] else
                                               ("measured above" if c["measured"] > c["high"] else "measured below"))
    return "| %s | %d | %s | %s | %s | %s-%s | %s |" % (
        c["program"], c["procs"], "%.4g" % c["predicted"], "%.4g" % c["measured"], pct(c["err"], True),
        "%.4g" % c["low"], "%.4g" % c["high"], inside)


CELL_HEAD = ["| program | N | predicted | measured | error | interval | measured against it |",
             "|---|---:|---:|---:|---:|---|---|"]


def by_program(cells, key):
    out = {}
    for c in cells:
        out.setdefault(c["program"], []).append(abs(c[key]))
    return ", ".join("%s %s (%d)" % (p, pct(quantile(v, 0.5)), len(v)) for p, v in sorted(out.items()))


def explain(cells, busy, idle, said):
    """The first score's misses, each with the cells behind it."""
    md = []
    held = [c for c in cells if c["set"] == "held-out" and c["counted"]]
    for mode in MODES:
        unit = sorted([c for c in held if c["busy"] and c["mode"] == mode and c["basis"] == "unit"],
                      key=lambda c: -abs(c["err"]))
        run = [c for c in held if c["busy"] and c["mode"] == mode and c["basis"] == "run"]
        u, r = busy[(mode, "unit")], busy[(mode, "run")]
        neg = sum(1 for c in unit if c["err"] < 0)
        head = "Held out, busy, per unit, %s: %d cells, %d of them predicted below the measurement (bias %s); " \
               "|error| per program (cells): %s." % (mode, len(unit), neg, pct(u["bias"], True),
                                                    by_program(unit, "err"))
        misses = []
        if missed(said, "per unit, %s, median <= %s" % (mode, pct(GOAL_MEDIAN[mode]))):
            past = [c for c in unit if abs(c["err"]) > GOAL_MEDIAN[mode]]
            misses.append("- **median %s, goal %s**: %d of %d cells lie past the goal (the table below, largest first)."
                          % (pct(u["median"]), pct(GOAL_MEDIAN[mode]), len(past), len(unit)))
        if missed(said, "per unit, %s, p90 <= %s" % (mode, pct(GOAL_P90))):
            past = [c for c in unit if abs(c["err"]) > GOAL_P90]
            misses.append("- **p90 %s, goal %s**: %d cells past %s: %s." % (
                pct(u["p90"]), pct(GOAL_P90), len(past), pct(GOAL_P90),
                "; ".join("%s N=%d %s" % (c["program"], c["procs"], pct(c["err"], True)) for c in past)))
        if missed(said, "per unit, %s, beats naive and the regime model on the median" % mode):
            for name, key, median in (("naive", "naive_err", "naive"), ("the regime model", "regime_err", "regime")):
                nearer = [c for c in unit if abs(c[key]) < abs(c["err"])]
                misses.append("- **beats %s**: %s's median %s against the simulator's %s; it came nearer on %d of %d "
                              "cells (%s)." % (name, name, pct(u[median]), pct(u["median"]), len(nearer),
                                               len(unit), "; ".join("%s N=%d %s against %s" % (
                                                   c["program"], c["procs"], pct(c[key], True), pct(c["err"], True))
                                                   for c in nearer) or "none"))
        if missed(said, "per unit, %s, coverage >= %s" % (mode, pct(GOAL_COVERAGE))):
            out = [c for c in unit if c["covered"] is False]
            above = sum(1 for c in out if c["measured"] > c["high"])
            misses.append("- **coverage %s, goal %s**: %d of %d cells outside their interval, %d of them measured "
                          "above it (more time a unit than the slowest draw predicted)." % (
                              pct(u["coverage"]), pct(GOAL_COVERAGE), len(out), len(unit), above))
        if missed(said, "per whole run, %s, beats as long as alone and alone + (N-1) busy on the median" % mode):
            nearer = [c for c in run if abs(c["busy_err"]) < abs(c["err"])]
            misses.append("- **per whole run, beats both baselines**: the simulator's median %s, as long as alone %s, "
                          "alone + (N-1) busy %s; the latter came nearer on %d of %d cells (%s)." % (
                              pct(r["median"]), pct(r["alone"]), pct(r["busy"]), len(nearer), len(run),
                              "; ".join("%s N=%d %s against %s" % (c["program"], c["procs"], pct(c["busy_err"], True),
                                                                  pct(c["err"], True)) for c in nearer) or "none"))
        md += ["### " + ("Time-sliced" if mode == "timeslice" else "MPS"), "", head, ""]
        md += (misses or ["- every goal met"]) + [""]
        if unit:
            md += CELL_HEAD + [cell_row(c) for c in unit] + [""]
    idle_cells = [c for c in held if not c["busy"] and c["basis"] == "unit"]
    md += ["### Busy under %s of the time" % pct(BUSY), ""]
    for mode in MODES:
        i = idle[(mode, "unit")]
        if missed(said, "busy under %s, per unit, %s, median within the noise floor + 5 points" % (pct(BUSY), mode)):
            mine = sorted([c for c in idle_cells if c["mode"] == mode], key=lambda c: -abs(c["err"]))
            md += ["- **%s: median %s, the floor %s + %s**: %d cells: %s." % (
                mode, pct(i["median"]), pct(i["noise"]), pct(NOISE_MARGIN), len(mine),
                "; ".join("%s N=%d %s (%s)" % (
                    c["program"], c["procs"], pct(c["err"], True),
                    "its two repeats %s apart" % pct(c["max"] / c["min"] - 1) if c["runs"] == 2 and c["min"] > 0
                    else "one repeat: no floor of its own") for c in mine))]
    return md


def main(argv):
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        refuse("study_misses: give one study folder (e.g. results/2026-12-02-study), got %s" % (" ".join(argv) or
                                                                                                "nothing"))
    study = argv[0]
    scores = scores_of(study)
    table, first = {}, None
    for word, cells_csv, score_md in scores:
        cells = read_cells(cells_csv)
        lines, busy, idle = goal_lines(cells)
        committed = score_goal_lines(score_md)
        if lines != committed:
            refuse("study_misses: %s's goals, computed again from %s, differ from what it says: %s" % (
                score_md, cells_csv, next((a for a, b in zip(lines, committed) if a != b), "a goal missing")))
        table[word] = (dict(short(x) for x in lines),
                       sorted({c["program"] for c in cells if c["set"] == "held-out" and c["busy"] and c["counted"]}))
        if word == FIRST:
            first = (cells, busy, idle, dict(short(x) for x in lines))
    names = [w or "first" for w, _, _ in scores]
    md = ["# The pre-registered study: each goal in every score, and the first score's misses in numbers", "",
          "Generated by `python3 scripts/study_misses.py %s` from the cells*.csv here, each score's goals computed "
          "again by scripts/gated_study.py's scoring and checked word for word against its SCORE*.md (do not edit by "
          "hand). The first score (SCORE.md) is the study's; the others were made after it, each on the programs "
          "whose runs alone's profiles were kept, and stand beside it." % study, "",
          "## Every goal, every score", "",
          "| goal | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for goal in table[FIRST][0]:
        md.append("| %s | %s |" % (goal, " | ".join(table[w][0].get(goal, "-") for w, _, _ in scores)))
    md.append("| held-out busy programs with a counted cell | %s |" % " | ".join(
        ", ".join(table[w][1]) or "none" for w, _, _ in scores))
    met = {w or "first": sum(v.split(" (")[0].endswith("met") for v in table[w][0].values()) for w, _, _ in scores}
    md += ["", "Goals met of %d: %s." % (len(table[FIRST][0]), ", ".join("%s %d" % (k, v) for k, v in met.items())),
           "", "## The first score's misses, cell by cell", ""]
    md += explain(*first)
    text = "\n".join(md).rstrip("\n") + "\n"
    with open(os.path.join(study, "MISSES.md"), "w") as f:
        f.write(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    run_main("study_misses.py", __doc__, lambda: main(sys.argv[1:]))
