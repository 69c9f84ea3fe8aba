#pragma once
// What `bench_mps advise` was asked to do.
#include "harness/advise/wing.hpp"
#include "harness/plan/sweep_spec.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace bench_mps::harness {

/// The largest N advise predicts and tries: MPS's clients per server (the sweep's default --mps-max-clients).
inline constexpr int kAdviseMaxProcs = kMpsClientCeiling;
/// The largest --budget advise takes, in seconds.
inline constexpr double kAdviseMaxBudgetS = 3600;
/// Worker sets each rung of the ladder runs per mode: two, the fewest that give an interval.
inline constexpr int kSetsPerRung = 2;
/// The most worker sets the best cell of each mode gets while the verdict is open (within --budget).
inline constexpr int kMaxSetsPerCell = 8;
/// One copy alone again, one worker set per mode, after the ladder and the sets that settled it: the alone
/// anchor's last draw (issue 42 item 4), so that every ratio divides by sets from both ends of the run.
inline constexpr const char* kAloneLastFolder = "alone-last";

struct AdviseSpec {
  std::string command;                  ///< --command: the program (exec); empty with --workload
  std::string workload;                 ///< --workload: one of bench_mps's own; empty with --command
  std::vector<std::string> sweep_args;  ///< after `--`: workload options every child sweep gets
  std::string out_dir;                  ///< default results/<date>-<gpu>-advise-<workload>
  std::string device;                   ///< --device, passed to every child sweep
  int max_procs = 10;                   ///< the ladder's and the predictions' largest N
  std::vector<int> ladder;              ///< --ladder: these rungs, every one run; empty: 1, 2, 4, ... max_procs
  double budget_s = 300;                ///< all child sweeps together
  double slo_p99_ms = NAN;              ///< --slo-p99-ms: a configuration whose p99 step is above it is not advised
  std::string check_metric;             ///< --check-metric: a regex reading a value of the program's result (exec)
  double check_tolerance_pct = 1;       ///< --check-tolerance: how far from one copy alone's value a limit may take it
  std::string beside;         ///< --beside: one of bench_mps's workloads run beside the subject (advise_beside)
  std::string basis;          ///< --basis: "unit", "run" or "auto"; empty: auto (--redo: as stored)
  std::string job_length;     ///< --job-length as given (advise_job.hpp); empty: none (--redo: as stored)
  std::string xray_from;      ///< --xray-from: a folder with the X-ray's runs (skips measuring it)
  bool cpu_stand_in = false;  ///< CPU stand-ins and the fake daemon (tests)
  std::string redo_dir;       ///< --redo: the advice again from that folder's sweeps, nothing run
  std::vector<std::string> argv;

  /// The child sweeps' workload arguments: --workloads/--command and what followed `--`.
  std::vector<std::string> workload_args() const;
};

}  // namespace bench_mps::harness
