#pragma once
// `bench_mps report` on a folder written by `bench_mps compare BASE NEW --out DIR`
// (comparison.csv + comparison.json, no summary.csv): report.md with the pair table and
// plots/comparison.png, the change of every pair coloured by its verdict.
#include "harness/report/wing.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/report/report_plot_data.hpp"

namespace bench_mps::harness {

/// One row of comparison.csv: a configuration measured in both folders.
struct ComparisonRow {
  std::string workload, params, mode;
  int active_thread_pct = 0;  ///< 0 when time-sliced
  int procs = 0;
  std::string metric;
  long base_n = 0, new_n = 0;
  double base_median = 0, base_spread = 0, new_median = 0, new_spread = 0;
  double change = 0;        ///< (new - base) / |base|; NaN when unknown
  double p_value = 0;       ///< NaN when too few repeats
  std::string verdict;      ///< SAME, FASTER, SLOWER or UNSURE
  bool clock_flag = false;  ///< SM clocks of the two sides differ by more than 2%
};

struct ComparisonFolder {
  std::vector<ComparisonRow> rows;
  nlohmann::json info;  ///< comparison.json: base, new, metric, threshold, alpha, metadata diff
};

/// True when `dir` holds comparison.csv and no summary.csv.
bool is_comparison_folder(const std::filesystem::path& dir);

/// Reads comparison.csv and comparison.json; ResultsError (exit 2) for any defect.
ComparisonFolder read_comparison_folder(const std::filesystem::path& dir);

/// plot_data.json for the comparison chart.
PlotPlan comparison_plot_plan(const ComparisonFolder& folder);

/// report.md: verdict counts (first line), metadata diff, chart, table.
std::string render_comparison_report(const ComparisonFolder& folder, const PlotPlan& plan,
                                     const std::string& folder_name);

}  // namespace bench_mps::harness
