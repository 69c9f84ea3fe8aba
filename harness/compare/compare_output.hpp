#pragma once
// What `bench_mps compare` writes: the markdown report (printed to stdout and written by --md), the
// comparison.csv that `bench_mps report` charts, and comparison.json. Rendering only: no file I/O.
#include "harness/compare/wing.hpp"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/compare/compare_meta.hpp"
#include "harness/compare/compare_runs.hpp"

namespace bench_mps::harness {

/// Everything one comparison found.
struct CompareReport {
  std::string base_dir, new_dir;  ///< as given on the command line
  bool same_folder = false;       ///< BASE and NEW resolve to one folder: every pair is SAME trivially
  CompareOptions options;
  std::vector<MetaDiffRow> metadata;
  std::string testbed;  ///< testbed_line: the same testbed, or the fields that differ
  RunComparison comparison;
};

/// About five significant digits without an exponent: 29603.6 -> "29604", 98.46892 -> "98.469"; "-" if unknown.
std::string fmt_value(double v);
/// A fraction as a percent with one decimal ("+1.3%" with `sign`; a change that rounds to zero "0.0%", "+0.0%" with
/// `sign`, never "-0.0%"); "-" if unknown.
std::string fmt_percent(double fraction, bool sign);
/// A p value with four decimals; "-" if unknown.
std::string fmt_p(double p);

/// The header of comparison.csv, exactly; other tools read these names.
const std::vector<std::string>& comparison_csv_columns();

/// comparison.csv: one row per pair; change and spreads as fractions; empty cells where unknown.
std::string render_comparison_csv(const CompareReport& report);

/// The human report: metadata diff, one table per workload + params (Base, Base noise, New, New noise,
/// %Diff, p, Status, Note), configurations on one side only, and the summary line.
std::string render_comparison_markdown(const CompareReport& report);

/// comparison.json: base, new, same_folder, metric, column, threshold, alpha, metadata_diff, counts, only_in_base,
/// only_in_new, pairs.
nlohmann::json comparison_json(const CompareReport& report);

/// "12 pairs: 11 SAME, 0 FASTER, 1 SLOWER, 0 UNSURE; 1 clock flag; ..."
std::string summary_line(const CompareReport& report);

}  // namespace bench_mps::harness
