#pragma once
// Measured cells of the regime map and the X-ray beside the regime model's predictions: what the
// regimes report's tables and figures are made of (report_regimes_markdown, report_regimes_plots).
#include "harness/report/wing.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "harness/model/regime_model.hpp"
#include "harness/model/xray_scheduler.hpp"
#include "harness/report/report_seeds.hpp"
#include "harness/results/regime_rows.hpp"

namespace bench_mps::harness {

/// Seed 001's steps: 10 epochs of 938 batches of 64 (pytorch/examples mnist/main.py as of f982047,
/// 2018-05-15, two weeks before the seed's run: --epochs 10, --batch-size 64).
inline constexpr double kSeed001Steps = 10 * 938;

/// One measured cell (a configuration at a mode and N) beside the model.
struct Evaluated {
  std::string label, kind, source, mode;  ///< kind: grid, placed, seed
  int procs = 0;
  double burst_ms = NAN, duty = NAN;  ///< the map's coordinates (events, alone)
  RegimePoint point;
  double measured = NAN, measured_min = NAN, measured_max = NAN;  ///< loss on the seeds' basis
  Prediction predicted;
  double error() const { return predicted.loss / measured - 1; }
};

/// Every cell with N >= 2 (time-sliced and MPS) of the grid (`grid`) or of the other configurations
/// (a placed folder's workloads), beside the model.
std::vector<Evaluated> evaluate_cells(const std::vector<RegimeCell>& cells, bool grid, const std::string& source,
                                      const SchedulerFacts& sched);

/// The seeds at the points their own numbers give: seed 001 a step of 80 s / 9380 alone and ten turns
/// of 221 s / 9380 time-sliced (kernel time = that / 10 - this GPU's turn cost); seed 000 busy all
/// the time (4x at N=4), its burst unknown.
std::vector<Evaluated> seed_cells(const std::vector<SeedRatio>& seeds, const SchedulerFacts& sched);

struct ErrorSummary {
  int count = 0, within = 0;  ///< cells with a prediction; of them within 15%
  double median_abs = NAN, max_abs = NAN;
};
ErrorSummary summarize_errors(const std::vector<Evaluated>& rows, const std::string& kind, const std::string& mode);
/// "grid, time-sliced: median error 1.0%, largest 22%, 48 of 50 cells within 15%"; empty without cells.
std::string error_line(const ErrorSummary& s, const std::string& what);

}  // namespace bench_mps::harness
