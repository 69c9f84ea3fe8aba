#!/usr/bin/env python3
"""scripts/profile_late_spans.py on two hand-made profiles: one with late spans whose busy_ns exceeds its run and two
spans that meet end to start, one without; the counts, the share of records late, the mean distance and the busy share
of meeting spans as computed by hand; one copy's folder holding two profiles is counted; a missing folder exits 2.

    python3 tests/scripts/check_profile_late_spans.py ROOT
"""
import gzip
import json
import os
import tempfile

from script_check import check, main_of, run_script


def profile(command, spans, busy_ns, late, records):
    return {"process": {"command": command}, "kernels": {"count": records}, "copies": {"count": 0},
            "memsets": {"count": 0},
            "busy": {"spans": spans, "intervals": len(spans), "kept_head": len(spans), "busy_ns": busy_ns,
                     "first_ns": spans[0][0], "last_ns": spans[-1][1], "late_spans": late}}


def main(root):
    with tempfile.TemporaryDirectory() as tmp:
        w0 = os.path.join(tmp, "sweep", "profiles", "r1-mps-exec-n1", "w0")
        os.makedirs(w0)
        # 4 spans of 10 busy; the second and third meet end to start (the third's 10 of 40 busy); busy_ns 1040 over a
        # run of 0..100: 1000 more than the spans' 40, over 2 late spans: a mean distance of 500 ns.
        late = profile("python3 /x/zoo/ex/siamese_network/main.py", [[0, 10, 10, 0], [20, 30, 10, 0],
                                                                     [30, 40, 10, 0], [90, 100, 10, 0]], 1040, 2, 8)
        with gzip.open(os.path.join(w0, "profile-11.json.gz"), "wt") as f:
            json.dump(late, f)
        plain = profile("python3 gemm.py --iters 5", [[0, 10, 10, 0], [50, 60, 10, 0]], 20, 0, 2)
        with open(os.path.join(w0, "profile-12.json"), "w") as f:
            json.dump(plain, f)
        rc, so, se = run_script(root, "scripts/profile_late_spans.py", tmp)
        lines = so.splitlines()
        check(rc == 0, "known profiles: rc %d %s" % (rc, se))
        check("gemm | 1 | 0 | - | - | 0 | 0.00 %" in lines, "the profile without late spans:\n" + so)
        check("siamese_network | 1 | 1 | 0.250 | 0.000 | 1 | 25.00 %" in lines, "the profile with late spans:\n" + so)
        check(lines[-1] == "profiles: 2; with late spans 1; busy_ns over the run 1; most busy time in spans meeting "
              "end to start 25.00 %; copies' profile folders: 1, holding more than one profile 1", "totals:\n" + so)
        rc, so, se = run_script(root, "scripts/profile_late_spans.py", os.path.join(tmp, "missing"))
        check(rc == 2 and "not a folder" in se and se.count("\n") == 1, "a missing folder: rc %d %r" % (rc, se))


if __name__ == "__main__":
    main_of("profile_late_spans", main)
