#!/usr/bin/env python3
"""The CUPTI profiler's cost per step, from alternated runs of one program without and with it.

Reads DIR/plain-K.out and DIR/profiled-K.out (a bench_worker's stdout: its DONE line gives elapsed_s
and tasks) and the profiles under DIR/profiled-K/ (their kernel, copy, memset and host-wait records;
the records per step are the median over the runs whose profile is there).
Prints each pair, the medians, the extra time per step and per record, and the cost relative to the
step. With --client-runs, also the PyTorch client's runs of the profileclient step (client-plain-K,
client-profiled-K under that folder): its step p50s, and the per-record cost scaled to its records per
step over its step time. With --variants, DIR holds the profilevariants step's runs (VARIANT-K
folders): each variant's median step p50 against plain (plain-nopin for the unpinned ones). Used by
scripts/device_check.sh's profilecost and profilevariants steps.
"""
import argparse
import csv
import glob
import gzip
import json
import os
import statistics
import sys


def done(path):
    for line in open(path):
        if line.startswith("DONE "):
            d = json.loads(line[5:])
            return d["elapsed_s"], d["tasks"]
    raise SystemExit(f"profile_cost.py: {path}: no DONE line (the run failed; see its log)")


def records(folder):
    """Records and kernels of every profile under `folder`, summed."""
    total = kernels = 0
    files = glob.glob(os.path.join(folder, "**", "profile-*.json"), recursive=True)
    files += [f for f in glob.glob(os.path.join(folder, "**", "profile-*.json.gz"), recursive=True)
              if not os.path.exists(f[:-3])]  # a committed folder's, packed (scripts/pack_results.py)
    if not files:
        return None, None
    for f in files:
        p = json.load(gzip.open(f, "rt") if f.endswith(".gz") else open(f))
        k = p["kernels"]["count"]
        kernels += k
        total += k + p["copies"]["count"] + p["memsets"]["count"] + p.get("waits", {}).get("count", 0)
    return total, kernels


def run_facts(folder):
    """The facts of each row of a results folder's runs.csv, as dicts."""
    return [dict(kv.split("=", 1) for kv in row["facts"].split(";") if "=" in kv)
            for row in csv.DictReader(open(os.path.join(folder, "runs.csv")))]


def variants(folder):
    """Per variant (a run folder VARIANT-K under `folder`): the median step p50 against its plain basis."""
    by = {}
    for d in sorted(glob.glob(os.path.join(folder, "*-[0-9]*"))):
        for f in run_facts(d):
            if "step_p50_ms" in f:
                by.setdefault(os.path.basename(d).rsplit("-", 1)[0], []).append(float(f["step_p50_ms"]))
    if not by:
        raise SystemExit(f"profile_cost.py: {folder}: no VARIANT-K run with a step_p50_ms fact")
    for v, xs in by.items():
        basis = "plain-nopin" if v.endswith("nopin") else "plain"
        b = statistics.median(by.get(basis, [float("nan")]))
        print(f"variant {v}: step p50 median {statistics.median(xs):.4f} ms ({min(xs):.4g}-{max(xs):.4g}), "
              f"{100 * (statistics.median(xs) / b - 1):+.2f} % against {basis}")


def client_facts(runs):
    """Step p50s of the client's plain and profiled runs, and its records per step (first profiled run)."""
    out = {"plain": [], "profiled": []}
    per_step = None
    for kind in out:
        for d in sorted(g for g in glob.glob(os.path.join(runs, f"client-{kind}-*")) if os.path.isdir(g)):
            for facts in run_facts(d):
                if "step_p50_ms" in facts:
                    out[kind].append(float(facts["step_p50_ms"]))
                if kind == "profiled" and per_step is None and "steps" in facts:
                    n, _ = records(os.path.join(d, "profiles"))
                    per_step = n / float(facts["steps"]) if n is not None else None
    return out, per_step


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--steps-per-task", type=float)
    ap.add_argument("--warmup-tasks", type=float, default=1)
    ap.add_argument("--client-runs")
    ap.add_argument("--variants", action="store_true",
                    help="DIR holds VARIANT-K run folders (device_check's profilevariants): each variant's median")
    a = ap.parse_args()
    if a.variants:
        variants(a.dir)
        return 0
    if a.steps_per_task is None:
        ap.error("--steps-per-task is needed without --variants")
    pairs = sorted(int(f.split("-")[-1][:-4]) for f in glob.glob(os.path.join(a.dir, "plain-*.out")))
    if not pairs:
        raise SystemExit(f"profile_cost.py: {a.dir}: no plain-K.out")
    plain, prof, per_step_records = [], [], []
    for k in pairs:
        (pe, pt), (qe, qt) = done(os.path.join(a.dir, f"plain-{k}.out")), done(os.path.join(a.dir, f"profiled-{k}.out"))
        ps, qs = pe * 1e3 / (pt * a.steps_per_task), qe * 1e3 / (qt * a.steps_per_task)
        n, _ = records(os.path.join(a.dir, f"profiled-{k}"))
        if n is not None:  # a committed copy keeps one run's profile
            per_step_records.append(n / ((qt + a.warmup_tasks) * a.steps_per_task))
        plain.append(ps)
        prof.append(qs)
        print(f"  pair {k}: step {ps:.5f} ms without, {qs:.5f} ms with the profiler ({100 * (qs / ps - 1):+.2f} %)")
    mp, mq = statistics.median(plain), statistics.median(prof)
    ratios = sorted(q / p - 1 for p, q in zip(plain, prof))
    if not per_step_records:
        raise SystemExit(f"profile_cost.py: {a.dir}: no profiled run wrote a profile")
    recs = statistics.median(per_step_records)
    extra_us = (mq - mp) * 1e3
    spread = (max(plain) - min(plain)) / mp
    print(f"profilecost: step median {mp:.5f} ms without, {mq:.5f} ms with the profiler: {extra_us:+.2f} us per step "
          f"({100 * (mq / mp - 1):+.2f} %; pairs {100 * ratios[0]:+.2f} to {100 * ratios[-1]:+.2f} %; the plain runs spread "
          f"{100 * spread:.2f} %), {recs:.1f} records per step: {extra_us / recs:+.3f} us per record")
    if a.client_runs:
        c, client_recs = client_facts(a.client_runs)
        if c["plain"] and client_recs:
            step = statistics.median(c["plain"])
            scaled = extra_us / recs * client_recs / (step * 1e3)
            direct = statistics.median(c["profiled"]) / step - 1 if c["profiled"] else float("nan")
            print(f"profilecost: the client's step p50 {step:.4f} ms (median of {len(c['plain'])} plain runs), "
                  f"{client_recs:.1f} records per step: at {extra_us / recs:+.3f} us per record the profiler costs it "
                  f"{100 * scaled:+.2f} %; measured directly {100 * direct:+.2f} % (medians of the step p50s, "
                  f"plain {min(c['plain']):.4g}-{max(c['plain']):.4g} ms, profiled "
                  f"{min(c['profiled']):.4g}-{max(c['profiled']):.4g} ms)")
        else:
            print("profilecost: no client runs under " + a.client_runs + " (run the profileclient step first)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
