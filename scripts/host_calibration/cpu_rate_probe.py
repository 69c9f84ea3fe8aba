#!/usr/bin/env python3
"""cpu_rate_probe: how fast one pinned process runs a Python loop on each core, alone, all at once, and in pairs.

Issue 42: copies of a PyTorch program, each pinned to a core of its own, part by rate (one 1.3-1.9x slower than
its neighbour), and so do copies of the host calibration's arithmetic loop that never touch the GPU in their timed
part (results/2026-12-02-hostcal). This probe asks where such a rate comes from, without a GPU: each process runs
host_loop.py's arithmetic (`acc = (acc + i * i) % 1000003`) and records, slice by slice (--slice-ms), how long an
iteration took. Four phases, in this order:
  alone-first  each core alone in turn (--alone-s seconds each)
  together     every core at once (--together-s seconds)
  pairs        every pair of cores at once (--pair-s seconds each; --pairs none skips them)
  alone-last   each core alone in turn again
Where two of the guest's cores share a physical core (SMT siblings the VM does not show), a pair of them runs
slower than the others; where the host moves the guest's cores about, a core's rate changes between slices.

    cpu_rate_probe.py run OUT.csv [--cores LIST] [--alone-s S] [--together-s S] [--pair-s S] [--slice-ms MS]
                                  [--pairs all|none]
    cpu_rate_probe.py report OUT.csv[.gz]

OUT.csv: phase, run (a number per launch of processes), core, slice_mono_s (CLOCK_MONOTONIC at the slice's start),
iterations, seconds. `report` prints each phase's rates per core (ns an iteration, the median of its slices), how
far apart the cores were, each core's slices' spread, whether the cores that were fastest over a 0.2 s look stayed
closer over the next 2 s (all at once: could a sweep pick its cores by a look?), and the pairs that slowed a core by
1.25x or more.
"""
import csv
import gzip
import itertools
import os
import statistics
import subprocess
import sys
import time

CHUNK = 1000  # iterations between two looks at the clock (about 40 us)
MAX_SECONDS = 3600  # the longest phase (or slice) a run of the probe takes: more is a typing slip, not a probe
PAIR_SLOW = 1.25  # a pair whose core ran this much slower than alone is listed
FIELDS = ["phase", "run", "core", "slice_mono_s", "iterations", "seconds"]


def fail(msg):
    print("cpu_rate_probe.py: %s" % msg, file=sys.stderr)
    sys.exit(2)


def parse_cores(text):
    """'1-3,7' -> [1, 2, 3, 7]; every core must be one this process may run on."""
    cores = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if hi else a
        except ValueError:
            fail("--cores %r is not a list of cores such as 1-15 or 1,3,5" % text)
        if a < 0 or b < a:
            fail("--cores %r has the range %r backwards or negative" % (text, part))
        cores += range(a, b + 1)
    allowed = os.sched_getaffinity(0)
    outside = sorted(set(cores) - allowed)
    if outside:
        fail("--cores %r names cores this process may not use: %s (allowed %s)" % (
            text, ",".join(map(str, outside)), ",".join(map(str, sorted(allowed)))))
    if len(set(cores)) != len(cores):
        fail("--cores %r names a core twice" % text)
    return cores


def child(core, start_at, seconds, slice_s):
    """Runs on one core from start_at for seconds; prints one line per slice: start, iterations, seconds."""
    os.sched_setaffinity(0, {core})
    while time.monotonic() < start_at:
        time.sleep(0.001)
    end = start_at + seconds
    acc = 0
    rows = []
    while True:
        m0 = time.monotonic()
        t0 = time.perf_counter()
        n = 0
        while True:
            for i in range(CHUNK):
                acc = (acc + i * i) % 1000003
            n += CHUNK
            dt = time.perf_counter() - t0
            if dt >= slice_s:
                break
        rows.append("%.6f %d %.9f" % (m0, n, dt))
        if time.monotonic() >= end:
            break
    print("\n".join(rows))
    print("acc %d" % acc)  # keeps the loop's work observable


