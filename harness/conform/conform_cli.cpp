#include "harness/conform/conform_cli.hpp"

#include <CLI/CLI.hpp>

#include "harness/common/cli_checks.hpp"
#include "harness/common/format.hpp"
#include "harness/plan/device_options.hpp"

namespace bench_mps::harness {
namespace {

constexpr const char* kConformHelpFooter =
    "Runs a few short sweeps per lever (each with its own private MPS daemon) and holds what they\n"
    "measured against a stated expectation: thread percentage, uneven and per-client splits, the pinned\n"
    "memory limit, client priority, the client ceiling, fault containment, proof of MPS, and the levers\n"
    "of newer drivers (probed by version). Writes conform.md, conform.csv, conform.json (and each\n"
    "sweep under sweeps/). Compare two conform folders with `bench_mps compare A B`.\n"
    "\n"
    "Examples:\n"
    "  bench_mps conform --out results/h100-conform\n"
    "  bench_mps conform --device 1 --only thread-pct,mem-limit\n"
    "\n"
    "Verdicts: PASS the lever held to its expectation; FAIL it did not (the evidence says how far);\n"
    "SKIP not measured here (the reason names why, e.g. the driver found); ERROR the measurement itself\n"
    "failed (its sweep's exit code and last line); INCONCLUSIVE a timed criterion whose interval still\n"
    "crossed it when its runs ended (the interval is in the evidence).\n"
    "\n"
    "Exit codes: 0 every row PASS, SKIP or INCONCLUSIVE; 1 a row FAIL or ERROR (the table is written\n"
    "all the same); 2 bad command line (one line naming the problem, nothing written); 3 the machine\n"
    "cannot run it (no GPU, no nvidia-cuda-mps-control); 128+N stopped by signal N (the rows done are\n"
    "kept).\n"
    "--set-exclusive changes the GPU's compute mode for one row (restored after): never use it on a\n"
    "GPU you share or borrow.";

}  // namespace

CLI::App* add_conform_command(CLI::App& app, ConformSpec& spec) {
  auto* cmd = app.add_subcommand("conform", "does each MPS lever hold on this driver and GPU? a PASS/FAIL table");
  cmd->footer(kConformHelpFooter);
  cmd->add_option("--out", spec.out_dir, "results folder (default results/<date>-<gpu>-conform)")->check(not_blank());
  add_one_device_option(*cmd, spec.device);
  // Split here, not by CLI11's delimiter, which drops an empty last item: 'proof,' is refused as a comma too many.
  cmd->add_option_function<std::string>(
         "--only", [&spec](const std::string& list) { spec.only = split(list, ','); },
         "these levers only, comma-separated (ids as in the table)")
      ->type_name("LIST");
  cmd->add_option("--budget-s", spec.budget_s, "seconds all the rows' sweeps may take together")
      ->check(finite_in(10.0, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--set-exclusive", spec.set_exclusive,
                "let the exclusive row set EXCLUSIVE_PROCESS compute mode for its sweep (restored after)");
  cmd->add_flag("--cpu-stand-in", spec.cpu_stand_in,
                "CPU workers and the fake MPS daemon's conventions in place of a GPU: to try the flow (tests; no GPU "
                "data)");
  return cmd;
}

}  // namespace bench_mps::harness
