#!/usr/bin/env python3
"""No dead function in harness/: every function a wing's header declares at namespace scope is used somewhere.

    dead_declarations.py ROOT [FIXTURE_DIR]   (FIXTURE_DIR: a tree of harness/<wing>/*.hpp|cpp checked instead)

A use is the name on a line that is not a declaration or definition at column 0 (a call, an argument, a pointer
taken), in any source of harness/, tests/, bench/ or kernels/ (tests count: a function kept for a test is used).
A name declared in a header and found only where it is declared and defined is dead: prints each (header:line:
name) and exits 1 if any. The issue of one vocabulary found three (plain_mode, find_xray, config_columns).
"""
import glob
import os
import re
import sys

# A function declared at namespace scope: a return type and the name at column 0, up to its parenthesis.
DECLARED = re.compile(r"^(?!return\b|using\b|namespace\b|typedef\b|#)[A-Za-z_][\w:<>,\s\*&]*?[\s\*&]([a-z_][a-z0-9_]*)\(", re.M)


# Called by a library, never by name: nlohmann::json's conversions (argument-dependent lookup).
CALLED_BY_LIBRARIES = {"to_json", "from_json"}


def files(root, patterns):
    out = []
    for p in patterns:
        out += glob.glob(os.path.join(root, p))
    return sorted(set(out))


def main():
    root = sys.argv[1]
    tree = sys.argv[2] if len(sys.argv) > 2 else root
    headers = files(tree, ["harness/*/*.hpp"])
    sources = files(tree, ["harness/*/*.hpp", "harness/*/*.cpp", "harness/*/*.cu"])
    if tree == root:
        sources += files(root, ["tests/*.cpp", "tests/*.hpp", "bench/*.cpp", "bench/*.cu", "kernels/*"])
    text = {f: open(f, errors="ignore").read().split("\n") for f in sources}
    dead = []
    for h in headers:
        lines = text.get(h) or open(h, errors="ignore").read().split("\n")
        for number, line in enumerate(lines, 1):
            m = DECLARED.match(line)
            if not m:
                continue
            name = m.group(1)
            if name in CALLED_BY_LIBRARIES:
                continue
            word = re.compile(r"\b" + name + r"\b")
            top = re.compile(r"^[A-Za-z_][^;{]*\b" + name + r"\s*\(")  # its declaration or definition
            used = any(word.search(l) and not top.match(l) for ls in text.values() for l in ls)
            if not used:
                dead.append(f"{os.path.relpath(h, tree)}:{number}: {name}")
    print("\n".join(dead + [f"dead declarations: {len(dead)} in {len(headers)} headers"]))
    return int(bool(dead))


if __name__ == "__main__":
    sys.exit(main())
