#!/usr/bin/env python3
"""Each wing declares what it includes: every `#include "harness/<other>/..."` in harness/<wing>/ names a wing its
bench_mps_wing(... DEPENDS ...) lists (cmake/targets.cmake links them PUBLIC, so the declaration is the link).

    depends.py ROOT        (ROOT holds harness/<wing>/CMakeLists.txt and the wing's sources)

harness/profiler/ is not a wing (the injected CUPTI library; its door opens for bench_mps_profile_format) and is
left out. Prints each wing's undeclared crossings and exits 1 if any.
"""
import glob
import os
import re
import sys

WING = re.compile(r"bench_mps_wing\(\s*(\w+)(.*?)\)", re.S)
INCLUDE = re.compile(r'#include "harness/(\w+)/')


def declared(root):
    """{wing: the wings its DEPENDS lists}."""
    out = {}
    for cmake in glob.glob(os.path.join(root, "harness", "*", "CMakeLists.txt")):
        for wing, args in WING.findall(open(cmake, encoding="utf-8").read()):
            words = args.split()
            deps = words[words.index("DEPENDS") + 1:] if "DEPENDS" in words else []
            if "LIBS" in deps:
                deps = deps[:deps.index("LIBS")]
            out[wing] = set(deps)
    return out


def main(args):
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    root = args[0]
    problems = []
    deps = declared(root)
    for wing in sorted(deps):
        included = set()
        for path in sorted(glob.glob(os.path.join(root, "harness", wing, "*.[ch]pp"))):
            included |= set(INCLUDE.findall(open(path, encoding="utf-8").read()))
        missing = sorted(included - deps[wing] - {wing, "profiler"})
        if missing:
            problems.append(f"harness/{wing}: includes {', '.join(missing)} without DEPENDS naming "
                            f"{'it' if len(missing) == 1 else 'them'}")
    for p in problems:
        print(p)
    print(f"wings whose includes their DEPENDS does not name: {len(problems)} of {len(deps)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
