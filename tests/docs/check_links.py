#!/usr/bin/env python3
"""Every relative link in the README, the docs and the results' READMEs resolves to a committed path.

    check_links.py ROOT [FILE...]     (default: README.md, results/README.md, docs/*.md, and each results folder's
                                       README.md, INDEX.md and STUDY.md)

A link is a markdown target `](path)` or `](path#anchor)`; web addresses and in-page anchors are not checked
(an anchor's file is). Prints one line per broken link (file:line: target) and exits 1 if any, so moving a
folder or a section's file cannot leave a document pointing nowhere.
"""
import glob
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")


def files_of(root, given):
    if given:
        return given
    found = [os.path.join(root, "README.md"), os.path.join(root, "results", "README.md")]
    found += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    for name in ("README.md", "INDEX.md", "STUDY.md"):
        found += sorted(glob.glob(os.path.join(root, "results", "*", name)))
    return found


def broken_links(path):
    out = []
    in_code = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            if in_code:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                rel = target.split("#", 1)[0]
                if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(path), rel))):
                    out.append("%s:%d: %s" % (path, number, target))
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    problems = []
    checked = files_of(argv[1], argv[2:])
    for path in checked:
        problems += broken_links(path)
    for p in problems:
        print(p)
    print("check_links.py: %d files, %d broken links" % (len(checked), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
