#pragma once
// The fault scenario's runs as the tables read them back (from a run just measured or from
// summary.csv), and their grouping per mode, workload and N. The sweep fills them; the report reads them.
#include "harness/results/wing.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace bench_mps::harness {

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

}  // namespace bench_mps::harness
