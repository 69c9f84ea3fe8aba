#!/usr/bin/env python3
"""Study READMEs under results/ quote what a script prints on their committed folders; this runs each script again
and fails on any printed line the README does not hold (the numbers recompute from the committed files).

    python3 tests/docs/studies_recompute.py ROOT
"""
import subprocess
import sys

# (the README's folder, the script and its arguments, run from ROOT)
STUDIES = [
    ("results/2026-12-03-corun-length",
     ["scripts/corun_length.py", "--swings", "95", "--k", "1,2", "results/2026-12-03-corun-length/mnist-4x"]),
    ("results/2026-12-03-no-pin", ["scripts/gate_study.py", "results/2026-12-03-no-pin/mnist-4x"]),
    ("results/2026-12-03-no-pin", ["scripts/pin_study.py", "results/2026-12-03-no-pin/mnist-4x"]),
]

def check(root, folder, argv):
    printed = subprocess.run([sys.executable] + argv, cwd=root, check=True, capture_output=True,
                             text=True).stdout.splitlines()
    lines = [line for line in printed if line.strip()]
    readme = open(f"{root}/{folder}/README.md", encoding="utf-8").read()
    missing = [line for line in lines if line not in readme]
    for line in missing:
        print(f"{folder}/README.md does not hold what {argv[0]} prints now: {line}")
    print(f"{folder}: {argv[0]}: {len(lines) - len(missing)} of {len(lines)} lines quoted")
    return len(missing)


def main(root):
    missing = sum(check(root, folder, argv) for folder, argv in STUDIES)
    # The no-pin README quotes corun_length.py's lines on its unpinned alone runs, time-sliced.
    printed = subprocess.run(
        [sys.executable, "scripts/corun_length.py", "--swings", "95", "--k", "1,2",
         "results/2026-12-03-no-pin/mnist-4x/unpinned"], cwd=root, check=True, capture_output=True,
        text=True).stdout.splitlines()
    quoted = [line for line in printed if "unpinned timeslice:" in line]
    at = next(i for i, line in enumerate(printed) if line.startswith("timeslice: "))
    quoted += printed[at:at + 2]
    readme = open(f"{root}/results/2026-12-03-no-pin/README.md", encoding="utf-8").read()
    for line in quoted:
        if line not in readme:
            print(f"results/2026-12-03-no-pin/README.md does not hold what corun_length.py prints now: {line}")
            missing += 1
    print(f"results/2026-12-03-no-pin: scripts/corun_length.py: {len(quoted)} lines checked")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
