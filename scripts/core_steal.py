#!/usr/bin/env python3
"""Where a pinned copy's core went during its steady part: its own work, idle, or time the hypervisor took (steal).

    python3 scripts/core_steal.py SWEEP PROCSTAT

SWEEP is a sweep folder of an exec program run with --exec-gate and --profile-gpu (runs.csv's facts give each copy's
core, its gate release on CLOCK_MONOTONIC and its steady part on the profile's clock; units.csv its unit). PROCSTAT is
a gzipped log of /proc/stat's cpu lines, each sample headed by "T <first field of /proc/uptime>", as this loop writes
it beside the sweep on the same machine:

    (while :; do echo "T $(cut -d' ' -f1 /proc/uptime)"; grep '^cpu' /proc/stat; sleep 0.2; done > procstat.txt) &

/proc/uptime counts from boot as CLOCK_MONOTONIC does while the machine never sleeps. Each copy's window runs from
the last sample at or before its steady part's start to the first at or after its end, so it holds the whole
steady part and up to one sample interval more on each side. Prints one line per copy (its core's ticks over the
window: busy, idle, iowait, steal) and then the whole log's totals over every core. Ticks are /proc/stat's units
(USER_HZ, 1/100 s on Linux x86).
"""
import csv
import gzip
import os
import sys

FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def samples(path):
    """[(t, {cpu name: {field: ticks}})] in log order, complete samples only (every cpu line of the first)."""
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("T "):
                out.append((float(line.split()[1]), {}))
            elif line.startswith("cpu") and out:
                parts = line.split()
                out[-1][1][parts[0]] = dict(zip(FIELDS, map(int, parts[1:1 + len(FIELDS)])))
    names = set(out[0][1]) if out else set()
    return [s for s in out if set(s[1]) == names]


def between(log, start, end):
    """The last sample at or before start and the first at or after end."""
    before = [s for s in log if s[0] <= start]
    after = [s for s in log if s[0] >= end]
    if not before or not after:
        return None
    return before[-1], after[0]


def delta(a, b, cpu):
    return {k: b[1][cpu][k] - a[1][cpu][k] for k in FIELDS}


def busy(d):
    return sum(d[k] for k in FIELDS) - d["idle"] - d["iowait"] - d["steal"]


def main(sweep, procstat):
    log = samples(procstat)
    if len(log) < 2:
        sys.exit(f"core_steal.py: {procstat}: fewer than two complete samples")
    with open(os.path.join(sweep, "units.csv"), encoding="utf-8") as f:
        units = {(r["run_id"], r["worker"]): r for r in csv.DictReader(f)}
    print(f"{sweep}: {len(log)} samples of /proc/stat over {log[-1][0] - log[0][0]:.1f} s")
    print("| run | worker | core | unit ms | steady part s | window s | core busy ticks | idle | iowait | steal |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with open(os.path.join(sweep, "runs.csv"), encoding="utf-8") as f:
        for r in csv.DictReader(f):
            facts = dict(kv.split("=", 1) for kv in r["facts"].split(";") if "=" in kv)
            need = ("core", "gate_release_mono_s", "gate_release_s", "profile_steady_from_s", "profile_steady_to_s")
            if any(k not in facts for k in need):
                print(f"| {r['run_id']} | {r['worker']} | - | - | - | - | no core, gate or steady part in its facts |"
                      " | | |")
                continue
            to_mono = float(facts["gate_release_mono_s"]) - float(facts["gate_release_s"])  # profile clock -> mono
            start = float(facts["profile_steady_from_s"]) + to_mono
            end = float(facts["profile_steady_to_s"]) + to_mono
            pair = between(log, start, end)
            u = units.get((r["run_id"], r["worker"]), {})
            if pair is None:
                print(f"| {r['run_id']} | {r['worker']} | {facts['core']} | - | - | - | outside the log | | | |")
                continue
            d = delta(*pair, "cpu" + facts["core"])
            unit, steady = float(u.get("unit_ms") or "nan"), float(u.get("steady_s") or "nan")
            print(f"| {r['run_id']} | {r['worker']} | {facts['core']} | {unit:.3f} | {steady:.3f} | "
                  f"{pair[1][0] - pair[0][0]:.2f} | {busy(d)} | {d['idle']} | {d['iowait']} | {d['steal']} |")
    total = delta(log[0], log[-1], "cpu")
    share = 100.0 * total["steal"] / max(1, sum(total.values()))
    print(f"every core over the log: busy {busy(total)} ticks, idle {total['idle']}, iowait {total['iowait']}, "
          f"steal {total['steal']} ({share:.3f} % of all ticks)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
