#pragma once
// The fault-isolation scenario (--scenario fault): for each mode and N >= 2, N-1 victim workers run
// alone (the baseline), then the same victims beside one worker that makes an illegal memory access
// `fault_delay_ms` after the start barrier. Per victim it records survived or not, the error it got,
// and its slowdown against the baseline (over the whole run and after the fault); under MPS also the
// server's state after the fault and how long until a new client runs again.
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "harness/run_record.hpp"
#include "harness/summary_table.hpp"
#include "harness/sweep_spec.hpp"
#include "harness/worker_pool.hpp"

namespace bench_mps::harness {

/// bench_worker arguments of the faulting worker (the last index) of a fault run.
std::vector<std::string> faulter_args(const RunSpec& run, const SweepSpec& spec, int faulter_index);

/// Fills the fault columns of a fault run and sets its status: the run is "ok" when the faulter
/// faulted and nobody hung (victims dying is the finding, not a failure), "fault_not_triggered" when
/// the faulter finished normally. `baseline_task_mean_ms` <= 0 when the baseline run failed.
void evaluate_fault_run(RunRecord& record, const PoolResult& pool, double baseline_task_mean_ms);

/// One fault run as the tables need it, from a run just measured or from summary.csv.
struct FaultRunSummary {
  std::string workload, mode, status, reason, fault_error, server_state;
  int procs = 0, victims = 0, survived = 0;
  double slowdown = NAN, post_fault_slowdown = NAN, recovery_s = NAN;
};

/// The fault runs of one workload, mode and N over the repeats (failed runs only counted).
struct FaultCell {
  std::string workload, mode;
  int procs = 0, runs = 0, failed = 0, victims = 0, survived = 0;
  std::vector<double> slowdown, post_fault_slowdown, recovery_s;  ///< one value per ok run that has it
  std::string victim_error;  ///< what the first dead victim reported
  std::string server_state;  ///< the first MPS server state recorded
};

/// Groups fault runs by mode (in order of first appearance), then workload, then N.
std::vector<FaultCell> aggregate_fault_runs(const std::vector<FaultRunSummary>& runs);

/// The scenario's short table: victims' fate, slowdown and MPS recovery per mode and N.
void print_fault_table(std::ostream& out, const std::vector<SummaryEntry>& entries);

}  // namespace bench_mps::harness
