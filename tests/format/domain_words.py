#!/usr/bin/env python3
"""Domain words are types in advise and predict: no source of theirs compares a value with a word.

    domain_words.py ROOT [FILE...]     (default: harness/advise and harness/predict)

A word of the domain (a mode, a basis, a unit, a status: "timeslice", "mps:auto", "common window", "ok") is
parsed into its type where it enters (the command line, a results file) and written out of it where it
leaves, through the tables that hold each word once (harness/common/word_table.hpp). What this counts is
the slip back: a comparison with a string literal (`x == "mps"`, `"run" != y`), with a mode name constant
(`== kTimesliceMode`), `.compare(` or CLI's `IsMember` word list. Prints each one found (file:line: the
line) and exits 1 if any.
"""
import glob
import os
import re
import sys

SLIP = re.compile(r'(==|!=)\s*"|"\s*(==|!=)|(==|!=)\s*k[A-Z]\w*Mode\b|\bk[A-Z]\w*Mode\s*(==|!=)|\.compare\(|IsMember')


def sources(root, given):
    if given:
        return given
    out = []
    for wing in ("advise", "predict"):
        for ext in ("cpp", "hpp"):
            out += sorted(glob.glob(os.path.join(root, "harness", wing, "*." + ext)))
    return out


def main(args):
    if not args:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    found = []
    files = sources(args[0], args[1:])
    for path in files:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                code = line.split("//", 1)[0]
                if SLIP.search(code):
                    found.append(f"{path}:{n}: {line.strip()}")
    for f in found:
        print(f)
    print(f"domain words compared as strings: {len(found)} in {len(files)} files")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
