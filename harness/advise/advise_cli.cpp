#include "harness/advise/advise_cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

#include "harness/common/cli_checks.hpp"
#include "harness/advise/advise_job.hpp"
#include "harness/advise/advise_model.hpp"
#include "harness/common/errors.hpp"
#include "harness/plan/device_options.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/workers/exec_metric.hpp"

namespace bench_mps::harness {
namespace {

constexpr const char* kAdviseHelpFooter =
    "Profiles one copy alone, places it on this GPU's regime map (docs/REGIMES.md), predicts what N\n"
    "copies get time-sliced and under MPS, verifies with a ladder of short sweeps (N = 1, 2, 4, ...,\n"
    "both modes, two worker sets each, stopping at the knee: the best throughput rose by less than 5 %),\n"
    "adds sets to the best rung of each mode while MPS's gain over time-slicing has an interval across\n"
    "+5 % (within --budget), runs one copy alone again (the anchor's last draw), tries mps:auto at the\n"
    "N it advises, and says which mode, how many copies and which thread limit, with the intervals and\n"
    "the reasons, per unit and per whole run.\n"
    "Writes advice.md, advice.json and plots/advice.png (each sweep under sweeps/). See docs/ADVISE.md.\n"
    "\n"
    "Examples:\n"
    "  bench_mps advise --command 'python3 train.py' -- --exec-metric 'step_ms=([0-9.]+)'\n"
    "  bench_mps advise --workload mlp -- --mlp-profile gpu-bound\n"
    "  bench_mps advise --workload spin --ladder 1,2,4,10 --budget 240\n"
    "  bench_mps advise --workload mlp-infer --beside mlp     (two programs side by side: beside.md)\n"
    "`--redo DIR` writes DIR's advice again from its sweeps (after the model changed), running nothing.\n"
    "Options after `--` go to every sweep (workload options: --exec-metric, --mlp-profile, ...).\n"
    "\n"
    "Exit codes: 0 advice written; 1 no configuration ran, or nothing could be said about MPS (advice.md\n"
    "says why), or a step failed;\n"
    "2 bad command line (one line naming the problem, nothing written); 3 the machine cannot run it\n"
    "(no GPU, no nvidia-cuda-mps-control); 128+N stopped by signal N (what ran is written).";

}  // namespace

CLI::App* add_advise_command(CLI::App& app, AdviseSpec& spec, std::string& ladder_text) {
  auto* cmd = app.add_subcommand("advise", "will MPS help my program? profile, predict, verify, advise");
  cmd->footer(kAdviseHelpFooter);
  auto* command = cmd->add_option("--command", spec.command, "the program to advise on, run by /bin/sh -c");
  cmd->add_option("--workload", spec.workload, "one of bench_mps's workloads instead (spin, mlp, membw, ...)")
      ->excludes(command)
      ->check(not_blank());
  cmd->add_option("--out", spec.out_dir, "results folder (default results/<date>-<gpu>-advise-<workload>)")
      ->check(not_blank());
  add_one_device_option(*cmd, spec.device);
  auto* max_procs = cmd->add_option("--max-procs", spec.max_procs, "the largest N predicted and tried")
                        ->check(whole_in(2, kAdviseMaxProcs))
                        ->capture_default_str();
  cmd->add_option("--ladder", ladder_text, "these N exactly, every one run (1 is added), e.g. 1,2,4,10")
      ->check(CLI::Validator(
          [](std::string& v) { return v.empty() ? std::string("give at least one N") : std::string(); }, "LIST"))
      ->excludes(max_procs);  // the ladder's largest N is its --max-procs
  cmd->add_option("--budget", spec.budget_s, "seconds all the sweeps may take together")
      ->check(finite_in(30.0, kAdviseMaxBudgetS))
      ->capture_default_str();
  cmd->add_option("--slo-p99-ms", spec.slo_p99_ms, "advise no configuration whose p99 step (or task) is above this")
      ->check(finite_in(0.001, 1e7));
  auto* check =
      cmd->add_option("--check-metric", spec.check_metric,
                      "a regex with one capture group reading a value of your program's result from its "
                      "stdout (e.g. 'final loss ([0-9.]+)'): a thread limit is advised only where every copy's "
                      "last value stays within --check-tolerance of one copy alone's")
          ->needs(command)
          ->check(not_blank());
  cmd->add_option("--check-tolerance", spec.check_tolerance_pct,
                  "percent: how far from one copy alone's value a copy under a limit may end (--check-metric)")
      ->check(finite_in(0.0, 100.0))
      ->needs(check)
      ->capture_default_str();
  cmd->add_option("--beside", spec.beside,
                  "two programs side by side instead of copies: one copy of this bench_mps workload (filler, spin, "
                  "membw, mlp) beside yours, time-sliced, under MPS and under MPS at below-normal priority (beside.md)")
      ->check(not_blank());
  cmd->add_option("--basis", spec.basis,
                  "which throughput decides: unit (per step or task while working), run (per whole run, start-up "
                  "included) or auto (run where one run alone is under 5 minutes)")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return is_basis_word(v) ? std::string() : "'" + v + "' is not a basis: auto, unit or run";
          },
          "BASIS"));
  cmd->add_option("--job-length", spec.job_length,
                  "the advice also for a job of this length, composed from each N's measured start-up and unit: "
                  "a number of units a copy (20000), a multiple of the command as given (100x) or one copy "
                  "alone's time (90s, 45m, 2h); advice.md states 10x and 100x in any case")
      ->check(CLI::Validator(
          [](const std::string& v) {
            std::string why;
            return parse_job_length(v, &why) ? std::string() : "'" + v.substr(0, 40) + "' is not a length: " + why;
          },
          "LENGTH"));
  cmd->add_option("--xray-from", spec.xray_from, "read the scheduler from this xray or regimes results folder")
      ->check(not_blank())
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--redo", spec.redo_dir,
                  "the advice (or a --beside pair's) again from DIR's sweeps (after a model change); runs nothing")
      ->excludes(command)
      ->check(not_blank())
      ->check(CLI::ExistingDirectory);
  cmd->add_option("sweep_args", spec.sweep_args, "after --: options every sweep gets (workload options)");
  cmd->add_flag("--cpu-stand-in", spec.cpu_stand_in,
                "CPU stand-ins and the fake MPS daemon in place of a GPU: to try the flow (tests; no GPU data)");
  return cmd;
}

