#!/usr/bin/env python3
"""The pre-registered prediction study on the gated ladder (issue 45 item 6; docs/PREDICT.md "The pre-registered
study"): every program's predictions scored against N copies that ran together, every cell counted.

    python3 scripts/gated_study.py STUDY [--bench build/harness/bench_mps]

STUDY holds xray/ (bench_mps --scenario xray, on the GPU of the ladders) and one folder per program,
PROGRAM/ladder: `bench_mps --workloads exec --command "zoo/run.sh PROGRAM" --procs 1,2,4,10 --modes timeslice,mps
--repeats 2 --exec-gate steady --profile-gpu` (its runs alone, three per mode, inside it; its units.csv from
`bench_mps predict --measure`), and PROGRAM/predict: `bench_mps predict PROGRAM/ladder --xray xray --procs 2,4,10
--against PROGRAM/ladder --label PROGRAM --out PROGRAM/predict` (made where the profiles were; with --bench and the
profiles still in the ladder it is made again here). It writes STUDY/cells.csv (every cell) and STUDY/SCORE.md.
A program whose ladder was committed elsewhere (the same sweep, run by another step) has, instead of PROGRAM/ladder,
a file PROGRAM/LADDER holding that folder's path relative to PROGRAM (where to read it from; no rule below depends
on it).

Fixed before the first held-out ladder ran (the commit that adds this file; nothing here may change after a
held-out score without a second score beside the first):
- CALIBRATION: the five programs the simulator's choices were made on (issue 33's study). Every other program is
  held out, including programs that join the zoo later.
- A cell (per unit and per whole run alike) counts only where it measured N copies at once: every copy of every ok
  run co-ran (predict.csv's common_share 1 and a measured value); the others are listed, counted and left out of
  every score.
- Programs busy at least BUSY of the time alone (the alone run that stands for the program, predict.json's duty)
  are scored against the goals; the others apart, against their noise floor.
- Per mode and basis: the median |error|, the p90, the signed bias (median error), a 90 % interval of the median
  by resampling programs (BOOTSTRAP resamples, seed SEED), the noise floor (each repeat as the predictor of the
  other), coverage (the measurement inside the simulator's interval), naive and the regime model beside; per whole
  run also the two trivial baselines: as long as alone, and alone + (N-1) x its GPU busy time.
- Goals (issue 45): held-out busy programs per unit median <= 10 % time-sliced and <= 15 % MPS, p90 <= 25 %, both
  baselines beaten on the median, coverage >= 80 %; busy under BUSY: median within the noise floor + 5 points;
  per whole run: both trivial baselines beaten on the median in each mode.
"""
import argparse
import csv
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from predict_study import error, number, pct, quantile  # noqa: E402  (one definition of each, shared)

CALIBRATION = ["gemm", "membw", "mnist", "paced-infer", "wlm-transformer"]
BUSY = 0.10
BOOTSTRAP = 2000
SEED = 45
MODES = ["timeslice", "mps"]
BASES = ["unit", "run"]
GOAL_MEDIAN = {"timeslice": 0.10, "mps": 0.15}
GOAL_P90 = 0.25
GOAL_COVERAGE = 0.80
NOISE_MARGIN = 0.05


def ladder_of(study, program):
    """PROGRAM/ladder, or the folder PROGRAM/LADDER names (relative to PROGRAM); None where neither is."""
    here = os.path.join(study, program, "ladder")
    if os.path.isdir(here):
        return here
    pointer = os.path.join(study, program, "LADDER")
    if os.path.isfile(pointer):
        with open(pointer) as f:
            there = os.path.normpath(os.path.join(study, program, f.read().strip()))
        if not os.path.isfile(os.path.join(there, "units.csv")):
            refuse("gated_study: %s names %s, which holds no units.csv" % (pointer, there))
        return there
    return None


def programs_of(study):
    return sorted(p for p in os.listdir(study) if ladder_of(study, p))


def has_profiles(ladder):
    return os.path.isdir(os.path.join(ladder, "profiles"))


def alone_profiles_kept(ladder):
    return os.path.isfile(os.path.join(ladder, "alone-profiles.tar.xz"))


def refuse(message):
    """Bad input: one line on stderr and exit 2, as argparse does for a bad command line (a failed step exits 1)."""
    print(message, file=sys.stderr)
    sys.exit(2)


