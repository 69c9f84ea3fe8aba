#!/usr/bin/env python3
"""Every relative link in the README, the docs and the results' READMEs resolves to a committed path.

    check_links.py ROOT [FILE...]     (default: README.md, results/README.md, docs/*.md, and each results folder's
                                       README.md, INDEX.md and STUDY.md)

A link is a markdown target `](path)` or `](path#anchor)`; web addresses are not checked. An anchor into a markdown
file (or into the document itself, `](#anchor)`) must name one of its headings as GitHub makes them (lower case,
punctuation but `-` and `_` dropped, spaces as `-`). Prints one line per broken link (file:line: target) and exits 1
if any, so moving a folder, a section's file or renaming a heading cannot leave a document pointing nowhere.
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


def slug(heading):
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors_of(path, cache={}):
    """The anchors of a markdown file's headings (a repeated heading's later ones get -1, -2, ...)."""
    if path not in cache:
        found, seen, in_code = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.lstrip().startswith("```"):
                    in_code = not in_code
                heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if heading and not in_code:
                    s = slug(heading.group(1))
                    found.add(s if s not in seen else "%s-%d" % (s, seen[s]))
                    seen[s] = seen.get(s, 0) + 1
        cache[path] = found
    return cache[path]


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
                if re.match(r"^[a-z]+:", target):
                    continue
                rel, _, anchor = target.partition("#")
                file = os.path.normpath(os.path.join(os.path.dirname(path), rel)) if rel else path
                if not os.path.exists(file):
                    out.append("%s:%d: %s" % (path, number, target))
                elif anchor and file.endswith(".md") and os.path.isfile(file) and anchor not in anchors_of(file):
                    out.append("%s:%d: %s (no such heading)" % (path, number, target))
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
