#!/usr/bin/env python3
"""The co-run length study's README quotes what scripts/corun_length.py prints on its committed folder; this runs it
again and fails on any printed line the README does not hold (the numbers recompute from the committed profiles).

    python3 tests/docs/corun_length_recomputes.py ROOT
"""
import subprocess
import sys


def main(root):
    folder = "results/2026-12-03-corun-length"
    printed = subprocess.run(
        [sys.executable, "scripts/corun_length.py", "--swings", "95", "--k", "1,2", folder + "/mnist-4x"],
        cwd=root, check=True, capture_output=True, text=True).stdout
    readme = open(f"{root}/{folder}/README.md", encoding="utf-8").read()
    missing = [line for line in printed.splitlines() if line.strip() and line not in readme]
    for line in missing:
        print(f"{folder}/README.md does not hold what corun_length.py prints now: {line}")
    print(f"corun_length: {len(printed.splitlines()) - len(missing)} of {len(printed.splitlines())} lines quoted")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
