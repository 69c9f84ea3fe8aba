#!/usr/bin/env python3
"""Study READMEs under results/ quote what a script prints on their committed folders; this runs each script again
and fails on any printed line the README does not hold (the numbers recompute from the committed files).

    python3 tests/docs/studies_recompute.py ROOT
"""
import subprocess
import sys


def everything(lines):
    return lines


def unpinned_timesliced(lines):
    """The no-pin README quotes corun_length.py's lines on the unpinned alone runs, time-sliced: their swings, and
    the model's summary with its first length."""
    at = next(i for i, line in enumerate(lines) if line.startswith("timeslice: "))
    return [line for line in lines if "unpinned timeslice:" in line] + lines[at:at + 2]


def ladder_lines(*names):
    """A README that quotes ladder_acceptance.py's lines on the programs it gave a ladder (NAMES), and its totals."""
    def quoted(lines):
        return [line for line in lines if any(line.startswith(f"{kind}: {n} ") or line.startswith(f"{kind}: {n}:")
                                              for kind in ("ladder", "program") for n in names)
                or not line.startswith(("ladder: ", "program: "))]
    return quoted


def program_lines(*names):
    """A README that quotes ladder_acceptance.py's per-program lines of NAMES and its totals, not its ladders."""
    def quoted(lines):
        return [line for line in lines if any(line.startswith(f"program: {n}:") for n in names)
                or not line.startswith(("ladder: ", "program: "))]
    return quoted


def pooled_lines(lines):
    """gate_cost.py's pooled lines, from the heading on (a README that quotes several folders' pairs pooled)."""
    at = next(i for i, line in enumerate(lines) if line.startswith("Pooled over"))
    return lines[at:]


def first_table(lines):
    """gate_study.py's first table (co-run copies and cells per folder), up to the first blank line."""
    return lines[:lines.index("")] if "" in lines else lines


def alone_table(lines):
    """gate_study.py's table of the alone runs (the one whose heading names them)."""
    at = next(i for i, line in enumerate(lines) if line.startswith("| folder | mode | alone runs |"))
    end = lines.index("", at) if "" in lines[at:] else len(lines)
    return lines[at:end]


def without_pair_list(lines):
    """cpu_rate_probe.py's report without its list of slow pairs (the README quotes their count)."""
    return [line for line in lines if not line.startswith("  cores ") or "+" not in line.split(":")[0]]


def parting_lines(lines):
    return [line for line in lines if line.startswith("copies parted, ")]


GATECOST_OFF = ["results/2026-12-02-gatecost-off/" + d for d in
                ("lease1", "lease2", "lease3", "lease4", "lease5/call1", "lease5/call2", "lease5/call3",
                 "lease6/call1", "lease6/call2", "lease6/call3")]

