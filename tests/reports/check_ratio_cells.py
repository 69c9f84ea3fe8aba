#!/usr/bin/env python3
"""Recomputes every ratio a report prints beside its operands, and fails on a contradiction.

    check_ratio_cells.py FILE_OR_FOLDER...     (folders: every *.md below them)

A ratio shown beside the figures it divides must be computed from them (issue 21): a reader who divides
the two cells must get the ratio printed. Each printed number stands for an interval (its last digit
rounded), so a check passes when the ratio's interval meets the interval of the quotient of its
operands' intervals: rounding never fails a check, a different statistic (a median of per-repeat
ratios beside medians of times) does as soon as it differs by more than the rounding.

Tables checked, by their headers:
- the results table (`per-task ms`, `tasks/s` and the ratio columns against other rows of the table);
- seed 001 on its own basis (`time-sliced / MPS` against the two times beside it);
- the exec table (`step vs one copy time-sliced` against the time-sliced N=1 row's step ms; where the report has
  an alone-runs table, `step vs one copy time-sliced (alone runs' spread)` and `completion vs one copy
  time-sliced` against the time-sliced alone runs' median, and the bracket against their largest and smallest);
- the interference table (`p99 vs alone` against `fg p99 ms alone -> beside`);
- comparison tables (`%Diff` against Base and New; Ref and Cmp before 2026-12-05);
- the duty-cycle table (`MPS / time-sliced` against the two slowdowns beside it);
- the regimes tables (`error` against `measured` and `model`).
Prints one line per contradiction (file, table row, cell, the recomputed interval); exit 1 if any.
"""
import os
import re
import sys

NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


class Value:
    """A printed number and the interval of values that print as it."""

    def __init__(self, text):
        self.text = text
        match = NUMBER.search(text.replace("−", "-"))
        if not match:
            raise ValueError(text)
        digits = match.group(0)
        self.value = float(digits)
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        half = 0.5 * 10 ** -decimals
        self.lo, self.hi = self.value - half, self.value + half


def value(cell):
    cell = cell.strip().strip("*")
    if cell in ("", "-") or not NUMBER.search(cell):
        return None
    return Value(cell)


def quotient(num, den, scale=1.0, offset=0.0):
    """Interval of num/den*scale+offset for positive operands."""
    if den.lo <= 0 or num.lo < 0:
        return None
    return (num.lo / den.hi * scale + offset, num.hi / den.lo * scale + offset)


def meets(shown, interval, slack=1e-9):
    return interval is None or (shown.lo <= interval[1] + slack and shown.hi >= interval[0] - slack)


def tables(lines):
    """Yields (header cells, [(line number, row cells)]) for each markdown table."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|\s*$", lines[i + 1]):
            header = [c.strip() for c in lines[i].strip().strip("|").split("|")]
            rows, j = [], i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append((j + 1, [c.strip() for c in lines[j].strip().strip("|").split("|")]))
                j += 1
            yield header, rows
            i = j
        else:
            i += 1


class Checker:
    def __init__(self, path):
        self.path = path
        self.problems = []
        self.checked = 0

    def check(self, line, what, shown, interval):
        if shown is None or interval is None:
            return
        self.checked += 1
        if not meets(shown, interval):
            self.problems.append("{}:{}: {} prints {} but its operands give {:.4g}..{:.4g}".format(
                self.path, line, what, shown.text, interval[0], interval[1]))


def column(header, name):
    return header.index(name) if name in header else None


def check_results_table(ck, header, rows):
    w, m, n = column(header, "workload"), column(header, "mode"), column(header, "N")
    ms, tput = column(header, "per-task ms"), column(header, "tasks/s")
    if None in (w, m, n, ms, tput):
        return
    by_key = {(r[w], r[m], r[n]): r for _, r in rows}
    checks = [("per-task time vs one process time-sliced", ms, lambda r: (r[w], "timeslice", "1")),
              ("per-task time vs N=1, same mode", ms, lambda r: (r[w], r[m], "1")),
              ("throughput vs N=1, same mode", tput, lambda r: (r[w], r[m], "1")),
              ("throughput vs time-sliced, same N", tput, lambda r: (r[w], "timeslice", r[n])),
              ("per-task time vs unlimited MPS, same N", ms, lambda r: (r[w], "mps", r[n]))]
    for line, r in rows:
        for name, operand, partner in checks:
            col = column(header, name)
            other = by_key.get(partner(r))
            if col is None or other is None:
                continue
            num, den, shown = value(r[operand]), value(other[operand]), value(r[col])
            if num and den:
                ck.check(line, name, shown, quotient(num, den))


def check_quotient_column(ck, rows, header, num, den, shown, name, scale=1.0, offset=0.0):
    """Each row's `shown` cell against its `num` cell over its `den` cell (times scale, plus offset)."""
    n, d, r_ = column(header, num), column(header, den), column(header, shown)
    for line, r in rows:
        a, b = value(r[n]), value(r[d])
        if a and b:
            ck.check(line, name, value(r[r_]), quotient(a, b, scale, offset))


