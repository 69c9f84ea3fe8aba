// predict.csv's column table: see predict_columns.hpp.
#include "harness/predict/predict_columns.hpp"

#include <cmath>

#include "harness/common/format.hpp"
#include "harness/predict/measured_units.hpp"

namespace bench_mps::harness {
namespace {

using P = Column<PredictCsvRow, NoRecord>;

/// A number column, 9 significant digits as predict has always written them; "" for NaN.
P number(const char* name, const char* unit, const char* meaning, double PredictCsvRow::*field) {
  return {name, unit, meaning, [field](const PredictCsvRow& r) { return fmt_num(r.*field, 9); }, {}};
}

}  // namespace

const std::vector<Column<PredictCsvRow, NoRecord>>& predict_csv_schema() {
  static const std::vector<P> schema{
      {"program",
       "",
       "the program's name (--label, else the alone folder's name)",
       [](const PredictCsvRow& r) { return r.program; },
       {}},
      {"mode", "", "timeslice or mps", [](const PredictCsvRow& r) { return std::string(mode_kind_word(r.mode)); }, {}},
      {"procs", "", "N: copies at once", [](const PredictCsvRow& r) { return std::to_string(r.procs); }, {}},
      {"basis",
       "",
       "unit (a step, or the program's metric) or run (a copy's whole run, start-up included)",
       [](const PredictCsvRow& r) { return std::string(r.unit ? "unit" : "run"); },
       {}},
      number("predicted", "ms or s", "the simulator's prediction (per unit ms, per whole run s): its phase draws' mean",
             &PredictCsvRow::predicted),
      number("measured", "ms or s",
             "the mean of the scored runs' values (a run whose copies all ended ok and co-ran; empty: none)",
             &PredictCsvRow::measured),
      number("naive", "ms or s",
             "the naive baseline (docs/PREDICT.md): time-sliced each unit N times as long, MPS max(1, N x busy share)",
             &PredictCsvRow::naive),
      number("regime", "ms or s", "the regime model's prediction (report's, docs/REGIMES.md)", &PredictCsvRow::regime),
      number("regime_low", "ms", "per unit: the regime model's bracket, low end (a convoy's)",
             &PredictCsvRow::regime_low),
      number("regime_high", "ms", "per unit: the regime model's bracket, high end", &PredictCsvRow::regime_high),
      {"runs",
       "",
       "the scored runs of this cell (runs with a copy failed, not co-run or of another phase are left out)",
       [](const PredictCsvRow& r) { return std::to_string(r.runs); },
       {}},
      number("measured_min", "ms or s", "the least of the scored runs' values", &PredictCsvRow::measured_min),
      number("measured_max", "ms or s", "the largest of the scored runs' values", &PredictCsvRow::measured_max),
      {"common_share",
       "fraction",
       "per unit: of the ok runs' copies, the share measured in the window where every copy of its run was steady",
       [](const PredictCsvRow& r) { return std::isnan(r.common_share) ? std::string() : fmt_num(r.common_share, 4); },
       {}},
      number("predicted_low", "ms or s",
             "the simulator's interval, low end: its phase draws over the alone runs' spread",
             &PredictCsvRow::predicted_low),
      number("predicted_high", "ms or s", "the simulator's interval, high end", &PredictCsvRow::predicted_high),
      {"phases",
       "",
       "phase draws replayed (0: one replay, copies a step/N apart)",
       [](const PredictCsvRow& r) { return std::to_string(r.phases); },
       {}},
      {"covered",
       "",
       "1: measured inside the interval, 0: outside, empty: not scored",
       [](const PredictCsvRow& r) { return r.covered < 0 ? std::string() : std::to_string(r.covered); },
       {}},
      number("host_factor", "x",
             "the host calibration's h(mode, N) each copy's host time and launches were stretched by "
             "(predict --host-calibration; 1: none given)",
             &PredictCsvRow::host_factor),
  };
  return schema;
}

void print_predict_column_docs(std::ostream& out) {
  out << "\n### predict.csv: one row per cell and basis (bench_mps predict --out)\n";
  print_column_table(out, predict_csv_schema());
  out << "\n### units.csv: one row per copy of an exec sweep's runs (bench_mps predict --measure DIR)\n";
  print_column_table(out, units_csv_schema());
}

}  // namespace bench_mps::harness
