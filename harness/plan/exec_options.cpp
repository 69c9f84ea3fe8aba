#include "harness/plan/exec_options.hpp"

#include <algorithm>
#include <cstdlib>

#include "harness/common/errors.hpp"
#include "harness/profiler/start_gate.hpp"

namespace bench_mps::harness {
namespace {

/// The options of `spec` given explicitly that exec has no use for, as typed.
std::vector<std::string> given_options_exec_ignores(const SweepSpec& spec) {
  std::vector<std::string> given;
  if (spec.tasks > 0) given.push_back("--tasks");
  if (spec.duration_s > 0) given.push_back("--duration");
  if (spec.rounds > 0) given.push_back("--rounds");
  if (spec.warmup >= 0) given.push_back("--warmup");
  return given;
}

/// How many of the sweep's workloads run the user's program (exec).
std::size_t exec_workloads(const SweepSpec& spec) {
  return static_cast<std::size_t>(std::count_if(spec.workloads.begin(), spec.workloads.end(),
                                                [](const std::string& w) { return runs_user_program(w); }));
}

}  // namespace

bool is_exec_gate(const std::string& text) {
  std::uint64_t k = 0;
  return text == "steady" || text == "off" || profiler::parse_gate_point(text, k);
}

bool has_exec(const SweepSpec& spec) { return exec_workloads(spec) > 0; }

void check_gate_environment(const SweepSpec& spec) {
  const char* set = std::getenv(profiler::kGateCallbacksVar);
  if (!has_exec(spec) || spec.exec_gate == "off" || !set || profiler::is_gate_callbacks(set)) return;
  throw UsageError(std::string(profiler::kGateCallbacksVar) + "='" + std::string(set).substr(0, 40) +
                   "': none of detach, unsubscribe, keep (what the start gate does once it opens; unset, it "
                   "detaches CUPTI)");
}

void check_exec_only_options(const SweepSpec& spec) {
  if (!has_exec(spec) || exec_workloads(spec) < spec.workloads.size()) return;
  const std::vector<std::string> given = given_options_exec_ignores(spec);
  if (given.empty()) return;
  const std::string why = given.front() == "--warmup"
                              ? "exec has no in-process warm-up; its warm-up is an untimed run of the command "
                                "(--exec-warmups K, 1 by default)"
                              : "exec runs your command once per worker and run, to completion";
  throw UsageError(given.front() + ": does not apply to the exec workload: " + why);
}

std::vector<std::string> exec_option_notes(const SweepSpec& spec) {
  if (!has_exec(spec)) return {};
  const std::vector<std::string> given = given_options_exec_ignores(spec);
  if (given.empty()) return {};
  std::string names;
  for (const std::string& g : given) names += (names.empty() ? "" : ", ") + g;
  if (spec.scenario == Scenario::interference && !runs_user_program(spec.background))  // your program beside B
    return {names + ": " + (given.size() > 1 ? "set" : "sets") + " the background's length (" + spec.background +
            "), not your program's (it runs once per worker and run, to its end): give one that covers your program's "
            "run"};
  return {names + ": " + (given.size() > 1 ? "apply" : "applies") +
          " to the other workloads, not to exec (it runs your command once per worker and run; its warm-up is "
          "--exec-warmups)"};
}

}  // namespace bench_mps::harness