def launch(cores, seconds, slice_s):
    """Runs one child per core at once; returns {core: [(mono, iterations, seconds)]}."""
    start_at = time.monotonic() + 0.2  # every child started and pinned before it
    procs = {c: subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", str(c), repr(start_at),
                                  repr(seconds), repr(slice_s)], stdout=subprocess.PIPE, text=True) for c in cores}
    out = {}
    for c, p in procs.items():
        text, _ = p.communicate()
        if p.returncode != 0:
            for other in procs.values():  # none left running on its core after the probe gave up
                if other.poll() is None:
                    other.kill()
                    other.wait()
            print("cpu_rate_probe.py: the process on core %d exited %d" % (c, p.returncode), file=sys.stderr)
            sys.exit(1)
        out[c] = [(float(a), int(b), float(s)) for a, b, s in
                  (line.split() for line in text.splitlines() if not line.startswith("acc "))]
    return out


def run(argv):
    if not argv:
        fail("run needs OUT.csv")
    path, opts = argv[0], {"--cores": None, "--alone-s": "1", "--together-s": "10", "--pair-s": "0.4",
                           "--slice-ms": "20", "--pairs": "all"}
    rest = argv[1:]
    while rest:
        key = rest.pop(0)
        if key not in opts or not rest:
            fail("unknown option or missing value: %r" % key)
        opts[key] = rest.pop(0)
    vals = {}
    for k in ("--alone-s", "--together-s", "--pair-s", "--slice-ms"):
        try:
            vals[k] = float(opts[k])
        except ValueError:
            vals[k] = float("nan")
        if not 0 < vals[k] <= MAX_SECONDS * (1000 if k == "--slice-ms" else 1):
            fail("%s %r must be a positive number, at most %d %s" % (
                k, opts[k], MAX_SECONDS * (1000 if k == "--slice-ms" else 1), "ms" if k == "--slice-ms" else "s"))
    if opts["--pairs"] not in ("all", "none"):
        fail("--pairs %r is neither all nor none" % opts["--pairs"])
    cores = parse_cores(opts["--cores"]) if opts["--cores"] is not None else sorted(os.sched_getaffinity(0))[1:]
    if len(cores) < 2:
        fail("needs at least two cores (--cores)")
    slice_s = vals["--slice-ms"] / 1000
    rows = []
    run_no = [0]

    def record(phase, result):
        run_no[0] += 1
        for c, slices in result.items():
            rows.extend((phase, run_no[0], c, m, n, s) for m, n, s in slices)

    t0 = time.monotonic()
    for c in cores:
        record("alone-first", launch([c], vals["--alone-s"], slice_s))
    record("together", launch(cores, vals["--together-s"], slice_s))
    if opts["--pairs"] == "all":
        for a, b in itertools.combinations(cores, 2):
            record("pairs", launch([a, b], vals["--pair-s"], slice_s))
    for c in cores:
        record("alone-last", launch([c], vals["--alone-s"], slice_s))
    tmp = path + ".part"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        w.writerows(rows)
    os.replace(tmp, path)
    print("cpu_rate_probe: %d slices on cores %s in %.1f s -> %s" % (len(rows), ",".join(map(str, cores)),
                                                                      time.monotonic() - t0, path))


def ns(slices):
    """The median of slices' ns per iteration."""
    return statistics.median(1e9 * s / n for n, s in slices)


def quantile(vals, q):
    v = sorted(vals)
    return v[min(len(v) - 1, int(q * len(v)))]


