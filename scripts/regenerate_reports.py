#!/usr/bin/env python3
"""Re-renders every committed report with the current build, so none is stale.

    /usr/bin/python3 scripts/regenerate_reports.py [BUILD_DIR]   (default: build)

- results folders that hold a report.md: `bench_mps report DIR`;
- comparison folders (comparison.json): `bench_mps compare BASE NEW` again with the options the file
  records (metric, threshold, alpha; --allow-different-gpu when the GPU models differ), into a fresh
  folder that then replaces the old files, and `bench_mps report` over it; a comparison made before
  compare recorded its "statistic" (the Mann-Whitney test over repeats, before 2026-11-26's worker-set
  statistic) keeps its verdicts, which the results' READMEs quote: only `bench_mps report` over it;
- the duty-cycle folder: the command its meta.json records;
- advise folders (advice.json): `bench_mps advise --redo DIR` (the advice again from DIR's sweeps);
- then README.md's table and plots/ (scripts/update_readme.py).
Prints one line per folder; exits 1 if any step failed (the others still run).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        print("  failed ({}): {}".format(done.returncode, (done.stderr or done.stdout).strip().splitlines()[-1:]))
    return done.returncode == 0


def recompare(bench, folder):
    with open(os.path.join(ROOT, folder, "comparison.json"), encoding="utf-8") as f:
        info = json.load(f)
    cmd = [bench, "compare", info["base"], info["new"], "--metric", info["metric"],
           "--threshold", str(info["threshold"]), "--alpha", str(info["alpha"])]
    names = [d for d in info.get("metadata_diff", []) if d.get("key") == "gpu.name"]
    if info.get("allow_different_gpu") or any(d.get("differs") for d in names):
        cmd.append("--allow-different-gpu")
    if info.get("ignore_params"):
        cmd.append("--ignore-params")
    scratch = tempfile.mkdtemp(prefix="recompare-")
    out = os.path.join(scratch, "out")
    try:
        cmd += ["--out", out]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if done.returncode not in (0, 1) or not os.path.exists(os.path.join(out, "comparison.json")):
            print("  compare failed ({}): {}".format(done.returncode, done.stderr.strip()))
            return False
        with open(os.path.join(out, "comparison.json"), encoding="utf-8") as f:
            paired = len(json.load(f)["pairs"])
        if paired < len(info["pairs"]):  # an option it was made with is not recorded: keep the old files
            print("  kept the old files: {} pairs now against {} before ({})".format(
                paired, len(info["pairs"]), " ".join(cmd[1:])))
            return False
        for name in os.listdir(out):
            shutil.copy(os.path.join(out, name), os.path.join(ROOT, folder, name))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return run([bench, "report", folder])


def main(argv):
    build = argv[1] if len(argv) > 1 else "build"
    bench = os.path.join(ROOT, build, "harness", "bench_mps")
    if not os.access(bench, os.X_OK):
        print("regenerate_reports.py: {} not found: build first (scripts/build.sh)".format(bench), file=sys.stderr)
        return 2
    ok = True
    for dirpath, _dirs, files in sorted(os.walk(os.path.join(ROOT, "results"))):
        folder = os.path.relpath(dirpath, ROOT)
        if "advice.json" in files:
            print(folder + ": advise --redo")
            ok &= run([bench, "advise", "--redo", folder])
        elif "comparison.json" in files:
            with open(os.path.join(dirpath, "comparison.json"), encoding="utf-8") as f:
                current = "statistic" in json.load(f)
            with open(os.path.join(dirpath, "comparison.json"), encoding="utf-8") as f:
                info = json.load(f)
            # A comparison made on another machine names folders that were not committed: its verdicts stay.
            absent = [p for p in (info.get("base", ""), info.get("new", "")) if not os.path.isdir(os.path.join(ROOT, p))]
            if current and absent:
                print(folder + ": report (its inputs are not in the tree: {}; its verdicts kept)".format(", ".join(absent)))
                ok &= run([bench, "report", folder])
                continue
            print(folder + (": compare + report" if current else ": report (an earlier statistic's verdicts, kept)"))
            ok &= recompare(bench, folder) if current else run([bench, "report", folder])
        elif "duty_cycle.csv" in files:
            with open(os.path.join(dirpath, "meta.json"), encoding="utf-8") as f:
                command = json.load(f)["command"]
            print(folder + ": " + " ".join(command))
            ok &= run(["/usr/bin/python3"] + command[1:])
        elif "report.md" in files and ("summary.csv" in files or "index.json" in files):
            print(folder + ": report")
            ok &= run([bench, "report", folder])
    print("README.md and plots/: scripts/update_readme.py")
    ok &= run(["/usr/bin/python3", "scripts/update_readme.py"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
