#!/usr/bin/env python3
"""Every measured number the README and the docs quote is tied to committed data, and checked there.

    check_claims.py ROOT [FILE...]     (default: README.md and docs/*.md)

A number here is what prose quotes as a result: a decimal (4.21, 0.138), or a whole number with a unit
of a result (x, %, s, ms, us). Each one must be accounted for in one of four ways:
1. generated: it sits in a block between `<!-- KIND: PATH -->` and `<!-- /KIND -->`, which
   scripts/update_readme.py writes from the committed report and Readme.EveryGeneratedBlockIsTheCommittedReports
   keeps equal;
2. quoted with its folder: its section (the text from one heading to the next) cites a results folder
   (`results/<date>-...`, a link or a path; or a `<!-- sources: results/A results/B -->` line in the section)
   and the number occurs in a text file of one of those folders (a report, README, log, CSV or JSON): a
   decimal as its digits, a whole number with its unit. The seed articles' numbers (results/seeds.csv, read
   as "value unit") are a source of every section. So a number that drifts from what the tool printed, or
   names the wrong folder, fails;
3. computed: the document's claims file (tests/docs/claims/<NAME>.json, for README.md and docs/<NAME>.md)
   lists it under "computed" with its section's heading and the sum it comes from, in numbers the same
   section quotes from its folders; the check redoes the sum, and the printed number must round to it;
4. a constant of the tool: the claims file lists it under "constants" with the file that defines it (a
   source file, a script) and the text there that holds it, which must be present.
Text in backticks counts too: a quoted line with a number in it (`sweep: 71.1 s, of which ...`) must occur
in the section's folders as it is (its spaces aside), unless it is a command line or an option.
A listed constant or sum is checked as listed even where the number also occurs in a folder. Way 2 is a
presence check in what the tool and the people wrote (reports, READMEs, logs, JSON): a number that occurs in a
cited folder only as a CSV cell (a data file's thousands of samples hold most two-digit decimals by chance) must
name its file and column in the section, `<!-- sources: results/<date>-.../file.csv#column -->`, and occur in that
column (a cell that prints or rounds to it, or text holding it), or be listed under "computed".
Prints one line per number not accounted for (file:line: number, the folders searched) and exits 1 if any;
also fails on a claims file's entry that matches nothing, so the lists cannot outlive the prose.
"""
import csv
import glob
import json
import os
import re
import sys

GENERATED = re.compile(r"<!-- (\w+): [^>]*-->.*?<!-- /\1 -->", re.S)
FOLDER = re.compile(r"results/(\d{4}-\d{2}-\d{2}[\w.-]*)")
# A number as prose quotes a result: a decimal, or a whole number with a result's unit; both ends of a range
# (9.25-12.83x); not a version (580.159.04), a date or a name's digits (784-512-512-10, sm_90).
NUMBER = re.compile(r"(?<![\w.])(?<![A-Za-z]-)(?<!/)[-+−]?(?:\d+\.\d+(?!\d|\.\d)|\d+(?= ?(?:x(?! ?\d)|%|s|ms|us)(?![\w])))")
UNIT = re.compile(r" ?(x(?! ?\d)|%|s|ms|us)(?![\w])")  # "10 x 938" multiplies: not a ratio
# Versions and sizes of tools are not results.
NOT_RESULT = re.compile(r"(CUDA|CMake|driver|Python|version|nvcc|clang-format|C\+\+|Toolkit|release|sm_)\s*$")
QUOTE = re.compile(r"`([^`\n]*)`")  # each span in backticks; those with a digit are checked
# What backticks hold that is a command, an option, a path or a formula rather than printed output.
NOT_OUTPUT = re.compile(r"^(bench_mps|scripts/|python3|cmake|ctest|nvidia-|--|-[a-zA-Z]|[A-Z_]+=|\$|results/|docs/|"
                        r"harness/|tests/|zoo/|plots/|kernels/|build/|[\w.]+\.(?:csv|json|md|py|sh|cpp|hpp|png)\b)")
SEEDS = "seeds.csv"  # the seed articles' numbers, a source of every section
TEXT_FILES = (".md", ".json", ".csv", ".log", ".txt", ".tsv", ".out")
DATA_FILES = (".csv", ".tsv")  # cells of data: a number found only here needs its column cited
COLUMN = re.compile(r"results/([\w.-]+(?:/[\w.-]+)*\.csv)#(\w+)")
SKIP_FILES = ("tasks.csv", "tasks.csv.gz")


def docs_of(root, given):
    if given:
        return given
    return [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))


