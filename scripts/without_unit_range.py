#!/usr/bin/env python3
"""without_unit_range.py: a copy of a profiled sweep folder whose GPU profiles have their unit_range taken out, so
that `bench_mps predict --measure` on the copy measures the unit as it would without --exec-unit-range (the steps'
lengths choose the phase): the comparison of scripts/device_steps/unitrange.sh.

    scripts/without_unit_range.py SRC DST      (DST must not exist)

Prints each profile that had a unit_range (its name, status and count) and how many there were.
"""
import glob
import gzip
import json
import os
import shutil
import sys


def main():
    if len(sys.argv) != 3:
        print("usage: without_unit_range.py SRC DST", file=sys.stderr)
        sys.exit(2)
    src, dst = sys.argv[1], sys.argv[2]
    if not os.path.isdir(os.path.join(src, "profiles")):
        print(f"without_unit_range.py: {src} holds no profiles/ (not a --profile-gpu sweep)", file=sys.stderr)
        sys.exit(2)
    if os.path.exists(dst):
        print(f"without_unit_range.py: {dst} exists; name a new folder", file=sys.stderr)
        sys.exit(2)
    shutil.copytree(src, dst)
    n = 0
    for f in sorted(glob.glob(dst + "/profiles/**/profile-*.json*", recursive=True)):
        opener = gzip.open if f.endswith(".gz") else open
        with opener(f, "rt") as fh:
            j = json.load(fh)
        r = j.pop("unit_range", None)
        if r is None:
            continue
        n += 1
        print(f"  {os.path.relpath(f, dst)}: unit_range {r['name']} {r['status']}, {r['count']} occurrences")
        with opener(f, "wt") as fh:
            json.dump(j, fh)
    print(f"  {n} profiles had their unit_range taken out")


if __name__ == "__main__":
    main()
