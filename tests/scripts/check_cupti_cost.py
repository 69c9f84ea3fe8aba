#!/usr/bin/env python3
"""scripts/cupti_cost.py on Google Benchmark files made here with known steps: the ratios to never per round and
their medians come out as computed by hand; a state missing from a round, a file of another name and a time unit
other than ns are taken as they should be; --step reads another benchmark of the files; a folder without files
exits 1, no argument or a bad --step exits 2.

    python3 tests/scripts/check_cupti_cost.py ROOT
"""
import json
import os
import subprocess
import sys
import tempfile


def bench_file(path, real_time, unit="ns", graph_time=None):
    """A file of BM_SyncStep at real_time, and of BM_GraphStep at graph_time where given."""
    benchmarks = [{"name": "BM_SyncStep", "run_type": "iteration", "real_time": real_time, "time_unit": unit}]
    if graph_time is not None:
        benchmarks.append({"name": "BM_GraphStep", "run_type": "iteration", "real_time": graph_time,
                           "time_unit": unit})
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"context": {"gpu": "Stand-in GPU", "cuda_driver_version": "13000"}, "benchmarks": benchmarks}, f)


def main(root):
    script = os.path.join(root, "scripts", "cupti_cost.py")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "cupticost")
        os.makedirs(d)
        steps = {1: {"never": 10000, "callbacks": 12000, "unsubscribed": 10500, "detached": 10100},
                 2: {"never": 20000, "callbacks": 22000, "unsubscribed": 20000}}  # round 2: no detached
        for i, row in steps.items():
            for state, ns in row.items():
                bench_file(os.path.join(d, "%s-%d.json" % (state, i)), ns)
        bench_file(os.path.join(d, "never-3.json"), 0.015, unit="ms")  # 15 us, a round of never alone
        bench_file(os.path.join(d, "other-1.json"), 1)  # not a state: left out
        out = subprocess.run([sys.executable, script, tmp], capture_output=True, text=True)
        wanted = [
            "| 1 | 10.000 | 12.000 | 10.500 | 10.100 | 1.200x | 1.050x | 1.010x |",
            "| 2 | 20.000 | 22.000 | 20.000 | - | 1.100x | 1.000x | - |",
            "| 3 | 15.000 | - | - | - | - | - | - |",
            "never: 3 runs, step median 15.000 us",
            "callbacks: 2 runs, step median 17.000 us; over never in its round: "
            "median 1.150x (90 % interval 1.100x-1.200x; "
            "rounds 1.100x-1.200x), "
            "+2.000 us a step",
            "unsubscribed: 2 runs, step median 15.250 us; over never in its round: "
            "median 1.025x (90 % interval 1.000x-1.050x; "
            "rounds 1.000x-1.050x), "
            "+0.250 us a step",
            "detached: 1 runs, step median 10.100 us; over never in its round: "
            "median 1.010x (90 % interval 1.010x-1.010x; "
            "rounds 1.010x-1.010x), "
            "+0.100 us a step",
        ]
        lines = out.stdout.splitlines()
        if out.returncode != 0:
            problems.append("exit %d: %s" % (out.returncode, out.stderr.strip()))
        problems += ["missing: " + w for w in wanted if w not in lines]
        if "Stand-in GPU, CUDA driver API 13000" not in out.stdout:
            problems.append("the GPU of the files' context is not named")
        empty = os.path.join(tmp, "empty")
        os.makedirs(os.path.join(empty, "cupticost"))
        r = subprocess.run([sys.executable, script, empty], capture_output=True, text=True)
        if r.returncode != 1 or "no cupticost" not in r.stderr:
            problems.append("an empty folder: exit %d, %r" % (r.returncode, r.stderr))
        r = subprocess.run([sys.executable, script], capture_output=True, text=True)
        if r.returncode != 2:
            problems.append("no argument: exit %d" % r.returncode)
        # --step BM_GraphStep reads that benchmark of the same files: 100 us never, 102 us unsubscribed.
        graph = os.path.join(tmp, "graph")
        os.makedirs(os.path.join(graph, "cupticost"))
        bench_file(os.path.join(graph, "cupticost", "never-1.json"), 10000, graph_time=100000)
        bench_file(os.path.join(graph, "cupticost", "unsubscribed-1.json"), 10000, graph_time=102000)
        r = subprocess.run([sys.executable, script, "--step", "BM_GraphStep", graph], capture_output=True, text=True)
        if r.returncode != 0 or "| 1 | 100.000 | - | 102.000 | - | - | 1.020x | - |" not in r.stdout.splitlines():
            problems.append("--step BM_GraphStep: exit %d, %r" % (r.returncode, r.stdout))
        r = subprocess.run([sys.executable, script, "--step", "BM_GraphStep", tmp], capture_output=True, text=True)
        if r.returncode != 1 or "with a BM_GraphStep" not in r.stderr:
            problems.append("--step on files without it: exit %d, %r" % (r.returncode, r.stderr))
        for bad in (["--step"], ["--step", "sync;rm", tmp]):
            r = subprocess.run([sys.executable, script] + bad, capture_output=True, text=True)
            if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1:
                problems.append("%s: exit %d, %r" % (bad, r.returncode, r.stderr))
    for p in problems:
        print("check_cupti_cost: " + p)
    if not problems:
        print("check_cupti_cost: %d lines as computed by hand" % len(wanted))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
