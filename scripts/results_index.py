#!/usr/bin/env python3
"""Writes results/README.md: the reference folders a user compares with (one per GPU and scenario, the ones the
README and docs cite), then every other folder of results/ as the evidence it is, each with its GPU and
first line (its README's title, or its report's headline).

    python3 scripts/results_index.py            # write results/README.md
    python3 scripts/results_index.py --check    # exit 1, naming the difference, when results/README.md is not what
                                                # this would write (a test runs this: a new folder must be indexed)
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "results")
INDEX = os.path.join(RESULTS, "README.md")

# (GPU, what it answers, folder): the folder a user compares a run of that kind with, or reads for that finding.
REFERENCES = [
    ("H100", "the default sweep (`scripts/run.sh --procs 1,4,10`), today's plan: compare yours with it",
     "2026-11-27-h100-80gb-hbm3"),
    ("H100", "the default sweep, five repeats each (the earlier plan; docs/FINDINGS.md)", "2026-11-24-h100-80gb-hbm3"),
    ("H200", "the default sweep (five repeats)", "2026-11-22-h200"),
    ("H100", "seed 001 at its own point (`--mlp-profile seed001`)", "2026-11-26-h100-80gb-hbm3-seed001"),
    ("H200", "seed 001's profile and the PyTorch reference client", "2026-11-22-h200-seed001"),
    ("H100", "the regime map and the time-slice X-ray (`--scenario regimes`)", "2026-11-26-h100-80gb-hbm3-regimes"),
    ("H100", "interference: one job beside noisy neighbours", "2026-11-24-h100-80gb-hbm3-interference"),
    ("H100", "fault isolation", "2026-11-24-h100-80gb-hbm3-fault"),
    ("H100", "streams, threads, green contexts, membw, the filler, memory limits", "2026-11-24-h100-80gb-hbm3-mechanisms"),
    ("H100", "active-thread limits", "2026-11-22-h100-80gb-hbm3-active-thread-limits"),
    ("H100", "conform, three cards", "2026-11-27-conform-intervals"),
    ("H100", "advise with intervals, six programs on two leases each", "2026-11-27-advise-intervals"),
    ("H100", "two programs side by side (`advise --beside`)", "2026-11-27-beside"),
    ("H100", "the prediction study (`bench_mps predict`, ten zoo programs)", "2026-11-27-predict-study"),
    ("2 x H200", "several GPUs of one host (`--gpus all`, two `--device` sweeps)", "2026-11-26-h200x2"),
]


def first_line(folder):
    for name in ("README.md", "INDEX.md", "STUDY.md", "report.md"):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                line = f.readline().strip().lstrip("# ").replace("|", "/")
            return name, (line if len(line) <= 150 else line[:147] + "...")
    return None, "-"


def gpu_of(folder):
    path = os.path.join(folder, "meta.json")
    if not os.path.isfile(path):
        return "-"
    try:
        with open(path, encoding="utf-8") as f:
            gpu = json.load(f).get("gpu") or {}
        return gpu.get("name") or "-"
    except (OSError, ValueError):
        return "-"


def render():
    folders = sorted(d for d in os.listdir(RESULTS) if os.path.isdir(os.path.join(RESULTS, d)))
    missing = [f for _, _, f in REFERENCES if f not in folders]
    if missing:
        raise SystemExit("results_index.py: reference folder(s) not in results/: " + ", ".join(missing))
    out = ["# results/", "",
           "Written by `python3 scripts/results_index.py` (a test checks it is current). Each folder holds real runs "
           "with their `meta.json` (GPU, driver, build, command line); a folder's README names the commands that made it.",
           "", "## References", "",
           "What a user compares with or reads first, one per GPU and question.", "",
           "| GPU | what | folder |", "|---|---|---|"]
    for gpu, what, folder in REFERENCES:
        name, _ = first_line(os.path.join(RESULTS, folder))
        out.append("| %s | %s | [%s](%s/%s) |" % (gpu, what, folder, folder, name or ""))
    refs = {f for _, _, f in REFERENCES}
    out += ["", "## Evidence", "",
            "Lease-by-lease runs, comparisons, device logs and earlier builds: what the references and the docs' "
            "findings were checked against. `seeds.csv` holds the seed articles' numbers.", "",
            "| folder | GPU | what |", "|---|---|---|"]
    for folder in folders:
        if folder in refs:
            continue
        path = os.path.join(RESULTS, folder)
        name, line = first_line(path)
        link = "[%s](%s/%s)" % (folder, folder, name) if name else folder
        out.append("| %s | %s | %s |" % (link, gpu_of(path), line))
    return "\n".join(out) + "\n"


def main(argv):
    if argv in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if argv not in ([], ["--check"]):
        print("results_index.py: takes no argument but --check (got %s); nothing was written" % " ".join(argv),
              file=sys.stderr)
        return 2
    text = render()
    if argv == ["--check"]:
        current = open(INDEX, encoding="utf-8").read() if os.path.isfile(INDEX) else ""
        if current != text:
            print("results_index.py: results/README.md is not current (a folder added, removed or retitled): "
                  "run python3 scripts/results_index.py")
            return 1
        print("results_index.py: results/README.md is current")
        return 0
    with open(INDEX, "w", encoding="utf-8") as f:
        f.write(text)
    print("results_index.py: wrote results/README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
