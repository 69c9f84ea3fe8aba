#pragma once
// The X-ray's and the regime map's runs as their tables read them (summary.csv rows), grouped: the
// X-ray per mode and N, the map per grid point, mode and N. The sweep prints them and stores the
// X-ray in meta.json; the report renders them and holds them against the model (model/regime_model).
#include "harness/results/wing.hpp"

#include <cmath>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// The X-ray at one mode and N: medians over the repeats of each probe's columns.
struct XrayCell {
  std::string mode;
  int procs = 0, runs = 0, failed = 0;
  double slice_ms = NAN, switch_ms = NAN, lost_share = NAN, on_share = NAN;  ///< xray_busy
  double wait_ms = NAN, wait_p99_ms = NAN;                                   ///< xray_wait
  double turn_ms = NAN, turn_switch_ms = NAN, step_ms = NAN;                 ///< xray_turns (step_ms: its task time)
  double hold_us = NAN, hold_bound = NAN, idle_kept_share = NAN;             ///< xray_gaps
};

/// Cells in order of the modes' first appearance, then N ascending.
std::vector<XrayCell> aggregate_xray(const std::vector<SummaryRecord>& rows);
/// meta.json's "xray": {"<mode>": {"<N>": {slice_ms, switch_ms, ...}}} (null where not measured).
nlohmann::json xray_json(const std::vector<XrayCell>& cells);
void print_xray_table(std::ostream& out, const std::vector<XrayCell>& cells);

/// One grid point (or any workload configuration) at one mode and N, on the seeds' basis: per-task time
/// over one process alone time-sliced, the same repeat; medians over the repeats.
struct RegimeCell {
  std::string point;  ///< the run's scenario tag (regime-b1ms-d50), or workload|params for a placed folder
  bool grid_point =
      false;  ///< a grid point of the regimes scenario (RunKind::regime_point), not a placed configuration
  std::string workload, params, mode;
  int procs = 0, repeats = 0, failed = 0;
  double burst_alone_ms = NAN;  ///< time-sliced alone: burst_ms (median over repeats)
  double duty_alone = NAN;      ///< time-sliced alone: gpu_busy_share
  double util_alone = NAN;      ///< time-sliced alone: NVML's gpu_util_mean
  double gpm_alone = NAN;       ///< time-sliced alone: GPM's SM activity (gpm_sm_util)
  double task_alone_ms = NAN;   ///< time-sliced alone: per-task time
  double task_ms = NAN;         ///< this mode at N: per-task time
  double loss = NAN;            ///< task_ms / task_alone_ms, median of the per-repeat ratios
  double loss_min = NAN, loss_max = NAN;
};

/// Every configuration's cells (N >= 1, every mode) whose time-sliced N=1 run exists, from summary.csv rows.
std::vector<RegimeCell> aggregate_regimes(const std::vector<SummaryRecord>& rows);
/// The cell of a configuration at mode and N, or null.
const RegimeCell* find_regime(const std::vector<RegimeCell>& cells, const std::string& point, const std::string& mode,
                              int procs);
/// The text after `key=` in a `key=value;...` parameter string, nothing if absent.
std::optional<std::string> param_text(const std::string& params, const std::string& key);
/// The number after `key=` in a `key=value;...` parameter string, NaN if absent.
double param_number(const std::string& params, const std::string& key);
/// The regimes scenario's closing table: per grid point, the time-sliced and MPS loss at each N > 1.
void print_regime_table(std::ostream& out, const std::vector<RegimeCell>& cells);

}  // namespace bench_mps::harness
