#pragma once
// The fault scenario's runs grouped per mode, workload and N, from the runs just measured or from
// summary.csv (the same SummaryRecord): the sweep's closing table and the report read them.
#include "harness/results/wing.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// The fault runs of one workload, mode and N over the repeats (failed runs only counted).
struct FaultCell {
  std::string workload, mode;
  int procs = 0, runs = 0, failed = 0, victims = 0, survived = 0;
  std::vector<double> slowdown, post_fault_slowdown, recovery_s;  ///< one value per ok run that has it
  std::string victim_error;                                       ///< what the first dead victim reported
  std::string server_state;                                       ///< the first MPS server state recorded
};

/// Groups the fault runs of `rows` (scenario fault; the baselines are left out) by mode (in order of
/// first appearance), then workload, then N.
std::vector<FaultCell> aggregate_fault_runs(const std::vector<SummaryRecord>& rows);

}  // namespace bench_mps::harness