def check_exec_table(ck, header, rows):
    m, n, step = column(header, "mode"), column(header, "N"), column(header, "step ms")
    ratio = column(header, "step vs one copy time-sliced")
    alone = next((r for _, r in rows if r[m] == "timeslice" and r[n] == "1"), None)
    if alone is None or value(alone[step]) is None:
        return
    for line, r in rows:
        if value(r[step]):
            ck.check(line, "step vs one copy time-sliced", value(r[ratio]), quotient(value(r[step]), value(alone[step])))


ALONE_STEP = "step vs one copy time-sliced (alone runs' spread)"
ALONE_COMPLETION = "completion vs one copy time-sliced"


def alone_anchors(lines):
    """{"step": (median, min, max), "completion": ...} of the time-sliced row of an alone-runs table."""
    for header, rows in tables(lines):
        if "step ms, in run order" not in header:
            continue
        for _, r in rows:
            if len(r) == len(header) and r[0] == "timeslice":
                anchors = {}
                for key, col in (("step", 2), ("completion", 6)):
                    draws = [value(x) for x in r[col].split(",") if value(x)]
                    med = value(r[col + 1])
                    if draws and med:
                        anchors[key] = (med, min(draws, key=lambda v: v.value), max(draws, key=lambda v: v.value))
                return anchors
    return {}


def check_ratio_to_alone(ck, line, name, cell, num, anchor):
    """`cell` ("1.62x (1.41-1.88)") against num over the anchor's median, max and min."""
    if anchor is None or not num or cell.strip() == "-":
        return
    med, lo, hi = anchor
    ck.check(line, name, value(cell), quotient(num, med))
    bracket = re.search(r"\(([-+\d.]+)-([-+\d.]+)\)", cell)
    if bracket:
        ck.check(line, name + " (over the largest alone draw)", value(bracket.group(1)), quotient(num, hi))
        ck.check(line, name + " (over the smallest alone draw)", value(bracket.group(2)), quotient(num, lo))


def check_exec_alone_table(ck, header, rows, anchors):
    step, completion = column(header, "step ms"), column(header, "completion s")
    for line, r in rows:
        check_ratio_to_alone(ck, line, ALONE_STEP, r[column(header, ALONE_STEP)], value(r[step]), anchors.get("step"))
        if column(header, ALONE_COMPLETION) is not None:
            check_ratio_to_alone(ck, line, ALONE_COMPLETION, r[column(header, ALONE_COMPLETION)], value(r[completion]),
                                 anchors.get("completion"))


def check_interference_table(ck, header, rows):
    p99, ratio = column(header, "fg p99 ms alone → beside"), column(header, "p99 vs alone (min–max)")
    for line, r in rows:
        parts = r[p99].split("→")
        if len(parts) == 2 and value(parts[0]) and value(parts[1]):
            ck.check(line, "p99 vs alone", value(r[ratio]), quotient(value(parts[1]), value(parts[0])))


def check_file(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    ck = Checker(path)
    anchors = alone_anchors(lines)
    for header, rows in tables(lines):
        rows = [(line, r) for line, r in rows if len(r) == len(header)]
        if "per-task ms" in header and "tasks/s" in header:
            check_results_table(ck, header, rows)
        elif "time-sliced / MPS" in header and "time-sliced" in header and "MPS" in header:
            check_quotient_column(ck, rows, header, "time-sliced", "MPS", "time-sliced / MPS", "time-sliced / MPS")
        elif ALONE_STEP in header:
            check_exec_alone_table(ck, header, rows, anchors)
        elif "step vs one copy time-sliced" in header:
            check_exec_table(ck, header, rows)
        elif "p99 vs alone (min–max)" in header and "fg p99 ms alone → beside" in header:
            check_interference_table(ck, header, rows)
        elif "%Diff" in header and "Base" in header and "New" in header:
            check_quotient_column(ck, rows, header, "New", "Base", "%Diff", "%Diff", 100.0, -100.0)
        elif "%Diff" in header and "Ref" in header and "Cmp" in header:  # comparisons written before 2026-12-05
            check_quotient_column(ck, rows, header, "Cmp", "Ref", "%Diff", "%Diff", 100.0, -100.0)
        elif "MPS / time-sliced" in header and "time-sliced slowdown" in header:
            check_quotient_column(ck, rows, header, "time-sliced slowdown", "MPS slowdown", "MPS / time-sliced",
                                  "MPS / time-sliced")
        elif "measured" in header and "model" in header and "error" in header:
            check_quotient_column(ck, rows, header, "model", "measured", "error", "error (model over measured)",
                                  100.0, -100.0)
    return ck


def main(args):
    if not args:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    files = []
    for a in args:
        if os.path.isdir(a):
            for root, _, names in os.walk(a):
                files += [os.path.join(root, n) for n in names if n.endswith(".md")]
        else:
            files.append(a)
    problems, checked = [], 0
    for path in sorted(files):
        ck = check_file(path)
        problems += ck.problems
        checked += ck.checked
    for p in problems:
        print(p)
    print("{} ratio cells recomputed in {} files: {} contradiction(s)".format(checked, len(files), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
