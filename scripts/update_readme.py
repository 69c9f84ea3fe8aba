#!/usr/bin/env python3
"""Copies the reference run's table and figures into README.md and plots/, so they cannot drift.

    python3 scripts/update_readme.py

- README.md: the block between `<!-- table: <report.md> -->` and `<!-- /table -->` becomes the
  "Per workload, mode and N" table of that report.md (a test checks they are equal);
- plots/h100_*.png: copies of the reference run's and the duty-cycle map's figures.
scripts/regenerate_reports.py runs it after re-rendering the reports.
"""
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURES = {
    "plots/h100_relative_task_time.png": "results/2026-11-24-h100-80gb-hbm3/plots/relative_task_time.png",
    "plots/h100_throughput.png": "results/2026-11-24-h100-80gb-hbm3/plots/throughput.png",
    "plots/h100_interference.png": "results/2026-11-24-h100-80gb-hbm3-interference/plots/interference.png",
    "plots/h100_duty_cycle.png": "results/2026-11-22-h100-80gb-hbm3-duty-cycle/duty_cycle.png",
}
SECTION = "## Per workload, mode and N"


def report_table(report_md):
    """The markdown table of the report's SECTION (its lines starting with '|')."""
    with open(os.path.join(ROOT, report_md), encoding="utf-8") as f:
        text = f.read()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start:end if end >= 0 else len(text)]
    return "\n".join(line for line in section.splitlines() if line.startswith("|")) + "\n"


def main():
    readme_path = os.path.join(ROOT, "README.md")
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    pattern = re.compile(r"(<!-- table: (\S+) -->\n)(.*?)(<!-- /table -->)", re.S)
    if not pattern.search(readme):
        print("update_readme.py: README.md has no <!-- table: REPORT --> block", file=sys.stderr)
        return 2
    readme = pattern.sub(lambda m: m.group(1) + report_table(m.group(2)) + m.group(4), readme)
    with open(readme_path, "w", encoding="utf-8") as f:
        f.write(readme)
    for target, source in FIGURES.items():
        shutil.copyfile(os.path.join(ROOT, source), os.path.join(ROOT, target))
    print("README.md table and plots/ updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