class Folders:
    """The text of a results folder's files, read once, with spaces collapsed."""

    def __init__(self, root, prose_only=False):
        self.root = root
        self.cache = {}
        self.prose_only = prose_only
        self.prose = None if prose_only else Folders(root, True)

    def text(self, name):
        if name == SEEDS:
            return self.seeds()
        if name not in self.cache:
            parts = []
            base = os.path.join(self.root, "results", name)
            for here, _, files in os.walk(base):
                for file in sorted(files):
                    if self.prose_only and file.endswith(DATA_FILES):
                        continue
                    if file.endswith(TEXT_FILES) and file not in SKIP_FILES and not (file.startswith("profile-") and file.endswith(".json")):
                        with open(os.path.join(here, file), encoding="utf-8", errors="replace") as f:
                            parts.append(f.read())
            self.cache[name] = squeeze("\n".join(parts)) if parts else None
        return self.cache[name]

    def column(self, path, column):
        """The cells of `column` in results/`path` (None where the file or the column is not there)."""
        key = ("column", path, column)
        if key not in self.cache:
            cells = None
            file = os.path.join(self.root, "results", path)
            if os.path.isfile(file):
                with open(file, encoding="utf-8", errors="replace", newline="") as f:
                    rows = list(csv.DictReader(f))
                if rows and column in rows[0]:
                    cells = [r[column] or "" for r in rows]
            self.cache[key] = cells
        return self.cache[key]


    def seeds(self):
        """The seed articles' numbers as they are quoted: "value unit" per row (results/seeds.csv)."""
        if SEEDS not in self.cache:
            with open(os.path.join(self.root, "results", SEEDS), encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            self.cache[SEEDS] = " | ".join("{} {} {}".format(r["value"], r["unit"], r["note"]) for r in rows)
        return self.cache[SEEDS]


def squeeze(text):
    return re.sub(r"\s+", " ", text.replace("−", "-"))


def blank_generated(text):
    """The document with generated blocks blanked (line numbers kept)."""
    return GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def sections(text):
    """(first line number, lines) of each heading's section."""
    out, start, lines, in_code = [], 1, [], False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if line.startswith("#") and lines and not in_code:
            out.append((start, lines))
            start, lines = number, []
        lines.append(line)
    out.append((start, lines))
    return out


def cited_folders(section_text, root):
    names = set(FOLDER.findall(section_text))  # links, paths and `<!-- sources: ... -->` lines alike
    # A cited path may name a file or a subfolder: keep the top folder, which holds it.
    tops = {n.split("/")[0] for n in names if os.path.isdir(os.path.join(root, "results", n.split("/")[0]))}
    return sorted(tops) + [SEEDS]


def tokens(text):
    """The numbers of a piece of text as printed, each with its unit where it has one ("445 s", "4.21x", "0.138")."""
    out = []
    for m in NUMBER.finditer(text):
        if NOT_RESULT.search(text[:m.start()]):
            continue
        unit = UNIT.match(text, m.end())
        out.append(m.group(0).replace("−", "-").lstrip("+") + (unit.group(0) if unit else ""))
    return out


def prose_numbers(line):
    """The numbers of a line outside backticks, link targets and folder names."""
    bare = re.sub(r"\]\([^)]*\)", "]", line)
    bare = re.sub(r"`[^`]*`", "", bare)
    return tokens(FOLDER.sub("", bare))


def found_in(needle, folders, store):
    return any(store.text(name) and needle in store.text(name) for name in folders)


def number_pattern(token):
    """A decimal matches as its digits (a folder may print 4.21 or 4.21x); a whole number with its unit."""
    digits = re.match(r"-?[\d.]+", token).group(0).lstrip("-")
    unit = token[len(re.match(r"-?[\d.]+", token).group(0)):].strip()
    if "." in digits:
        return re.compile(r"(?<![\d.])" + re.escape(digits) + r"(?!\d)")
    return re.compile(r"(?<![\d.])" + re.escape(digits) + r"(?:\.0+)? ?" + re.escape(unit) + r"(?![\w])")


def occurs(pattern, folders, store):
    return any(store.text(name) and pattern.search(store.text(name)) for name in folders)


def number_found(token, folders, store):
    return occurs(number_pattern(token), folders, store)


def in_cited_column(token, columns, store):
    """Whether a cited file#column holds the number: a cell that rounds to it (as a share too: 0.0075 for 0.75 %),
    or text holding it."""
    digits = re.match(r"-?[\d.]+", token.replace("−", "-")).group(0)
    pattern = number_pattern(token)
    for path, column in columns:
        for cell in store.column(path, column) or []:
            if pattern.search(cell):
                return True
            try:
                value = float(cell)
            except ValueError:
                continue
            if "." in digits and any(rounds_to(digits.lstrip("-"), abs(v)) for v in (value, 100 * value)):
                return True
    return False


def rounds_to(printed, value):
    digits = printed.split(".")[1] if "." in printed else ""
    half = 0.5 * 10 ** -len(digits)
    return abs(float(printed) - value) <= half + 1e-9


def claims_of(rel):
    """The document's claims file: {"constants": [...], "computed": [...]}, empty lists where it has none."""
    name = os.path.splitext(os.path.basename(rel))[0]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "claims", name + ".json")
    claims = {"constants": [], "computed": []}
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            claims.update(json.load(f))
    for kind in ("constants", "computed"):
        for c in claims[kind]:
            c["doc"] = rel
    return claims


