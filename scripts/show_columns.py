#!/usr/bin/env python3
"""Prints chosen columns of a results CSV by name, one row per line (for the device scripts):

    python3 scripts/show_columns.py DIR/summary.csv run_id status gpu_util_mean
    python3 scripts/show_columns.py DIR/runs.csv run_id worker facts --where worker=0
"""
import csv
import os
import sys

from script_input import run_main


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, columns, where = argv[1], [], {}
    args = argv[2:]
    while args:
        a = args.pop(0)
        if a == "--where" and args:
            key, _, value = args.pop(0).partition("=")
            where[key] = value
        else:
            columns.append(a)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print(f"show_columns.py: {path}: {e.strerror}", file=sys.stderr)
        return 2
    if os.path.getsize(path) == 0:
        print(f"show_columns.py: {path}: empty (not even a header)", file=sys.stderr)
        return 2
    missing = [c for c in columns + list(where) if rows and c not in rows[0]]
    if missing:
        print(f"show_columns.py: {path}: no column {', '.join(missing)}", file=sys.stderr)
        return 2
    for row in rows:
        if all(row[k] == v for k, v in where.items()):
            print("  ".join(row[c] for c in columns))
    return 0


if __name__ == "__main__":
    run_main("show_columns.py", __doc__, lambda: main(sys.argv))
