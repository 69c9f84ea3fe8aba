#pragma once
// predict.csv's columns, in one table (harness/results/results_schema.hpp's Column): each one's name, unit,
// meaning and how its cell is written. predict writes its header and rows from it, and `bench_mps columns`
// (docs/RESULTS.md) lists it.
#include "harness/predict/wing.hpp"

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "harness/plan/mode_names.hpp"
#include "harness/results/results_schema.hpp"

namespace bench_mps::harness {

/// One row of predict.csv: a cell (program, mode, N) on one basis, predicted and, where scored, measured.
struct PredictCsvRow {
  std::string program;
  ModeKind mode = ModeKind::timeslice;
  int procs = 0;
  bool unit = true;  ///< per unit (ms), else per whole run (s)
  double predicted = 0, measured = 0, naive = 0, regime = 0;
  double regime_low = 0, regime_high = 0;  ///< per unit only (NaN per whole run)
  std::size_t runs = 0;
  double measured_min = 0, measured_max = 0;
  double common_share = 0;  ///< per unit, scored: the copies' share that co-ran (NaN: none)
  double predicted_low = 0, predicted_high = 0;
  int phases = 0;
  int covered = -1;        ///< 1: measured inside [predicted_low, predicted_high]; 0: outside; -1: not scored
  double host_factor = 1;  ///< the host calibration's h the copies' host was stretched by (1: none)
};

const std::vector<Column<PredictCsvRow, NoRecord>>& predict_csv_schema();

/// predict.csv's and units.csv's column lists as docs/RESULTS.md has them (`bench_mps columns`).
void print_predict_column_docs(std::ostream& out);

}  // namespace bench_mps::harness
