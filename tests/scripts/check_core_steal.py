#!/usr/bin/env python3
"""scripts/core_steal.py on a sweep folder and a /proc/stat log made here with known ticks: each copy's window is the
log's samples around its steady part (its profile's clock taken to CLOCK_MONOTONIC through its gate release), its
core's busy, idle, iowait and steal ticks over it come out as written; a copy without a core or a gate in its facts,
and one whose steady part lies outside the log, are said so; a log cut short (the last sample's lines missing) is
read without its last sample; a log of one sample exits non-zero; no argument exits non-zero.

    python3 tests/scripts/check_core_steal.py ROOT
"""
import csv
import gzip
import os
import subprocess
import sys
import tempfile

# user nice system idle iowait irq softirq steal guest guest_nice, per core, at each sample time (s since boot)
SAMPLES = [
    (100.0, {"cpu0": [0, 0, 0, 1000, 0, 0, 0, 0], "cpu1": [0, 0, 0, 1000, 0, 0, 0, 0]}),
    (100.2, {"cpu0": [10, 0, 2, 1008, 0, 0, 0, 0], "cpu1": [20, 0, 0, 1000, 0, 0, 0, 0]}),
    (100.4, {"cpu0": [20, 0, 4, 1016, 0, 0, 0, 0], "cpu1": [35, 0, 2, 1001, 0, 0, 1, 2]}),
    (100.6, {"cpu0": [30, 0, 6, 1024, 0, 0, 0, 0], "cpu1": [50, 0, 4, 1001, 1, 0, 2, 3]}),
]


def write_log(path, samples, cut_last=False):
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for i, (t, cpus) in enumerate(samples):
            f.write("T %.2f\n" % t)
            total = [sum(v[k] for v in cpus.values()) for k in range(8)]
            lines = ["cpu  " + " ".join(map(str, total + [0, 0]))]
            lines += ["%s %s" % (name, " ".join(map(str, v + [0, 0]))) for name, v in sorted(cpus.items())]
            if cut_last and i == len(samples) - 1:
                lines = lines[:2]  # gzip cut it short
            f.write("\n".join(lines) + "\n")


def write_sweep(d):
    os.makedirs(d)
    # copy 0 on core 1: released at mono 100.1 (profile clock 5.0), steady part 5.15-5.45 on the profile's clock,
    # so 100.25-100.55 on CLOCK_MONOTONIC: the window is the samples at 100.2 and 100.6.
    rows = [
        ("r1-timeslice-exec-n1", 0, "core=1;gate_release_mono_s=100.1;gate_release_s=5.0;"
         "profile_steady_from_s=5.15;profile_steady_to_s=5.45"),
        ("r2-timeslice-exec-n1", 0, "gate_release_mono_s=100.1;gate_release_s=5.0"),  # no core
        ("r3-timeslice-exec-n1", 0, "core=0;gate_release_mono_s=300;gate_release_s=1;"
         "profile_steady_from_s=2;profile_steady_to_s=3"),  # after the log
    ]
    with open(os.path.join(d, "runs.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["run_id", "worker", "facts"])
        for run, worker, facts in rows:
            w.writerow([run, worker, facts])
    with open(os.path.join(d, "units.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["run_id", "worker", "unit_ms", "steady_s"])
        w.writerow(["r1-timeslice-exec-n1", 0, "4.5", "0.3"])


def main(root):
    script = os.path.join(root, "scripts", "core_steal.py")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        sweep = os.path.join(tmp, "sweep")
        write_sweep(sweep)
        log = os.path.join(tmp, "procstat.txt.gz")
        write_log(log, SAMPLES + [(100.8, SAMPLES[-1][1])], cut_last=True)
        out = subprocess.run([sys.executable, script, sweep, log], capture_output=True, text=True)
        # cpu1 from 100.2 to 100.6: user 30, system 4, idle 1, iowait 1, softirq 2, steal 3 -> busy 36
        wanted = [
            sweep + ": 4 samples of /proc/stat over 0.6 s",
            "| r1-timeslice-exec-n1 | 0 | 1 | 4.500 | 0.300 | 0.40 | 36 | 1 | 1 | 3 |",
            "| r2-timeslice-exec-n1 | 0 | - | - | - | - | no core, gate or steady part in its facts | | | |",
            "| r3-timeslice-exec-n1 | 0 | 0 | - | - | - | outside the log | | | |",
            "every core over the log: busy 92 ticks, idle 25, iowait 1, steal 3 (2.479 % of all ticks)",
        ]
        lines = out.stdout.splitlines()
        if out.returncode != 0:
            problems.append("exit %d: %s" % (out.returncode, out.stderr.strip()))
        problems += ["missing: " + w for w in wanted if w not in lines]
        one = os.path.join(tmp, "one.txt.gz")
        write_log(one, SAMPLES[:1])
        if subprocess.run([sys.executable, script, sweep, one], capture_output=True).returncode == 0:
            problems.append("a log of one sample was read")
        if subprocess.run([sys.executable, script], capture_output=True).returncode == 0:
            problems.append("no argument exited 0")
    for p in problems:
        print("check_core_steal: " + p)
    if problems:
        print(out.stdout)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
