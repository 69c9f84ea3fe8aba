#!/usr/bin/env python3
"""What the start gate's CUPTI callbacks leave in a process once the gate has opened, per CUDA call, from a device_check
`cupticost` step's folder (issue 42: the gate's cost on one copy alone):

    python3 scripts/cupti_cost.py [--step BM_GraphStep] DIR...

DIR/cupticost/<state>-<i>.json are Google Benchmark files of bench/bench_cupti_after_gate, one process per state
(never, callbacks, unsubscribed, detached) in rounds whose order alternates (scripts/device_steps/cupticost.sh). The
step is BM_SyncStep's real time (an empty launch and a cudaStreamSynchronize, on the host's clock), or with --step
the named benchmark's (BM_GraphStep: cuda-graphs' step shape, two copies, a graph replayed, a read back). Prints each
round's steps and each state's ratio to never in that round, then per state over every round of every DIR: the
median step, the median ratio to never in its round with the median's 90 % interval (resampling rounds, as
gate_cost.py resamples pairs) and the ratios' range, and the median of its step less never's in the same round, in
microseconds.
"""
import glob
import json
import os
import re
import statistics
import sys

from gate_cost import bootstrap_median

STATES = ("never", "callbacks", "unsubscribed", "detached")
NAME = re.compile(r"^(%s)-([0-9]+)\.json$" % "|".join(STATES))
TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def step_us(path, name="BM_SyncStep"):
    """The benchmark `name`'s real time in microseconds, or None where the file holds none."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    for b in data.get("benchmarks", []):
        if b.get("name") == name and b.get("run_type", "iteration") == "iteration":
            return b["real_time"] * TO_US[b.get("time_unit", "ns")], data.get("context", {})
    return None, data.get("context", {})


def rounds_of(folder, name="BM_SyncStep"):
    """{round: {state: step us}} of the benchmark `name` and the GPU named in the files' context."""
    found, gpu = {}, set()
    for path in sorted(glob.glob(os.path.join(folder, "cupticost", "*.json"))):
        m = NAME.match(os.path.basename(path))
        if not m:
            continue
        us, context = step_us(path, name)
        if us is not None:
            found.setdefault(int(m.group(2)), {})[m.group(1)] = us
            gpu.add("%s, CUDA driver API %s" % (context.get("gpu", "?"), context.get("cuda_driver_version", "?")))
    return found, sorted(gpu)


def main(args):
    name = "BM_SyncStep"
    if args[:1] == ["--step"]:
        if len(args) < 2 or not re.match(r"^BM_[A-Za-z]+$", args[1]):
            print("cupti_cost.py: --step takes a benchmark's name such as BM_GraphStep", file=sys.stderr)
            return 2
        name, args = args[1], args[2:]
    if not args:
        print(__doc__.strip().splitlines()[3].strip())
        return 2
    ratios = {s: [] for s in STATES}
    extra = {s: [] for s in STATES}  # the state's step less never's, in the same round (us)
    steps = {s: [] for s in STATES}
    for folder in args:
        found, gpu = rounds_of(folder, name)
        if not found:
            print("%s: no cupticost/<state>-<i>.json with a %s" % (folder, name), file=sys.stderr)
            return 1
        print("%s (%s):\n" % (folder, "; ".join(gpu)))
        print("| round | " + " | ".join("%s, us" % s for s in STATES) + " | " +
              " | ".join("%s / never" % s for s in STATES[1:]) + " |")
        print("|---:|" + "---:|" * (2 * len(STATES) - 1))
        for i in sorted(found):
            r = found[i]
            for s in STATES:
                if s in r:
                    steps[s].append(r[s])
                    if s != "never" and "never" in r:
                        ratios[s].append(r[s] / r["never"])
                        extra[s].append(r[s] - r["never"])
            print("| %d | " % i + " | ".join("%.3f" % r[s] if s in r else "-" for s in STATES) + " | " +
                  " | ".join("%.3fx" % (r[s] / r["never"]) if s in r and "never" in r else "-"
                             for s in STATES[1:]) + " |")
        print()
    for s in STATES:
        if not steps[s]:
            continue
        line = "%s: %d runs, step median %.3f us" % (s, len(steps[s]), statistics.median(steps[s]))
        if s != "never" and ratios[s]:
            lo, hi = bootstrap_median(ratios[s])
            line += "; over never in its round: median %.3fx (90 %% interval %.3fx-%.3fx; rounds %.3fx-%.3fx), " \
                    "%+.3f us a step" % (statistics.median(ratios[s]), lo, hi, min(ratios[s]), max(ratios[s]),
                                         statistics.median(extra[s]))
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
