#!/usr/bin/env python3
"""scripts/host_calibration/cpu_rate_probe.py: a real run on two of this machine's cores writes every phase's slices
for both cores and its report reads them; the report of a probe file with known slices prints the rates, the
spread between cores, the drift and the slow pair as computed by hand; bad input is one line, exit 2, no file.

    python3 tests/scripts/check_cpu_rate_probe.py ROOT
"""
import csv
import os
import tempfile

from script_check import check, main_of, run_script


def probe(root, *args):
    return run_script(root, "scripts/host_calibration/cpu_rate_probe.py", *args)


def known_file(path):
    """Cores 1 and 2: alone 50 ns an iteration first and last (core 2: 60 ns last); together 50 and 75 ns; in their
    pair core 1 at 100 ns (2x its alone mean), core 2 at 55 ns (1x its alone mean of 55)."""
    rows = []

    def add(phase, run, core, ns_each, slices=3):
        for k in range(slices):
            rows.append((phase, run, core, 10.0 + k * 0.02, 1000, ns_each * 1000 / 1e9))
    add("alone-first", 1, 1, 50)
    add("alone-first", 2, 2, 50)
    add("together", 3, 1, 50)
    add("together", 3, 2, 75)
    add("pairs", 4, 1, 100)
    add("pairs", 4, 2, 55)
    add("alone-last", 5, 1, 50)
    add("alone-last", 6, 2, 60)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["phase", "run", "core", "slice_mono_s", "iterations", "seconds"])
        w.writerows(rows)


def look_file(path):
    """Three cores at once for 2.3 s, a slice every 20 ms: core 1 at 50 ns throughout; core 2 at 50 ns over the first
    0.2 s and 80 after; core 3 at 100 throughout. The look picks cores 1 and 2 (2 of 3): over the next 2 s they lie
    80 / 50 = 1.60x apart, every core 100 / 50 = 2.00x."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["phase", "run", "core", "slice_mono_s", "iterations", "seconds"])
        for k in range(115):
            t = 100.01 + 0.02 * k
            for core, ns_each in ((1, 50), (2, 50 if t < 100.2 else 80), (3, 100)):
                w.writerow(["together", 1, core, "%.3f" % t, 1000, ns_each * 1000 / 1e9])


def main(root):
    with tempfile.TemporaryDirectory() as tmp:
        cores = sorted(os.sched_getaffinity(0))
        out = os.path.join(tmp, "probe.csv")
        if len(cores) >= 2:
            rc, so, se = probe(root, "run", out, "--cores", "%d,%d" % (cores[0], cores[1]), "--alone-s", "0.1",
                               "--together-s", "0.2", "--pair-s", "0.1", "--slice-ms", "5")
            check(rc == 0 and "slices on cores" in so, "a run on two cores: rc %d, %r %r" % (rc, so, se))
            with open(out, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            seen = {(r["phase"], int(r["core"])) for r in rows}
            want = {(p, c) for p in ("alone-first", "together", "pairs", "alone-last") for c in cores[:2]}
            check(seen == want, "every phase on both cores: %s" % sorted(seen))
            check(all(int(r["iterations"]) % 1000 == 0 and float(r["seconds"]) >= 0.005 for r in rows),
                  "each slice whole chunks and at least its 5 ms")
            rc, so, se = probe(root, "report", out)
            check(rc == 0 and "pairs: 1," in so and "alone, last / first" in so, "its report: %r %r" % (so, se))
        else:
            rc, so, se = probe(root, "run", out)
            check(rc == 2 and "at least two cores" in se, "one core: %r" % se)

        known = os.path.join(tmp, "known.csv")
        known_file(known)
        rc, so, se = probe(root, "report", known)
        check(rc == 0, "report of the known file: rc %d %r" % (rc, se))
        for line in ("alone-first: ns an iteration per core (median of its slices): 1: 50.0, 2: 50.0",
                     "together: ns an iteration per core (median of its slices): 1: 50.0, 2: 75.0",
                     "  cores 50.0-75.0 ns (median core 62.5), slowest / fastest 1.50x",
                     "alone, last / first per core: median 1.10x, 1.00-1.20x",
                     "pairs: 1, each core's time an iteration over its alone runs' mean: median 1.50x, largest 2.00x",
                     "  pairs with a core 1.25x or more slower: 1",
                     "  cores 1+2: 2.00x, 1.00x"):
            check(line in so.splitlines(), "the report says %r:\n%s" % (line, so))

        looked = os.path.join(tmp, "look.csv")
        look_file(looked)
        rc, so, se = probe(root, "report", looked)
        line = ("  the fastest 2 of 3 cores by a 0.2 s look, over the next 2 s: slowest / fastest median 1.60x over 1 "
                "looks (every core: 2.00x)")
        check(rc == 0 and line in so.splitlines(), "a look picks the cores fast over it: %r %r" % (so, se))

        bad = os.path.join(tmp, "bad.csv")
        for args, says in ((["--cores", "3-1"], "backwards"), (["--cores", "x"], "not a list of cores"),
                           (["--cores", "%d,%d" % (cores[0], cores[0])], "names a core twice"),
                           (["--cores", "100000"], "may not use"), (["--alone-s", "0"], "positive number"),
                           (["--pair-s", "nan"], "positive number"), (["--together-s", "inf"], "positive number"),
                           (["--together-s", "1e9"], "at most 3600 s"), (["--slice-ms", "-5"], "at most 3600000 ms"),
                           (["--alone-s", ""], "positive number"), (["--cores", ""], "not a list of cores"),
                           (["--pairs", "some"], "neither all nor none"), (["--what", "1"], "unknown option")):
            rc, so, se = probe(root, "run", bad, *args)
            check(rc == 2 and says in se and len(se.strip().splitlines()) == 1 and not os.path.exists(bad),
                  "run %s: rc %d, %r" % (args, rc, se))
        rc, so, se = probe(root, "report", os.path.join(tmp, "missing.csv"))
        check(rc == 2 and "cannot read" in se, "report of a missing file: rc %d %r" % (rc, se))
        with open(bad, "w", encoding="utf-8") as f:
            f.write("a,b\n1,2\n")
        rc, so, se = probe(root, "report", bad)
        check(rc == 2 and "not a cpu_rate_probe.py output" in se, "report of another csv: rc %d %r" % (rc, se))
        rc, so, se = probe(root)
        check(rc == 2 and "usage" in se, "no arguments: rc %d %r" % (rc, se))


if __name__ == "__main__":
    main_of("cpu_rate_probe", main)
