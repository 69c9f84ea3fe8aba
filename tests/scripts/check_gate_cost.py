#!/usr/bin/env python3
"""scripts/gate_cost.py on gatecost folders with known units: each round's gated arm over off, the pairs' median
and its verdict; a `steady` run whose meta.json says the gate detached CUPTI (exec_gate.after_open) counts as the
`detach` arm, one without it stays `steady`; waitK arms are found; no gatecost folder exits 2.

    python3 tests/scripts/check_gate_cost.py ROOT
"""
import json
import os
import tempfile

from script_check import check, main_of, run_script


def sweep(d, unit_ms, after_open=None):
    os.makedirs(d)
    with open(os.path.join(d, "runs.csv"), "w") as f:
        f.write("run_id,worker,status,facts\nr1-timeslice-exec-n1,0,ok,gate_arrived=1;step_mean_ms=%s\n" % unit_ms)
    meta = {"exec_gate": {"asked": "steady", "after_open": after_open}} if after_open else {}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f)


def main(root):
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "gatecost", "prog")
        sweep(os.path.join(p, "steady-1"), "1.0200")  # a build before after_open was recorded
        sweep(os.path.join(p, "off-1"), "1.0000")
        sweep(os.path.join(p, "steady-2"), "1.0010", "detach")
        sweep(os.path.join(p, "wait130-2"), "0.9990", "detach")
        sweep(os.path.join(p, "off-2"), "1.0000")
        rc, so, se = run_script(root, "scripts/gate_cost.py", tmp)
        lines = so.splitlines()
        check(rc == 0 and lines[:4] == [
            "| program | round | steady, ms | detach, ms | wait130, ms | off, ms | steady / off | detach / off | "
            "wait130 / off |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            "| prog | 1 | 1.0200 | - | - | 1.0000 | 1.020x | - | - |",
            "| prog | 2 | - | 1.0010 | 0.9990 | 1.0000 | - | 1.001x | 0.999x |"], "the table: rc %d\n%s%s" % (rc, so, se))
        check("prog, detach: 1 pairs, detach / off median 1.001x (90 % interval 1.001x-1.001x; pairs 1.001x-1.001x): "
              "within 1 %" in lines, "the detach arm's pairs:\n" + so)
        check("prog, steady: 1 pairs, steady / off median 1.020x (90 % interval 1.020x-1.020x; pairs 1.020x-1.020x): "
              "a cost over 1 %" in lines, "the steady arm's pairs:\n" + so)
        rc, so, se = run_script(root, "scripts/gate_cost.py", os.path.join(tmp, "gatecost"))
        check(rc == 2 and "usage" in se, "a folder without gatecost/: rc %d %r" % (rc, se))


if __name__ == "__main__":
    main_of("gate_cost", main)
