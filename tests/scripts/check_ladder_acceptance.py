#!/usr/bin/env python3
"""scripts/ladder_acceptance.py on a root holding one committed gated ladder (gemm's, copied): it stands for its
program; a later sweep of the same program asked for only some of the ladder's N (a check of N = 1, 2: its argv's
--procs) is no ladder (zoo_program) and does not replace it; an unknown option, two roots and a root without results/ are one line and exit 2.

    python3 tests/scripts/check_ladder_acceptance.py ROOT
"""
import json
import os
import shutil
import tempfile

from script_check import check, main_of, run_script

LADDER = "results/2026-12-04-reladder/gate/gemm/steady"


def main(root):
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "zoo"))
        shutil.copy(os.path.join(root, "zoo", "programs.json"), os.path.join(tmp, "zoo"))
        ladder = os.path.join(tmp, "results", "a")
        shutil.copytree(os.path.join(root, LADDER), ladder, ignore=shutil.ignore_patterns("profiles", "exec*"))
        rc, so, se = run_script(root, "scripts/ladder_acceptance.py", tmp)
        check(rc == 0 and "program: gemm: latest ladder results/a, 6 of 6 cells co-run" in so.splitlines(),
              "one ladder: rc %d\n%s%s" % (rc, so, se))
        few = os.path.join(tmp, "results", "b")
        shutil.copytree(ladder, few)
        with open(os.path.join(few, "meta.json")) as f:
            meta = json.load(f)
        argv = meta["argv"]
        argv[argv.index("--procs") + 1] = "1,2"  # as the gate step's GATE_PROCS=1,2 asks it
        meta["sweep"]["procs"] = [1, 2]
        meta["started_utc"] = "2099-01-01T00:00:00Z"  # later than the ladder: it would stand if it were one
        with open(os.path.join(few, "meta.json"), "w") as f:
            json.dump(meta, f)
        rc, so, se = run_script(root, "scripts/ladder_acceptance.py", tmp)
        lines = so.splitlines()
        check(rc == 0 and "program: gemm: latest ladder results/a, 6 of 6 cells co-run" in lines
              and not any("results/b" in line for line in lines),
              "a sweep of N = 1, 2 beside it: rc %d\n%s%s" % (rc, so, se))
        for bad, said in (([tmp, "--nonsense"], "unknown option --nonsense"), ([tmp, tmp], "one ROOT at most"),
                          ([os.path.join(tmp, "zoo")], "has no results/ folder")):
            rc, so, se = run_script(root, "scripts/ladder_acceptance.py", *bad)
            check(rc == 2 and said in se and se.count("\n") == 1 and not so, "%s: rc %d %r" % (said, rc, se))


if __name__ == "__main__":
    main_of("ladder_acceptance", main)