void finalize_advise_spec(AdviseSpec& spec, const std::string& ladder_text, const CLI::App& cmd) {
  if (!spec.redo_dir.empty()) {
    // Named as typed: the ladder's rungs, the workload, its options after --.
    if (!ladder_text.empty())
      throw UsageError("--ladder: --redo reads the rungs that ran from the folder; give --redo DIR alone");
    if (!spec.workload.empty())
      throw UsageError("--workload: --redo reads the workload from the folder; give --redo DIR alone");
    if (!spec.sweep_args.empty())
      throw UsageError("-- " + spec.sweep_args.front() +
                       ": --redo reads the workload's options from the folder; give --redo DIR alone");
    // Options that only shape a new ladder would change nothing in a redone folder: said, not ignored.
    for (const char* running :
         {"--budget", "--max-procs", "--slo-p99-ms", "--xray-from", "--device", "--out", "--beside"})
      if (cmd.count(running) > 0)
        throw UsageError(std::string(running) +
                         ": --redo runs nothing and writes DIR again as it was advised; "
                         "give --redo DIR alone (with --basis to decide on another basis)");
    return;
  }
  if (!spec.beside.empty()) {  // a pair, not a ladder: the ladder's options do not apply
    static const std::vector<std::string> backgrounds{"filler", "spin", "membw", "mlp", "cpu"};
    if (std::find(backgrounds.begin(), backgrounds.end(), spec.beside) == backgrounds.end())
      throw UsageError("--beside: '" + spec.beside.substr(0, 40) + "' is not one of filler, spin, membw, mlp");
    for (const char* ladder_only :
         {"--ladder", "--max-procs", "--slo-p99-ms", "--xray-from", "--check-metric", "--basis", "--job-length"})
      if (cmd.count(ladder_only) > 0)
        throw UsageError(std::string(ladder_only) + ": applies to the ladder of copies; --beside runs a pair");
  }
  if (spec.command.empty() && spec.workload.empty())
    throw UsageError("advise needs what to run: --command 'your program' or --workload NAME");
  if (!spec.command.empty() && spec.command.find_first_not_of(" \t") == std::string::npos)
    throw UsageError("--command is empty");
  if (!spec.check_metric.empty()) {  // refused in the words of the option typed, not of the child sweep's
    try {
      validate_metric_pattern(spec.check_metric, "--check-metric");
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (!ladder_text.empty()) {
    spec.ladder = parse_procs(ladder_text, "--ladder");
    if (std::find(spec.ladder.begin(), spec.ladder.end(), 1) == spec.ladder.end()) spec.ladder.push_back(1);
    std::sort(spec.ladder.begin(), spec.ladder.end());
    if (spec.ladder.back() > kAdviseMaxProcs)
      throw UsageError("--ladder: " + std::to_string(spec.ladder.back()) + " copies is more than " +
                       std::to_string(kAdviseMaxProcs));
    if (spec.ladder.size() < 2) throw UsageError("--ladder: give at least one N above 1");
    spec.max_procs = spec.ladder.back();
  }
}

}  // namespace bench_mps::harness
