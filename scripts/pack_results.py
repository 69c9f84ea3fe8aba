#!/usr/bin/env python3
"""Packs the big files of committed results folders: results/ is read from the repository by every report,
compare and test, and its tasks.csv files (one row per timed task), the copies' GPU profiles and the programs'
printed output were most of its size.

    python3 scripts/pack_results.py [ROOT] [--min-kib K] [--check]

Under ROOT (default: results/), each of these becomes NAME.gz: gzip at level 9 with no name and no time in its
header (the same bytes on every machine), checked to unpack to exactly the file it replaces before that file is
removed:
- every tasks.csv of at least K KiB (default 32): bench_mps reads NAME.csv.gz wherever NAME.csv is not there
  (harness/common/csv_table.hpp); `--resume` refuses a packed folder (gunzip tasks.csv.gz first);
- every timeline.csv (the NVML samples) of at least K KiB: read by no tool (`zcat` it), packed alike;
- every profile-<pid>.json (--profile-gpu's): bench_mps reads profile-<pid>.json.gz where the .json is not there
  (harness/results/gpu_profile.hpp);
- every copy's w<i>.stdout and w<i>.stderr of at least 4 KiB (an exec copy's printed output, kept as evidence and
  read by no tool: `zcat` it).
--check packs nothing and exits 1 naming every file that should be packed (CI keeps results/ packed).
"""
import re
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


PROFILE = re.compile(r"^profile-[0-9]+\.json$")
PRINTED = re.compile(r"^w[0-9]+\.std(out|err)$")
PRINTED_MIN_BYTES = 4096


def files_to_pack(root, min_bytes):
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if name in ("tasks.csv", "timeline.csv"):
                least = min_bytes
            elif PROFILE.match(name):
                least = 0
            elif PRINTED.match(name):
                least = PRINTED_MIN_BYTES
            else:
                continue
            if os.path.getsize(path) >= least:
                yield path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("root", nargs="?", default="results")
    p.add_argument("--min-kib", type=int, default=32)
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    if not os.path.isdir(a.root):
        print(f"pack_results: {a.root}: not a folder", file=sys.stderr)
        return 2
    found = sorted(files_to_pack(a.root, a.min_kib * 1024))
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
    print(f"pack_results: {len(found)} files packed, {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
