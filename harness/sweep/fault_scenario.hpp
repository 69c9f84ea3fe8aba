#pragma once
// The fault-isolation scenario (--scenario fault): for each mode and N >= 2, N-1 victim workers run
// alone (the baseline), then the same victims beside one worker that makes an illegal memory access
// `fault_delay_ms` after the start barrier. Per victim it records survived or not, the error it got,
// and its slowdown against the baseline (over the whole run and after the fault); under MPS also the
// server's state after the fault and how long until a new client runs again.
#include "harness/sweep/wing.hpp"

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "harness/plan/sweep_spec.hpp"
#include "harness/results/fault_rows.hpp"
#include "harness/results/run_record.hpp"
#include "harness/results/summary_table.hpp"
#include "harness/sweep/scenario_hooks.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {

/// bench_worker arguments of the faulting worker (the last index) of a fault run.
std::vector<std::string> faulter_args(const RunSpec& run, const SweepSpec& spec, int faulter_index);

/// Fills the fault columns of a fault run and sets its status: the run is "ok" when the faulter
/// faulted and nobody hung (victims dying is the finding, not a failure), "fault_not_triggered" when
/// the faulter finished normally. `baseline_task_mean_ms` <= 0 when the baseline run failed.
void evaluate_fault_run(RunRecord& record, const PoolResult& pool, double baseline_task_mean_ms);

/// The scenario's short table: victims' fate, slowdown and MPS recovery per mode and N.
void print_fault_table(std::ostream& out, const std::vector<SummaryRecord>& rows);

// Its hooks (scenario_hooks.hpp), for the fault run itself (its baseline is a plain run):
/// The faulting worker's command line (the last index).
void add_faulter(const RunSpec& run, const SweepSpec& spec, WorkerArgs& args_for_worker);
/// Before the round: the MPS servers (under MPS) and the kernel log's Xid lines.
void note_before_fault(const RunSpec& run, MpsSession* session, RunExtras& extras);
/// The fault's columns (evaluate_fault_run against the baseline), the driver's new messages and, under MPS,
/// what became of the server and how long until a new client finished a task (probed every 100 ms for up to
/// 60 s, counted from the faulting worker's death).
void evaluate_fault(const RoundContext& ctx, RunRecord& record);
/// The progress line's figures: victims that survived, their slowdown, MPS's recovery.
void fault_progress(std::ostream& out, const RunScenario& scenario, const SummaryRow& s);

}  // namespace bench_mps::harness
