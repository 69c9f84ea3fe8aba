#!/usr/bin/env python3
"""Copies the reference run's table and figures into README.md and plots/, and the blocks of the documents in
DOCS (docs/PREDICT.md, docs/ADVISE.md), so they cannot drift.

    python3 scripts/update_readme.py

- README.md: every block between `<!-- table: <report.md> -->` and `<!-- /table -->` becomes the
  "Per workload, mode and N" table of that report.md (`<!-- table: <report.md> | <section> -->`: the
  table of that section instead), and every block between `<!-- headline: <report.md> -->` and
  `<!-- /headline -->` the report's first line, its one-sentence summary, and every block between
  `<!-- advice: <advice.md> -->` and `<!-- /advice -->` that advice's headline, quoted. A test (Readme.*) checks
  that every such block equals what this script would write, so no result in them is typed by hand;
- plots/h100_*.png: copies of the reference run's, the regime map's and the X-ray's figures.
scripts/regenerate_reports.py runs it after re-rendering the reports.
"""
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURES = {
    "plots/h100_relative_task_time.png": "results/2026-11-27-h100-80gb-hbm3/plots/relative_task_time.png",
    "plots/h100_throughput.png": "results/2026-11-27-h100-80gb-hbm3/plots/throughput.png",
    "plots/h100_interference.png": "results/2026-11-24-h100-80gb-hbm3-interference/plots/interference.png",
    "plots/h100_regime_map.png": "results/2026-11-26-h100-80gb-hbm3-regimes/plots/regime_map.png",
    "plots/h100_xray.png": "results/2026-11-26-h100-80gb-hbm3-regimes/plots/xray.png",
}
SECTION = "Per workload, mode and N"
DOCS = ["docs/PREDICT.md", "docs/ADVISE.md", "docs/FINDINGS.md"]  # documents with generated blocks too (the same test checks them)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def report_table(spec):
    """The markdown table of a report's section: `report.md` (SECTION) or `report.md | Section`."""
    report_md, _, section = (part.strip() for part in spec.partition("|"))
    text = read(report_md)
    heading = "## " + (section or SECTION)
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    body = text[start:end if end >= 0 else len(text)]
    return "\n".join(line for line in body.splitlines() if line.startswith("|")) + "\n"


def report_headline(report_md):
    """The report's first line: its one-sentence summary."""
    return read(report_md.strip()).split("\n", 1)[0] + "\n"


def advice_headline(advice_md):
    """An advice.md's headline (its bold line), quoted."""
    for line in read(advice_md.strip()).splitlines():
        if line.startswith("**") and line.endswith("**"):
            return "> " + line + "\n"
    raise SystemExit("update_readme.py: %s has no headline" % advice_md)


BLOCKS = [
    (re.compile(r"(<!-- table: ([^\n]+?) -->\n)(.*?)(<!-- /table -->)", re.S), report_table),
    (re.compile(r"(<!-- headline: ([^\n]+?) -->\n)(.*?)(<!-- /headline -->)", re.S), report_headline),
    (re.compile(r"(<!-- advice: ([^\n]+?) -->\n)(.*?)(<!-- /advice -->)", re.S), advice_headline),
]


def main():
    readme_path = os.path.join(ROOT, "README.md")
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    if not BLOCKS[0][0].search(readme):
        print("update_readme.py: README.md has no <!-- table: REPORT --> block", file=sys.stderr)
        return 2
    for pattern, render in BLOCKS:
        readme = pattern.sub(lambda m, render=render: m.group(1) + render(m.group(2)) + m.group(4), readme)
    with open(readme_path, "w", encoding="utf-8") as f:
        f.write(readme)
    for doc in DOCS:  # the same blocks in the documents that quote results
        path = os.path.join(ROOT, doc)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for pattern, render in BLOCKS:
            text = pattern.sub(lambda m, render=render: m.group(1) + render(m.group(2)) + m.group(4), text)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    for target, source in FIGURES.items():
        shutil.copyfile(os.path.join(ROOT, source), os.path.join(ROOT, target))
    print("README.md table and plots/ updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
