#pragma once
// The time-slice X-ray (--scenario xray, and the start of --scenario regimes): four probes measure
// the GPU's scheduler itself at each N, time-sliced and under MPS for contrast (kernels/xray.hpp):
// - xray_busy:  N contexts that always have work log when each ran: the time slice, the switch
//               between two contexts' slices, the share of the GPU's time lost to switching;
// - xray_wait:  one context of short synchronising steps beside N-1 busy ones: what a step waits;
// - xray_turns: N contexts of short steps (at N=1, the step alone): what one turn of a context costs
//               when its work ends before its slice does;
// - xray_gaps:  one context whose queue empties between tiny kernels (the host busy in between, no wait)
//               beside N-1 busy ones: how long an empty queue keeps the GPU (hold), the launch gaps of
//               eager frameworks (kernels/xray.hpp, the gaps role).
// A busy context's pause holds the other N-1 contexts' slices and N switches, so per switch
// (pause - (N-1) x slice) / N; a round of turns is N x (kernel + switch).
#include "harness/sweep/wing.hpp"

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "harness/plan/sweep_spec.hpp"
#include "harness/results/run_record.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {

/// The worker arguments of a probe run: every worker's role (busy or step); in xray_wait worker 0
/// runs steps for 80% of the busy contexts' time (`base`: what every worker gets besides its
/// workload's own arguments and its length).
void add_xray_args(const RunSpec& run, const SweepSpec& spec, const std::vector<std::string>& base,
                   std::vector<std::string>& args, std::map<int, std::vector<std::string>>& args_for_worker);

/// Roles and the X-ray columns of a finished probe run (SummaryRow::xray_*), from the workers' facts
/// and tasks; `alone_step`: the same mode and repeat's xray_turns at N=1 (xray_wait is measured against it).
void evaluate_xray_run(RunRecord& record, const PoolResult& pool, const SummaryRow* alone_step);
/// The progress line's figures of a probe run that ended ok (each probe its own).
void xray_progress(std::ostream& out, const RunScenario& probe, const SummaryRow& s);

}  // namespace bench_mps::harness
