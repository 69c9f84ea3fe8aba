// The child sweeps' arguments (advise.hpp: advise_workload, advise_common_args, AdviseChildArgs, beside_args)
// and the ladder's rungs.
#include "harness/advise/advise.hpp"

#include <algorithm>
#include <cmath>

#include "harness/advise/advise_beside.hpp"
#include "harness/advise/advise_ladder.hpp"
#include "harness/common/errors.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/workers/workload_config.hpp"

namespace bench_mps::harness {
namespace {

/// Sweep options advise sets itself: given after `--` they would contradict its plan.
constexpr const char* kOwnOptions[] = {"--procs",        "--modes",    "--repeats",   "--out",         "--device",
                                       "--gpus",         "--scenario", "--resume",    "--profile-gpu", "--cpu-stand-in",
                                       "--noise-target", "--demo",     "--workloads", "--command",     "--settle",
                                       "--exec-warmups", "--rounds"};

/// A program's own unit (the steps of an NVTX range, from its profiles): advise's ladder follows it where the program
/// prints no --exec-metric (two units otherwise); a side-by-side pair times whole runs and does not.
constexpr const char* kUnitRangeOption = "--exec-unit-range";
constexpr const char* kMetricOption = "--exec-metric";

/// Whether the argument `a` is the option `option` (alone, or with its value after '=').
bool is_option(const std::string& a, const char* option) {
  return a == option || a.rfind(std::string(option) + "=", 0) == 0;
}

/// Whether `args` hold the option `option`.
bool has_option(const std::vector<std::string>& args, const char* option) {
  return std::any_of(args.begin(), args.end(), [option](const std::string& a) { return is_option(a, option); });
}

/// UsageError for an option after `--` that advise sets itself (it would contradict its plan) or does not follow
/// (`ladder`: advise's ladder, else a side-by-side pair).
void refuse_own_options(const std::vector<std::string>& sweep_args, bool ladder = true) {
  if (has_option(sweep_args, kUnitRangeOption) && !ladder)
    throw UsageError("advise --beside: " + std::string(kUnitRangeOption) +
                     " is not followed by a side-by-side pair (it times whole runs); give it to advise's ladder or a "
                     "--profile-gpu sweep");
  if (has_option(sweep_args, kUnitRangeOption) && has_option(sweep_args, kMetricOption))
    throw UsageError("advise: " + std::string(kUnitRangeOption) + " and " + kMetricOption +
                     " name two units of the program; give the one advise's ladder should time");
  for (const std::string& a : sweep_args)
    for (const char* own : kOwnOptions)
      if (is_option(a, own))
        throw UsageError(std::string("advise sets ") + own + " itself; leave it out of the options after -- (" +
                         "--command or --workload name what to run)");
}

}  // namespace

std::vector<std::string> AdviseSpec::workload_args() const {
  std::vector<std::string> args;
  if (!command.empty())
    args = {"--workloads", "exec", "--command", command};
  else if (!workload.empty())
    args = {"--workloads", workload};
  if (!check_metric.empty()) args.insert(args.end(), {"--exec-check", check_metric});
  args.insert(args.end(), sweep_args.begin(), sweep_args.end());
  return args;
}

std::vector<int> ladder_rungs(const AdviseSpec& spec) {
  if (!spec.ladder.empty()) return spec.ladder;
  std::vector<int> rungs;
  for (int n = 1; n < spec.max_procs; n *= 2) rungs.push_back(n);
  rungs.push_back(spec.max_procs);
  return rungs;
}

SweepSpec advise_workload(const AdviseSpec& spec) {
  refuse_own_options(spec.sweep_args);
  if (!spec.workload.empty()) check_known_workload(spec.workload, "--workload");  // in the words of its option
  std::vector<std::string> args = spec.workload_args();
  args.insert(args.end(), {"--procs", "1", "--modes", "timeslice"});
  if (has_option(spec.sweep_args, kUnitRangeOption)) args.push_back("--profile-gpu");  // as every child sweep has it
  SweepSpec s;
  try {
    s = parse_sweep_args(args, "");  // what the user typed: refused in its own words
  } catch (const UsageError& e) {    // but advise sets --workloads itself: its hint is --command
    std::string message = e.what();
    const std::size_t at = message.rfind(kAddExecHint);
    if (at == std::string::npos || spec.workload.empty()) throw;
    throw UsageError(message.replace(
        at, message.size() - at,
        "advise --workload " + spec.workload + " runs none of your programs; give --command to advise on one"));
  }
  if (s.workloads.size() != 1) throw UsageError("advise takes one workload (--workload NAME or --command CMD)");
  if (!std::isnan(spec.slo_p99_ms) && runs_user_program(s.workloads.front()) && s.params.exec.metric.empty())
    throw UsageError(
        "--slo-p99-ms: a program's p99 step is read from what it prints (--exec-metric after --); without it advise "
        "times its steps from its profiles, which hold no p99");
  if (spec.cpu_stand_in && workload_needs_gpu(s.workloads.front())) {  // its stand-in must exist
    args.push_back("--cpu-stand-in");
    parse_sweep_args(args, "");
  }
  return s;
}

std::vector<std::string> advise_common_args(const std::string& device_key) {
  std::vector<std::string> common{"--settle", "0", "--noise-target", "0"};
  if (!device_key.empty()) common.insert(common.end(), {"--device", device_key});
  return common;
}

AdviseChildArgs::AdviseChildArgs(const AdviseSpec& spec, const SweepSpec& workload)
    : workload_(spec.workload_args()),
      cpu_stand_in_(spec.cpu_stand_in),
      exec_(runs_user_program(workload.workloads.front())),
      stand_in_(spec.cpu_stand_in && workload_needs_gpu(workload.workloads.front())),
      unit_range_(!workload.exec_unit_range.empty()) {}

std::vector<std::string> AdviseChildArgs::with_workload(std::vector<std::string> args) const {
  std::vector<std::string> w = workload_;
  w.insert(w.end(), args.begin(), args.end());
  if (stand_in_) w.push_back("--cpu-stand-in");
  const bool own_gate = std::find(workload_.begin(), workload_.end(), "--exec-gate") != workload_.end();
  if (exec_ && !gate_.empty() && !own_gate) w.insert(w.end(), {"--exec-gate", gate_});
  if (exec_ && (profiled_ || unit_range_)) w.push_back("--profile-gpu");  // a range is read from the profiles
  return w;
}

std::vector<std::string> AdviseChildArgs::after_alone(std::vector<std::string> args) const {
  std::vector<std::string> w = with_workload(std::move(args));
  // The alone run warmed the program up; every sweep after it (rungs, more sets, the last alone run, the limits)
  // measures its sets alike, so a limit's cell compares with the ladder's MPS cell it is read against.
  if (exec_) w.insert(w.end(), {"--exec-warmups", "0"});
  return w;
}

std::vector<std::string> AdviseChildArgs::xray() const {
  std::vector<std::string> args{"--scenario", "xray", "--procs", "2", "--xray-busy-ms", "300", "--repeats", "1"};
  if (cpu_stand_in_) args.push_back("--cpu-stand-in");
  return args;
}

std::vector<std::string> AdviseChildArgs::alone() const {
  std::vector<std::string> args = with_workload({"--procs", "1", "--modes", "timeslice", "--repeats", "1"});
  if (exec_ && !profiled_ && !unit_range_) args.push_back("--profile-gpu");
  return args;
}

std::vector<std::string> AdviseChildArgs::rung(int n) const {
  return after_alone(
      {"--procs", std::to_string(n), "--modes", "timeslice,mps", "--repeats", std::to_string(kSetsPerRung)});
}

std::vector<std::string> AdviseChildArgs::more(const std::string& mode, int n) const {
  return after_alone({"--procs", std::to_string(n), "--modes", mode, "--repeats", "1"});
}

std::vector<std::string> AdviseChildArgs::alone_last() const {
  return after_alone({"--procs", "1", "--modes", "timeslice,mps", "--repeats", "1"});
}

std::vector<std::string> AdviseChildArgs::limit(const std::string& mode, int n) const {
  return after_alone({"--procs", std::to_string(n), "--modes", mode, "--repeats", std::to_string(kSetsPerRung)});
}

std::vector<Mode> AdviseChildArgs::limit_modes(int n) {
  const int doubled = 2 * ((100 + n - 1) / n);
  std::vector<Mode> modes{parse_mode("mps:auto")};
  if (doubled < 100) modes.push_back(parse_mode("mps:" + std::to_string(doubled)));
  return modes;
}

std::vector<std::string> beside_args(const AdviseSpec& spec) {
  const bool exec = !spec.command.empty();
  std::vector<std::string> args{"--scenario",     "interference",
                                "--foreground",   exec ? "exec" : spec.workload,
                                "--background",   spec.beside,
                                "--procs",        "2",
                                "--modes",        kBesideModes,
                                "--repeats",      std::to_string(kBesideSets),
                                "--settle",       "0",
                                "--noise-target", "0"};
  if (exec)
    args.insert(args.end(), {"--command", spec.command});
  else
    args.insert(args.end(), {"--rounds", "1"});  // each set its own processes (exec runs once per worker anyway)
  refuse_own_options(spec.sweep_args, false);
  args.insert(args.end(), spec.sweep_args.begin(), spec.sweep_args.end());
  // The CPU stand-ins (tests) where a workload needs a GPU; the cpu workload is its own.
  if (spec.cpu_stand_in && ((!exec && workload_needs_gpu(spec.workload)) || workload_needs_gpu(spec.beside)))
    args.push_back("--cpu-stand-in");
  if (!spec.device.empty()) args.insert(args.end(), {"--device", spec.device});
  return args;
}

}  // namespace bench_mps::harness