def check_document(path, root, store):
    rel = os.path.relpath(path, root)
    claims = claims_of(rel)
    used = set()
    with open(path, encoding="utf-8") as f:
        text = blank_generated(f.read())
    constants = {c["number"] for c in claims["constants"]}
    problems = []
    for start, lines in sections(text):
        section_text = "\n".join(lines)
        folders = cited_folders(section_text, root)
        columns = COLUMN.findall(section_text)
        computed = [c for c in claims["computed"] if c["section"] == lines[0].strip()]
        in_code = False
        for offset, line in enumerate(lines):
            number_at = start + offset
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            candidates = prose_numbers(line) if not in_code else []
            quotes = [q for q in QUOTE.findall(line) if re.search(r"\d", q) and not NOT_OUTPUT.match(q.strip())]
            quotes = quotes if not in_code else []
            if in_code and re.search(r"\d", line) and not NOT_OUTPUT.match(line.strip()):
                quotes = [line.strip()]
            for quote in quotes:
                if folders and found_in(squeeze(quote), folders, store):
                    continue
                candidates += tokens(quote)
            for number in candidates:
                # A listed constant or sum is checked as listed, even where the number also occurs in a folder.
                if number in constants:
                    used.add(("constants", number))
                    continue
                mine = [c for c in computed if c["number"] == number]
                if mine:
                    for claim in mine:
                        used.add(("computed", number))
                        problems += check_computed(rel, number_at, claim, folders, store)
                    continue
                if folders and number_found(number, folders, store.prose or store):
                    continue
                where = ", ".join(folders)
                if folders and number_found(number, folders, store):
                    if in_cited_column(number, columns, store):
                        continue
                    problems.append("{}:{}: {} occurs in {} only as a CSV cell: cite its file and column "
                                    "(<!-- sources: results/.../file.csv#column -->) or list it under computed"
                                    .format(rel, number_at, number, where))
                    continue
                problems.append("{}:{}: {} is not in {}".format(rel, number_at, number, where))
    problems += check_constants(root, claims)
    for kind in ("constants", "computed"):
        for c in claims[kind]:
            if (kind, c["number"]) not in used:
                problems.append("{} claims: {} {} matches no number left unaccounted for".format(rel, kind, c["number"]))
    return problems


def check_computed(rel, line, claim, folders, store):
    for operand in re.findall(r"\d+(?:\.\d+)?", claim["from"]):
        if not occurs(re.compile(r"(?<![\d.])" + re.escape(operand) + r"(?![\d])"), folders, store):
            return ["{}:{}: {}: {} (in '{}') is not in {}".format(rel, line, claim["number"], operand, claim["from"],
                                                               ", ".join(folders))]
    try:
        value = eval(claim["from"], {"__builtins__": {}}, {"abs": abs, "min": min, "max": max})
    except Exception as error:  # a sum that does not parse is a broken entry
        return ["{}:{}: {}: cannot compute '{}': {}".format(rel, line, claim["number"], claim["from"], error)]
    printed = re.sub(r"[^\d.-]", "", claim["number"])
    scale = 100.0 if claim["number"].endswith("%") and claim.get("percent", False) else 1.0
    if not rounds_to(printed, value * scale):
        return ["{}:{}: {} but {} = {:.6g}".format(rel, line, claim["number"], claim["from"], value * scale)]
    return []


def check_constants(root, claims):
    problems = []
    for c in claims["constants"]:
        path = os.path.join(root, c["file"])
        if not os.path.isfile(path):
            problems.append("{} claims: {}: no file {}".format(c["doc"], c["number"], c["file"]))
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            if squeeze(c["text"]) not in squeeze(f.read()):  # spaces aside: a reformatted line still holds it
                problems.append("{} claims: {}: '{}' is not in {}".format(c["doc"], c["number"], c["text"], c["file"]))
    return problems


def main(argv):
    if len(argv) < 2:
        print("usage: check_claims.py ROOT [FILE...]", file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    store = Folders(root)
    docs = docs_of(root, argv[2:])
    problems = []
    for path in docs:
        problems += check_document(path, root, store)
    for p in problems:
        print(p)
    print("claims: {} documents, {} numbers not accounted for".format(len(docs), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
