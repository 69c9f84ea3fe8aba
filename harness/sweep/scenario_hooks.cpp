#include "harness/sweep/scenario_hooks.hpp"

#include "harness/sweep/fault_scenario.hpp"
#include "harness/sweep/interference.hpp"
#include "harness/sweep/progress.hpp"
#include "harness/sweep/xray.hpp"

namespace bench_mps::harness {
namespace {

bool is_fault_run(const RunScenario& s) { return s == RunKind::fault; }
bool is_xray_probe(const RunScenario& s) { return s.is_xray(); }
bool is_interference_run(const RunScenario& s) { return s.is_interference(); }
bool any_run(const RunScenario&) { return true; }

/// The X-ray's columns, against the same mode and repeat's short step alone.
void evaluate_xray(const RoundContext& ctx, RunRecord& record) {
  evaluate_xray_run(record, ctx.pool, ctx.reference(RunKind::xray_turns, 1, "xray"));
}

/// The interference's ratios, against the foreground alone and the background jobs alone.
void evaluate_interference(const RoundContext& ctx, RunRecord& record) {
  evaluate_interference_run(record, ctx.reference(RunKind::interference_fg, 1, ctx.spec.foreground),
                            ctx.reference(RunKind::interference_bg, ctx.run.procs - 1, ctx.spec.background));
}

// family, matches, add_roles, own_worker, before_round, evaluate, progress
const RunHooks kRunHooks[] = {
    {"fault", is_fault_run, nullptr, add_faulter, note_before_fault, evaluate_fault, fault_progress},
    {"xray", is_xray_probe, add_xray_args, nullptr, nullptr, evaluate_xray, xray_progress},
    {"interference", is_interference_run, add_interference_args, nullptr, nullptr, evaluate_interference,
     interference_progress},
    {"plain", any_run, nullptr, nullptr, nullptr, nullptr, plain_progress},  // workloads, grid points, baselines
};

}  // namespace

const RunHooks& run_hooks(const RunScenario& scenario) {
  for (const RunHooks& row : kRunHooks)
    if (row.matches(scenario)) return row;
  return kRunHooks[std::size(kRunHooks) - 1];
}

}  // namespace bench_mps::harness
