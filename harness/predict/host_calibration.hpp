#pragma once
// The host, calibrated once per machine (issue 45 item 3; docs/PREDICT.md "The host, calibrated"): how N copies
// slow each other's host part, apart from the GPU, read from a sweep of scripts/host_calibration/host_loop.py
// (the device step `hostcal`: N copies, each on its own core, released together by the start gate, time-sliced
// and under MPS). h(mode, N) is the median unit of the copies at N over the median unit of the runs alone in
// that mode; predict's replay stretches each copy's host time and its launches' times by it (prediction.hpp).
#include "harness/predict/wing.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/plan/sweep_spec.hpp"

namespace bench_mps::harness {

/// One measured factor: the copies at N against the runs alone, in one mode.
struct HostFactor {
  ModeKind mode = ModeKind::timeslice;
  int procs = 1;
  double factor = 1;
  double alone_ms = 0, at_n_ms = 0;  ///< the two medians it divides
  int copies = 0, alone_runs = 0;    ///< how many ok copies at N, and ok runs alone, they are the medians of
};

struct HostCalibration {
  std::string folder;               ///< as given
  std::string command;              ///< the calibration program (the sweep's exec command)
  std::string cpu;                  ///< the machine's CPU as its meta.json names it
  std::vector<HostFactor> factors;  ///< by mode, then N (N >= 2)

  bool empty() const { return factors.empty(); }
  /// h(mode, n): 1 at n <= 1 or where the mode has no factor; between two calibrated N linear in N; past the
  /// largest calibrated N, the largest's (said in predict.md).
  double at(ModeKind mode, int n) const;
};

/// The CPU a results folder's meta.json names (`host.cpu_model`); "" where it names none or has no meta.json.
std::string cpu_model_of(const std::filesystem::path& dir);

/// Reads `dir` (a sweep with --workloads exec and --exec-metric: each copy's unit is its step_mean_ms fact).
/// Throws ResultsError where it is not such a sweep, has no ok run alone or no N >= 2 in a ladder mode.
HostCalibration read_host_calibration(const std::filesystem::path& dir);

}  // namespace bench_mps::harness