def picked_by_a_look(slices, look_s=0.2, next_s=2.0, every_s=2.0):
    """Could a sweep pick fast cores by a short look? slices: {core: [(mono, ns)]} of one launch of every core at
    once. At each look (every every_s from the first slice, while look_s + next_s fit), the fastest two thirds of the
    cores over the look's look_s, and then every core's median over the next_s after it. Returns (picked, of,
    [(the picked cores' slowest / fastest over next_s, every core's)]) per look."""
    t0 = min(t for s in slices.values() for t, _ in s)
    end = max(t for s in slices.values() for t, _ in s) - t0
    picked_n, looks, start = max(2, 2 * len(slices) // 3), [], 0.0
    while start + look_s + next_s <= end + 1e-9:
        a = {c: [x for t, x in s if start <= t - t0 < start + look_s] for c, s in slices.items()}
        b = {c: [x for t, x in s if start + look_s <= t - t0 < start + look_s + next_s] for c, s in slices.items()}
        if all(a.values()) and all(b.values()):
            a = {c: statistics.median(v) for c, v in a.items()}
            b = {c: statistics.median(v) for c, v in b.items()}
            chosen = [b[c] for c in sorted(a, key=a.get)[:picked_n]]
            looks.append((max(chosen) / min(chosen), max(b.values()) / min(b.values())))
        start += every_s
    return picked_n, len(slices), looks


def report(argv):
    if len(argv) != 1:
        fail("report needs OUT.csv")
    try:
        opener = gzip.open if argv[0].endswith(".gz") else open
        with opener(argv[0], "rt", newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, EOFError) as e:
        fail("cannot read %s: %s" % (argv[0], getattr(e, "strerror", None) or e))
    if not rows or set(FIELDS) - set(rows[0]):
        fail("%s is not a cpu_rate_probe.py output (columns %s)" % (argv[0], ",".join(FIELDS)))
    by = {}
    for r in rows:
        by.setdefault((r["phase"], int(r["run"]), int(r["core"])), []).append(
            (int(r["iterations"]), float(r["seconds"])))
    alone = {}
    for phase in ("alone-first", "together", "alone-last"):
        med = {c: ns(s) for (p, _, c), s in by.items() if p == phase}
        if not med:
            continue
        cores = sorted(med)
        print("%s: ns an iteration per core (median of its slices): %s" % (
            phase, ", ".join("%d: %.1f" % (c, med[c]) for c in cores)))
        lo, hi = min(med.values()), max(med.values())
        print("  cores %.1f-%.1f ns (median core %.1f), slowest / fastest %.2fx" % (
            lo, hi, statistics.median(med.values()), hi / lo))
        spreads = {c: [1e9 * s / n for (p, _, cc), sl in by.items() if p == phase and cc == c for n, s in sl]
                   for c in cores}
        wide = {c: quantile(v, 0.9) / quantile(v, 0.1) for c, v in spreads.items()}
        print("  each core's slices, p90 / p10: median %.2fx, largest %.2fx (core %d)" % (
            statistics.median(wide.values()), max(wide.values()), max(wide, key=wide.get)))
        if phase.startswith("alone"):
            alone[phase] = med
        else:
            series = {c: [(float(r["slice_mono_s"]), 1e9 * float(r["seconds"]) / int(r["iterations"]))
                          for r in rows if r["phase"] == phase and int(r["core"]) == c] for c in cores}
            picked, of, looks = picked_by_a_look(series)
            if looks:
                print("  the fastest %d of %d cores by a 0.2 s look, over the next 2 s: slowest / fastest median "
                      "%.2fx over %d looks (every core: %.2fx)" % (picked, of, statistics.median(x for x, _ in looks),
                                                                  len(looks), statistics.median(y for _, y in looks)))
    if "alone-first" in alone and "alone-last" in alone:
        both = sorted(set(alone["alone-first"]) & set(alone["alone-last"]))
        drift = [alone["alone-last"][c] / alone["alone-first"][c] for c in both]
        print("alone, last / first per core: median %.2fx, %.2f-%.2fx" % (
            statistics.median(drift), min(drift), max(drift)))
        base = {c: (alone["alone-first"][c] + alone["alone-last"][c]) / 2 for c in both}
    else:
        base = alone.get("alone-first", {})
    pair_runs = {}
    for (p, run_no, c), s in by.items():
        if p == "pairs" and c in base:
            pair_runs.setdefault(run_no, {})[c] = ns(s) / base[c]
    if pair_runs:
        slow = []
        for slowed in pair_runs.values():
            if len(slowed) != 2:
                continue
            (a, sa), (b, sb) = sorted(slowed.items())
            slow.append((max(sa, sb), a, b, sa, sb))
        worst = [x for x in slow if x[0] >= PAIR_SLOW]
        print("pairs: %d, each core's time an iteration over its alone runs' mean: median %.2fx, largest %.2fx" % (
            len(slow), statistics.median(x for s in slow for x in s[3:]), max(x[0] for x in slow)))
        print("  pairs with a core %.2fx or more slower: %d%s" % (
            PAIR_SLOW, len(worst), "".join("\n  cores %d+%d: %.2fx, %.2fx" % (a, b, sa, sb)
                                          for _, a, b, sa, sb in sorted(worst, reverse=True))))


def main(argv):
    if argv[:1] == ["--child"] and len(argv) == 5:
        child(int(argv[1]), float(argv[2]), float(argv[3]), float(argv[4]))
    elif argv[:1] == ["run"]:
        run(argv[1:])
    elif argv[:1] == ["report"]:
        report(argv[1:])
    else:
        fail("usage: cpu_rate_probe.py run OUT.csv [options] | report OUT.csv")


if __name__ == "__main__":
    main(sys.argv[1:])
