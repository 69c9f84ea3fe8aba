#!/usr/bin/env python3
"""Packs the big tasks.csv files of committed results folders: results/ is read from the repository by every
report, compare and test, and its tasks.csv files (one row per timed task) were most of its size.

    python3 scripts/pack_results.py [ROOT] [--min-kib K] [--check]

Every tasks.csv under ROOT (default: results/) of at least K KiB (default 256) becomes tasks.csv.gz: gzip at
level 9 with no name and no time in its header (the same bytes on every machine), checked to unpack to exactly
the file it replaces before that file is removed. bench_mps reads NAME.csv.gz wherever NAME.csv is not there
(harness/common/csv_table.hpp); `--resume` refuses a packed folder (gunzip tasks.csv.gz first). --check packs
nothing and exits 1 naming every tasks.csv at or over the size (CI keeps results/ packed).
"""
import argparse
import gzip
import io
import os
import sys


def gzip_bytes(data):
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=out, mtime=0) as g:
        g.write(data)
    return out.getvalue()


def big_tasks_files(root, min_bytes):
    for folder, _, files in os.walk(root):
        if "tasks.csv" in files:
            path = os.path.join(folder, "tasks.csv")
            if os.path.getsize(path) >= min_bytes:
                yield path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("root", nargs="?", default="results")
    p.add_argument("--min-kib", type=int, default=256)
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    if not os.path.isdir(a.root):
        print(f"pack_results: {a.root}: not a folder", file=sys.stderr)
        return 2
    found = sorted(big_tasks_files(a.root, a.min_kib * 1024))
    if a.check:
        for path in found:
            print(f"pack_results: {path} is not packed ({os.path.getsize(path) // 1024} KiB): "
                  f"run python3 scripts/pack_results.py", file=sys.stderr)
        return 1 if found else 0
    before = after = 0
    for path in found:
        with open(path, "rb") as f:
            data = f.read()
        packed = gzip_bytes(data)
        if gzip.decompress(packed) != data:
            print(f"pack_results: {path}: the packed copy does not unpack to it; left as it is", file=sys.stderr)
            return 1
        if os.path.exists(path + ".gz"):
            print(f"pack_results: {path}.gz is there already; left as it is", file=sys.stderr)
            return 1
        tmp = path + ".gz.tmp"
        with open(tmp, "wb") as f:
            f.write(packed)
        os.replace(tmp, path + ".gz")
        os.remove(path)
        before += len(data)
        after += len(packed)
    print(f"pack_results: {len(found)} tasks.csv packed, {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