def predict_from_kept_profiles(bench, study, program, folder, extra):
    """Predicts again from the ladder's kept runs alone's profiles (ladder/alone-profiles.tar.xz), unpacked into the
    ladder for the call and removed after."""
    ladder = ladder_of(study, program)
    unpacked = os.path.join(ladder, "profiles")
    if os.path.exists(unpacked):
        refuse("gated_study: %s already holds profiles/: not unpacking over it" % ladder)
    with tarfile.open(os.path.join(ladder, "alone-profiles.tar.xz")) as t:
        t.extractall(ladder, filter="data")
    try:
        predict_again(bench, study, program, folder, extra)
    finally:
        shutil.rmtree(unpacked)


def predict_again(bench, study, program, folder="predict", extra=()):
    out = os.path.join(study, program, folder)
    ladder = ladder_of(study, program)
    tmp = out + ".new"
    cmd = [bench, "predict", ladder, "--xray", os.path.join(study, "xray"), "--procs", "2,4,10", "--against", ladder,
           "--label", program, "--out", tmp] + list(extra)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("gated_study: %s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    if os.path.isdir(out):
        for f in os.listdir(out):
            os.remove(os.path.join(out, f))
        os.rmdir(out)
    os.rename(tmp, out)


def cells_of(study, program, folder="predict"):
    out = os.path.join(study, program, folder)
    with open(os.path.join(out, "predict.json")) as f:
        meta = json.load(f)
    alone = next(a for a in meta["alone_runs"] if a["stands_for_program"])
    cells = []
    with open(os.path.join(out, "predict.csv")) as f:
        rows = list(csv.DictReader(f))
    # The share of copies co-run is written on a cell's unit row; its whole-run row is of the same runs.
    shares = {(r["mode"], r["procs"]): number(r["common_share"]) for r in rows if r["basis"] == "unit"}
    for r in rows:
        n = int(r["procs"])
        c = {"program": program, "set": "calibration" if program in CALIBRATION else "held-out",
             "busy": alone["duty"] >= BUSY, "duty": alone["duty"], "mode": r["mode"], "procs": n,
             "basis": r["basis"], "predicted": number(r["predicted"]), "measured": number(r["measured"]),
             "low": number(r["predicted_low"]), "high": number(r["predicted_high"]), "naive": number(r["naive"]),
             "regime": number(r["regime"]), "runs": int(r["runs"]), "min": number(r["measured_min"]),
             "max": number(r["measured_max"]), "common_share": shares.get((r["mode"], r["procs"]), math.nan)}
        # A cell counts, per unit and per whole run alike, where every copy of every ok run co-ran (N copies at
        # once: their steady parts overlapped).
        c["counted"] = math.isfinite(c["measured"]) and c["runs"] > 0 and c["common_share"] == 1
        c["err"] = error(c["predicted"], c["measured"])
        c["naive_err"] = error(c["naive"], c["measured"])
        c["regime_err"] = error(c["regime"], c["measured"])
        c["covered"] = (c["low"] <= c["measured"] <= c["high"]) if c["counted"] and math.isfinite(c["low"]) else None
        # Each repeat as the predictor of the other (two repeats: their least and largest).
        c["noise"] = [abs(error(c["min"], c["max"])), abs(error(c["max"], c["min"]))] if c["runs"] == 2 else []
        if c["basis"] == "run":
            c["alone_err"] = error(alone["run_s"], c["measured"])
            c["busy_err"] = error(alone["run_s"] + (n - 1) * alone["gpu_busy_s"], c["measured"])
        else:
            c["alone_err"] = c["busy_err"] = float("nan")
        cells.append(c)
    return cells


def median_over(cells, key):
    v = [abs(c[key]) for c in cells if math.isfinite(c[key])]
    return quantile(v, 0.5)


def bootstrap_median(cells, key):
    """A 90 % interval of the median |error|, resampling programs (their cells together)."""
    by = {}
    for c in cells:
        if math.isfinite(c[key]):
            by.setdefault(c["program"], []).append(abs(c[key]))
    names = sorted(by)
    if not names:
        return float("nan"), float("nan")
    rng = random.Random(SEED)
    meds = []
    for _ in range(BOOTSTRAP):
        v = [x for p in (rng.choice(names) for _ in names) for x in by[p]]
        meds.append(quantile(v, 0.5))
    return quantile(meds, 0.05), quantile(meds, 0.95)


def score_rows(cells, title):
    lines = ["## " + title, "",
             "| mode | basis | cells counted | not counted | median | 90 % interval (programs) | p90 | bias | coverage | "
             "noise floor | naive median | regime median | as long as alone | alone + (N-1) busy |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    verdicts = {}
    for mode in MODES:
        for basis in BASES:
            sel = [c for c in cells if c["mode"] == mode and c["basis"] == basis]
            got = [c for c in sel if c["counted"]]
            lo, hi = bootstrap_median(got, "err")
            cov = [c["covered"] for c in got if c["covered"] is not None]
            noise = quantile([x for c in got for x in c["noise"] if math.isfinite(x)], 0.5)
            row = {"median": median_over(got, "err"), "p90": quantile([abs(c["err"]) for c in got
                                                                       if math.isfinite(c["err"])], 0.9),
                   "bias": quantile([c["err"] for c in got if math.isfinite(c["err"])], 0.5),
                   "coverage": sum(cov) / len(cov) if cov else float("nan"), "noise": noise,
                   "naive": median_over(got, "naive_err"), "regime": median_over(got, "regime_err"),
                   "alone": median_over(got, "alone_err"), "busy": median_over(got, "busy_err"), "cells": len(got)}
            verdicts[(mode, basis)] = row
            interval = "-" if not math.isfinite(lo) else "%s-%s" % (pct(lo), pct(hi))
            lines.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                mode, basis, len(got), len(sel) - len(got), pct(row["median"]), interval, pct(row["p90"]),
                pct(row["bias"], True), "-" if not cov else "%d of %d" % (sum(cov), len(cov)), pct(noise),
                pct(row["naive"]), pct(row["regime"]), pct(row["alone"]), pct(row["busy"])))
    return lines, verdicts