# (the README's folder, the script and its arguments run from ROOT, the printed lines the README quotes)
STUDIES = [
    # the README quotes the pooled lines as they were after lease 5 (its first 7 folders) and after lease 6
    ("results/2026-12-02-gatecost-off", ["scripts/gate_cost.py"] + GATECOST_OFF[:7], everything),
    ("results/2026-12-02-gatecost-off", ["scripts/gate_cost.py"] + GATECOST_OFF, everything),
    ("results/2026-12-04-cupticost", ["scripts/cupti_cost.py", "results/2026-12-04-cupticost"], everything),
    *[("results/2026-12-04-cupticost-graph",
       ["scripts/cupti_cost.py", "--step", step, "results/2026-12-04-cupticost-graph/" + lease], everything)
      for lease, steps in (("lease1", ("BM_GraphStep", "BM_SyncStep")),
                           ("lease2", ("BM_GraphStep", "BM_GraphStepBuiltBeforeGate", "BM_SyncStep")))
      for step in steps],
    ("results/2026-12-04-gatecost-detach", ["scripts/gate_cost.py", "results/2026-12-04-gatecost-detach"], everything),
    ("results/2026-12-04-gate-probe-check",
     ["scripts/host_calibration/cpu_rate_probe.py", "report",
      "results/2026-12-04-gate-probe-check/gate/gemm/steady/cores-before.csv.gz"], everything),
    # the README quotes the pooled lines of the detach pairs, earlier and these
    ("results/2026-12-04-gatecost-detach",
     ["scripts/gate_cost.py"] + GATECOST_OFF[-3:] + ["results/2026-12-04-gatecost-detach"], pooled_lines),
    ("results/2026-12-03-corun-length",
     ["scripts/corun_length.py", "--swings", "95", "--k", "1,2", "results/2026-12-03-corun-length/mnist-4x"],
     everything),
    ("results/2026-12-03-no-pin", ["scripts/gate_study.py", "results/2026-12-03-no-pin/mnist-4x"], everything),
    ("results/2026-12-03-no-pin", ["scripts/pin_study.py", "results/2026-12-03-no-pin/mnist-4x"], everything),
    ("results/2026-12-03-no-pin",
     ["scripts/corun_length.py", "--swings", "95", "--k", "1,2", "results/2026-12-03-no-pin/mnist-4x/unpinned"],
     unpinned_timesliced),
    ("results/2026-12-03-advise-lease4",
     ["scripts/advise_acceptance.py"] + ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4")],
     everything),
    ("results/2026-12-03-advise-lease5",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5")], everything),
    ("results/2026-12-03-advise-lease5",
     ["scripts/paced_gate_rule.py", "results/2026-12-03-advise-lease5/paced-gate/first-kernel-n10"], everything),
    ("results/2026-12-03-advise-lease6",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5", "lease6", "lease7")],
     everything),
    ("results/2026-12-03-advise-lease6",
     ["scripts/paced_gate_rule.py", "results/2026-12-03-advise-lease6/paced-gate/wait-21"], everything),
    ("results/2026-12-03-advise-lease6", ["scripts/gate_study.py", "results/2026-12-03-advise-lease6/paced-gate"],
     everything),
    ("results/2026-12-03-advise-lease6", ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-03T16:00:00Z"],
     everything),
    ("results/2026-12-03-advise-lease8",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5", "lease6", "lease7",
                                                 "lease8")], everything),
    ("results/2026-12-06-advise-lease9",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5", "lease6", "lease7",
                                                 "lease8")] + ["results/2026-12-06-advise-lease9"], everything),
    ("results/2026-12-06-advise-lease11",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5", "lease6", "lease7",
                                                 "lease8")] +
     ["results/2026-12-06-advise-" + f for f in ("lease9", "lease10", "lease11")], everything),
    ("results/2026-12-06-advise-lease12",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5", "lease6", "lease7",
                                                 "lease8")] +
     ["results/2026-12-06-advise-" + f for f in ("lease9", "lease10", "lease11", "lease12")], everything),
    ("results/2026-12-06-advise-lease13",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5", "lease6", "lease7",
                                                 "lease8")] +
     ["results/2026-12-06-advise-" + f for f in ("lease9", "lease10", "lease11", "lease12", "lease13")], everything),
    ("results/2026-12-06-advise-lease14",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5", "lease6", "lease7",
                                                 "lease8")] +
     ["results/2026-12-06-advise-" + f for f in ("lease9", "lease10", "lease11", "lease12", "lease13", "lease14")],
     lambda lines: [line for line in lines if "lease14" in line or line.startswith(("program: amp-train", "program: vae",
                                                                                      "decided alike"))]),
    ("results/2026-12-06-advise-lease15",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5", "lease6", "lease7",
                                                 "lease8")] +
     ["results/2026-12-06-advise-" + f for f in ("lease9", "lease10", "lease11", "lease12", "lease13", "lease14",
                                                 "lease15")],
     lambda lines: [line for line in lines if "lease15" in line or line.startswith(("program: amp-train", "program: vae",
                                                                                      "decided alike"))]),
    ("results/2026-12-07-advise-lease16",
     ["scripts/advise_acceptance.py"] +
     ["results/2026-12-03-advise-" + f for f in ("profiled", "lease2", "lease3", "lease4", "lease5", "lease6", "lease7",
                                                 "lease8")] +
     ["results/2026-12-06-advise-" + f for f in ("lease9", "lease10", "lease11", "lease12", "lease13", "lease14",
                                                 "lease15")] + ["results/2026-12-07-advise-lease16"],
     lambda lines: [line for line in lines if "lease16" in line or line.startswith(("program: ", "decided alike"))]),
    ("results/2026-12-03-advise-lease8", ["scripts/gate_study.py", "results/2026-12-03-advise-lease8/gate"],
     everything),
    ("results/2026-12-03-advise-lease8", ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-03T18:50:00Z"],
     ladder_lines("amp-train", "ddp-single-gpu", "dcgan")),
    ("results/2026-12-03-advise-lease8",
     ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-03T18:50:00Z", "--parting"], parting_lines),
    ("results/2026-12-03-gate-ladders",
     ["scripts/ladder_acceptance.py", ".", "--parting", "--before", "2026-12-04T00:00:00Z"],
     ladder_lines("amp-train", "dcgan")),
    ("results/2026-12-03-gate-ladders", ["scripts/gate_study.py", "results/2026-12-03-gate-ladders/gate"], everything),
    ("results/2026-12-04-shared-phase", ["scripts/gate_study.py", "results/2026-12-04-shared-phase/gate"], everything),
    ("results/2026-12-04-shared-phase",
     ["scripts/gate_study.py", "results/2026-12-04-shared-phase/gate", "--units", "units-also-88079fe7.csv"],
     first_table),
    ("results/2026-12-04-shared-phase", ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-04T12:00:00Z"],
     program_lines("mnist", "vae", "wlm-lstm", "siamese", "mnist-ff")),
    ("results/2026-12-04-reladder", ["scripts/gate_study.py", "results/2026-12-04-reladder/gate"], everything),
    ("results/2026-12-04-reladder", ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-04T13:00:00Z"],
     program_lines("gemm", "mnist-rnn", "mnist-startup", "wlm-transformer", "ddp-single-gpu")),
    ("results/2026-12-04-reladder",
     ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-04T13:00:00Z", "--parting"], program_lines()),
    ("results/2026-12-04-regate", ["scripts/gate_study.py", "results/2026-12-04-regate/gate"], everything),
    ("results/2026-12-04-regate", ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-04T16:00:00Z"],
     program_lines("dcgan", "amp-train", "cuda-graphs")),
    ("results/2026-12-04-regate",
     ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-04T16:00:00Z", "--parting"], program_lines()),
    ("results/2026-12-04-core-steal",
     ["scripts/core_steal.py", "results/2026-12-04-core-steal/mnist-alone", "results/2026-12-04-core-steal/procstat.txt.gz"],
     everything),
    ("results/2026-12-04-core-steal", ["scripts/gate_study.py", "results/2026-12-04-core-steal"], alone_table),
    ("results/2026-12-05-cores2-ladder", ["scripts/gate_study.py", "results/2026-12-05-cores2-ladder"], everything),
] + [("results/2026-12-04-cpu-rate", ["scripts/host_calibration/cpu_rate_probe.py", "report",
                                     f"results/2026-12-04-cpu-rate/{probe}.csv.gz"], without_pair_list)
     for probe in ("lease-1/probe", "lease-2/probe", "lease-3/ten")] + [
    ("results/2026-12-04-cpu-rate", ["scripts/cpu_share.py", "results/2026-12-04-cpu-rate/lease-2/gate/vae/steady"],
     everything),
    ("results/2026-12-04-cpu-rate", ["scripts/gate_study.py", "results/2026-12-04-cpu-rate"], everything),
    ("results/2026-12-04-cpu-rate", ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-04T18:30:00Z"],
     program_lines("vae", "mnist-startup")),
    ("results/2026-12-04-cpu-rate",
     ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-04T18:30:00Z", "--parting"], program_lines()),
    ("results/2026-12-04-cpu-rate",
     ["scripts/cpu_share.py", "results/2026-12-04-cpu-rate/lease-4/gate/mnist-startup/steady"], everything),
    ("results/2026-12-04-cpu-rate",
     ["scripts/ladder_acceptance.py", ".", "--before", "2026-12-04T18:30:00Z", "--cpu"], program_lines()),
]


def check(root, folder, argv, quoted):
    printed = subprocess.run([sys.executable] + argv, cwd=root, check=True, capture_output=True,
                             text=True).stdout.splitlines()
    lines = [line for line in quoted(printed) if line.strip()]
    readme = open(f"{root}/{folder}/README.md", encoding="utf-8").read()
    missing = [line for line in lines if line not in readme]
    for line in missing:
        print(f"{folder}/README.md does not hold what {argv[0]} prints now: {line}")
    print(f"{folder}: {argv[0]}: {len(lines) - len(missing)} of {len(lines)} lines quoted")
    return len(missing)


def main(root):
    return 1 if sum(check(root, folder, argv, quoted) for folder, argv, quoted in STUDIES) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
