#!/usr/bin/env python3
"""scripts/study_misses.py on a copy of the pre-registered study's scores (cells*.csv and SCORE*.md of
results/2026-12-02-study): it writes MISSES.md as committed, byte for byte; a SCORE*.md whose goal no longer reads as
its cells give it (one value changed by hand) is refused, one line and exit 2, and no MISSES.md is written; a folder
without cells.csv, no folder, and two folders are one line and exit 2.

    python3 tests/scripts/check_study_misses.py ROOT
"""
import filecmp
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from script_check import check, main_of

STUDY = "results/2026-12-02-study"


def run_script(root, script, *args, cwd):
    """(exit status, stdout, stderr), run where the study's path is the committed one (MISSES.md names it)."""
    p = subprocess.run([sys.executable, os.path.join(root, script)] + list(args), capture_output=True, text=True,
                       timeout=120, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def main(root):
    root = os.path.abspath(root)
    with tempfile.TemporaryDirectory() as tmp:
        study = os.path.join(tmp, STUDY)
        os.makedirs(study)
        for path in glob.glob(os.path.join(root, STUDY, "cells*.csv")) + glob.glob(os.path.join(root, STUDY,
                                                                                               "SCORE*.md")):
            shutil.copy(path, study)
        rc, so, se = run_script(root, "scripts/study_misses.py", STUDY, cwd=tmp)
        written = os.path.join(study, "MISSES.md")
        check(rc == 0 and os.path.isfile(written), "the committed scores: rc %d %s" % (rc, se))
        if os.path.isfile(written):
            check(filecmp.cmp(written, os.path.join(root, STUDY, "MISSES.md"), shallow=False),
                  "%s/MISSES.md is not what scripts/study_misses.py writes now" % STUDY)
            os.remove(written)
        score = os.path.join(study, "SCORE-host.md")
        with open(score) as f:
            text = f.read()
        with open(score, "w") as f:  # the later score's MPS median, changed by hand
            f.write(text.replace("mps, median <= 15.0%: 9.8%, met", "mps, median <= 15.0%: 9.7%, met"))
        rc, so, se = run_script(root, "scripts/study_misses.py", STUDY, cwd=tmp)
        check(rc == 2 and "SCORE-host.md's goals, computed again" in se and se.count("\n") == 1
              and not os.path.exists(written), "a SCORE edited by hand: rc %d %r" % (rc, se))
        os.remove(os.path.join(study, "cells.csv"))
        for bad, said in (([study], "holds no cells.csv"), ([os.path.join(tmp, "nothing")], "give one study folder"),
                          ([study, study], "give one study folder")):
            rc, so, se = run_script(root, "scripts/study_misses.py", *bad, cwd=tmp)
            check(rc == 2 and said in se and se.count("\n") == 1 and not so, "%s: rc %d %r" % (said, rc, se))


if __name__ == "__main__":
    main_of("study_misses", main)