def goals(busy, idle):
    """Each goal of issue 45 against the held-out scores: met, missed, or not decided (no cell)."""
    out = []

    def say(name, value, ok):
        out.append("- %s: %s" % (name, "no cell counted" if not math.isfinite(value) else
                                  "%s, %s" % (pct(value), "met" if ok else "missed")))
    for mode in MODES:
        u, r = busy[(mode, "unit")], busy[(mode, "run")]
        say("per unit, %s, median <= %s" % (mode, pct(GOAL_MEDIAN[mode])), u["median"], u["median"] <= GOAL_MEDIAN[mode])
        say("per unit, %s, p90 <= %s" % (mode, pct(GOAL_P90)), u["p90"], u["p90"] <= GOAL_P90)
        say("per unit, %s, beats naive (%s) and the regime model (%s) on the median" % (
            mode, pct(u["naive"]), pct(u["regime"])), u["median"], u["median"] < u["naive"] and u["median"] < u["regime"])
        say("per unit, %s, coverage >= %s" % (mode, pct(GOAL_COVERAGE)), u["coverage"], u["coverage"] >= GOAL_COVERAGE)
        say("per whole run, %s, beats as long as alone (%s) and alone + (N-1) busy (%s) on the median" % (
            mode, pct(r["alone"]), pct(r["busy"])), r["median"], r["median"] < r["alone"] and r["median"] < r["busy"])
        i = idle[(mode, "unit")]
        say("busy under %s, per unit, %s, median within the noise floor (%s) + 5 points" % (
            pct(BUSY), mode, pct(i["noise"])), i["median"], i["median"] <= i["noise"] + NOISE_MARGIN)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description="the pre-registered prediction study on the gated ladder, scored")
    ap.add_argument("study")
    ap.add_argument("--bench", help="bench_mps, to predict again where a ladder still holds its profiles")
    ap.add_argument("--host-calibration", metavar="DIR",
                    help="a later score (issue 45 item 3): every program predicted again with predict "
                         "--host-calibration DIR into PROGRAM/predict-host, scored into cells-host.csv and "
                         "SCORE-host.md; the first score (predict/, cells.csv, SCORE.md, meta.json) is left as it is")
    ap.add_argument("--mps-calibration", metavar="DIR",
                    help="a later score (issue 45 item 2): predicted again with predict --mps-calibration DIR, into "
                         "PROGRAM/predict-mps, cells-mps.csv and SCORE-mps.md (both calibrations: -host-mps)")
    ap.add_argument("--all-draws", action="store_true",
                    help="a later score (issue 45 items 1 and 5): predicted again with predict --draws all (every "
                         "run alone's trace replayed, the median of their ratios), into PROGRAM/predict-draws, "
                         "cells-draws.csv and SCORE-draws.md (after the calibrations' suffix where given)")
    ap.add_argument("--score-name", metavar="WORD",
                    help="a later score of the same calibrations by a changed model: its files get -WORD after the "
                         "calibrations' suffix (PROGRAM/predict-mps-WORD, cells-mps-WORD.csv, SCORE-mps-WORD.md), "
                         "so the earlier score stays beside it")
    a = ap.parse_args(argv[1:])
    if a.score_name is not None and not re.fullmatch(r"[a-z0-9]+", a.score_name):
        refuse("gated_study: --score-name %r: lower-case letters and digits" % a.score_name)
    if not os.path.isdir(a.study):
        refuse("gated_study: %s is not a folder (a study: PROGRAM/ladder under it)" % a.study)
    programs = programs_of(a.study)
    if not programs:
        refuse("gated_study: %s holds no PROGRAM/ladder" % a.study)
    # Each later-score option given: what it adds to predict's command, its name in the files' names, this
    # script's own option that asked for it, its name in SCORE's heading, and what it does in words.
    calibrations = [c[1:] for c in (
        (a.host_calibration, ["--host-calibration", a.host_calibration], "host",
         ["--host-calibration", a.host_calibration], "the host calibration",
         "the copies' host stretched by how N copies slowed a host loop on the GPU's machine"),
        (a.mps_calibration, ["--mps-calibration", a.mps_calibration], "mps", ["--mps-calibration", a.mps_calibration],
         "the MPS contention calibration",
         "kernels running together under MPS slowed beyond their shares as synthetic shapes were on the GPU"),
        (a.all_draws, ["--draws", "all"], "draws", ["--all-draws"], "every run alone replayed",
         "every run alone replayed from its own trace, a cell the median of the runs' ratios to their own unit alone "
         "times the run that stands for the program, its interval their spread")) if c[0]]
    if calibrations and not a.bench:
        refuse("gated_study: %s predicts again: give --bench too" % calibrations[0][2][0])
    if a.score_name and not calibrations:
        refuse("gated_study: --score-name names a later score: give --host-calibration, --mps-calibration or "
               "--all-draws too")
    suffix = "".join("-" + c[1] for c in calibrations) + ("-" + a.score_name if a.score_name else "")
    folder = "predict" + suffix
    calibrated = [x for c in calibrations for x in c[0]]
    cells, first, again, not_again = [], [], [], []
    for p in programs:
        ladder = ladder_of(a.study, p)
        if calibrations:
            # A later score covers the programs whose runs alone's profiles were kept; beside it the first score of
            # the same programs (cells.csv's), so the two are over the same cells.
            # Beside both, the same programs predicted again by this build without the calibration (predict-again/):
            # what the calibration changes, apart from what the code changed since the first score.
            if not (has_profiles(ladder) or alone_profiles_kept(ladder)):
                not_again.append(p)
                continue
            for f, extra in ((folder, calibrated), ("predict-again", [])):
                if has_profiles(ladder):
                    predict_again(a.bench, a.study, p, f, extra)
                else:
                    predict_from_kept_profiles(a.bench, a.study, p, f, extra)
            first += cells_of(a.study, p)
            again += cells_of(a.study, p, "predict-again")
        elif a.bench and has_profiles(ladder):
            predict_again(a.bench, a.study, p)
        cells += cells_of(a.study, p, folder)
    # The folder's meta.json: what the study is and where its numbers come from (the device's from the X-ray's).
    with open(os.path.join(a.study, "xray", "meta.json")) as f:
        xmeta = json.load(f)
    meta = {"kind": "gated-study", "generated_by": "python3 scripts/gated_study.py " + a.study, "programs": programs,
            "calibration": CALIBRATION, "busy": BUSY, "procs": [2, 4, 10], "modes": MODES, "repeats": 2,
            "gpu": xmeta.get("gpu"), "started_utc": xmeta.get("started_utc"),
            "files": {"cells.csv": "every cell: predicted against measured, counted or not, beside the baselines",
                      "SCORE.md": "the scores per mode and basis, and each goal met, missed or not decided"}}
    if not calibrations:
        with open(os.path.join(a.study, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, sort_keys=True)
            f.write("\n")
    with open(os.path.join(a.study, "cells%s.csv" % suffix), "w", newline="") as f:
        w = csv.writer(f)
        keys = ["program", "set", "duty", "mode", "procs", "basis", "counted", "predicted", "low", "high", "measured",
                "err", "covered", "naive", "naive_err", "regime", "regime_err", "alone_err", "busy_err", "runs", "min",
                "max", "common_share"]
        w.writerow(keys)
        for c in cells:
            w.writerow(["%.6g" % c[k] if isinstance(c[k], float) else ("" if c[k] is None else c[k]) for k in keys])
    held = [c for c in cells if c["set"] == "held-out"]
    busy_lines, busy = score_rows([c for c in held if c["busy"]], "Held out, busy at least %s of the time" % pct(BUSY))
    idle_lines, idle = score_rows([c for c in held if not c["busy"]], "Held out, busy under %s" % pct(BUSY))
    cal_lines, _ = score_rows([c for c in cells if c["set"] == "calibration"], "Calibration programs")
    given = [x for c in calibrations for x in c[2]]  # this script's own options (--all-draws, not --draws all)
    how = " ".join(["python3 scripts/gated_study.py", a.study] + (["--bench", a.bench] + given if calibrations
                                                                    else []) +
                   (["--score-name", a.score_name] if a.score_name else []))
    named = " and ".join(c[3] for c in calibrations)
    md = ["# The pre-registered study on the gated ladder: " +
          ("a later score, with " + named if calibrations else "scored"), "",
          "Generated by `%s` from the committed folders here (do not edit by hand). "
          "Error: predicted over measured, less 1. A cell counts where every copy of its runs co-ran." % how,
          ""]
    if calibrations:
        md += ["Each program predicted again with `predict %s` (into PROGRAM/%s): %s (docs/PREDICT.md). The first "
               "score, SCORE.md, stands; this one is beside it (issue 45: a later fix is a later score, the first "
               "kept)." % (" ".join(calibrated), folder, "; ".join(c[4] for c in calibrations)), ""]
    md += ["Programs: %s. Held out: %s." % (", ".join(programs),
                                            ", ".join(sorted({c["program"] for c in held})) or "none"), ""]
    md += busy_lines + [""] + idle_lines + [""] + cal_lines + ["", "## Goals (held out)", ""] + goals(busy, idle)
    without = "without " + (" ".join(calibrated) if a.all_draws else "the calibration")
    if calibrations:
        md += ["", "Not predicted again (their runs alone's profiles were not kept): %s." % (", ".join(not_again) or
                                                                                            "none")]
        for name, group in (("the first score of the same programs (predict/, SCORE.md's cells)", first),
                            ("the same programs predicted again by this build %s (predict-again/)" % without,
                             again)):
            held_g = [c for c in group if c["set"] == "held-out"]
            gbusy_lines, gbusy = score_rows([c for c in held_g if c["busy"]],
                                            "Beside it, %s: held out, busy at least %s of the time" % (name, pct(BUSY)))
            gidle_lines, gidle = score_rows([c for c in held_g if not c["busy"]],
                                            "Beside it, %s: held out, busy under %s" % (name, pct(BUSY)))
            md += [""] + gbusy_lines + [""] + gidle_lines + ["", "### Goals (held out), " + name, ""] + goals(gbusy,
                                                                                                          gidle)
    md += ["", "## Cells not counted (not co-run, or not measured; listed per unit, the whole run's alike)", ""]
    left = [c for c in cells if c["basis"] == "unit" and not c["counted"]]
    md += ["- %s %s N=%d (copies co-run %s)" % (c["program"], c["mode"], c["procs"], pct(c["common_share"]))
           for c in left] or ["none"]
    with open(os.path.join(a.study, "SCORE%s.md" % suffix), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
