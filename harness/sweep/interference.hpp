#pragma once
// The interference scenario (--scenario interference): one foreground job (a latency-critical
// inference stream, or a training job) beside N-1 background jobs (fillers at a target load, spin,
// memory-bound, mlp, your program), under each mode. Every repeat of a mode measures the foreground
// alone (interference_fg), the background jobs alone (interference_bg) and then both side by side
// (interference): the foreground's latency and throughput against alone, and the share of their
// throughput the background jobs keep, say which mode protects the foreground and at what cost.
#include "harness/sweep/wing.hpp"

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "harness/plan/sweep_spec.hpp"
#include "harness/results/run_record.hpp"

namespace bench_mps::harness {

/// The worker arguments of an interference run: worker 0 runs the foreground, the others the
/// background (`base` holds what every worker gets besides its workload's own arguments). For an
/// in-process mode the one worker gets both workloads' arguments and runs the foreground as instance 0.
void add_interference_args(const RunSpec& run, const SweepSpec& spec, const std::vector<std::string>& base,
                           std::vector<std::string>& args, std::map<int, std::vector<std::string>>& args_for_worker);

/// Roles (foreground, background) and the foreground's and background's figures of a run of the
/// scenario, from its rows. `fg_alone` / `bg_alone`: the same mode and repeat's interference_fg and
/// interference_bg summaries (null when they failed or are not there): the ratios are against them.
void evaluate_interference_run(RunRecord& record, const SummaryRow* fg_alone, const SummaryRow* bg_alone);
/// The progress line's figures: the foreground's p99 and the background's share kept (side by side); an
/// alone run's are its workload's.
void interference_progress(std::ostream& out, const RunScenario& scenario, const SummaryRow& s);

}  // namespace bench_mps::harness
