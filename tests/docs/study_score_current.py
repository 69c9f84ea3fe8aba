#!/usr/bin/env python3
"""The pre-registered study's first score is generated, not written: scripts/gated_study.py on a copy of
results/2026-12-02-study (its programs' ladders where they are, PROGRAM/ladder or the folder PROGRAM/LADDER names)
must write the committed SCORE.md, cells.csv and meta.json byte for byte; and so on the same simulator's score of
later ladders (results/2026-12-04-shared-phase/replication, results/2026-12-04-rescore/replication).

    python3 tests/docs/study_score_current.py ROOT
"""
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile

STUDIES = ("results/2026-12-02-study", "results/2026-12-04-shared-phase/replication",
           "results/2026-12-04-rescore/replication")
WRITTEN = ("SCORE.md", "cells.csv", "meta.json")


def current(root, study):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, study)
        shutil.copytree(os.path.join(root, study), copy)
        # A ladder committed elsewhere: the score reads its predict/ only, so its units.csv stands for it.
        for program in sorted(os.listdir(copy)):
            pointer = os.path.join(copy, program, "LADDER")
            if os.path.isfile(pointer):
                with open(pointer) as f:
                    where = os.path.normpath(os.path.join(study, program, f.read().strip()))
                os.makedirs(os.path.join(tmp, where))
                shutil.copy(os.path.join(root, where, "units.csv"), os.path.join(tmp, where, "units.csv"))
        for name in WRITTEN:
            os.remove(os.path.join(copy, name))
        r = subprocess.run([sys.executable, os.path.join(root, "scripts", "gated_study.py"), study], cwd=tmp,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("gated_study.py failed (%d): %s" % (r.returncode, r.stderr.strip()))
            return 1
        stale = [n for n in WRITTEN if not filecmp.cmp(os.path.join(copy, n), os.path.join(root, study, n),
                                                           shallow=False)]
        for n in stale:
            print("%s/%s is not what scripts/gated_study.py writes now" % (study, n))
        print("%s: %d of %d generated files current" % (study, len(WRITTEN) - len(stale), len(WRITTEN)))
        return 1 if stale else 0


def main(root):
    return 1 if sum(current(root, study) for study in STUDIES) else 0


if __name__ == "__main__":
    sys.exit(main(os.path.abspath(sys.argv[1])))
