#pragma once
// What dashboards and CI pages read, from a comparison (and a history): Bencher's metric format (BMF), the JSON
// of github-action-benchmark's custom tools, and a short Markdown summary for a CI job's page. Rendering only.
#include "harness/compare/wing.hpp"

#include <string>
#include <vector>

#include "harness/compare/compare_output.hpp"

namespace bench_mps::harness {

/// `--format` of compare and history: text (the full report, as before), json (comparison.json or history.json),
/// bencher (BMF), github-benchmark (github-action-benchmark's custom JSON), markdown (a CI job summary).
enum class ExportFormat { text, json, bencher, github_benchmark, markdown };

/// "text", "json", "bencher", "github-benchmark" or "markdown"; anything else is a UsageError naming `option`.
ExportFormat parse_export_format(const std::string& name, const std::string& option = "--format");

/// One measured value a dashboard tracks: a configuration's mean with its interval, and what compare said of it.
struct ExportPoint {
  std::string name;     ///< the benchmark: "<workload> <params> <mode> n=<N>"
  std::string measure;  ///< "throughput", "p50" or "p99"
  std::string unit;     ///< "tasks/s" or "ms"
  bool higher_is_better = true;
  double value = 0;             ///< the mean of the worker sets' means
  double lower = 0, upper = 0;  ///< its ~94 % interval (NaN where under two worker sets)
  std::string verdict;          ///< SAME, FASTER, SLOWER, UNSURE, INSUFFICIENT (empty: none)
  std::string detail;           ///< the change and p, or why
};

/// A point of `name` in `metric`'s measure and unit, at `value` with its interval (NaN where unknown).
ExportPoint export_point(const std::string& name, CompareMetric metric, double value, double lower, double upper);

/// NEW's side of every pair of a comparison.
std::vector<ExportPoint> comparison_points(const CompareReport& report);

/// Bencher Metric Format: {"<benchmark>": {"<measure>": {"value", "lower_value", "upper_value"}}}.
std::string render_bencher(const std::vector<ExportPoint>& points);

/// github-action-benchmark's customBiggerIsBetter / customSmallerIsBetter JSON: [{name, unit, value, range, extra}].
std::string render_github_benchmark(const std::vector<ExportPoint>& points);

/// What stdout carries for `format`: `text` (the full report), `json`, the points as BMF or github-benchmark, or
/// `summary` (the CI job's Markdown).
std::string render_export(ExportFormat format, const std::string& text, const std::string& json,
                          const std::vector<ExportPoint>& points, const std::string& summary);

/// A CI job's summary of a comparison: the counts and every row that is not SAME.
std::string render_comparison_summary(const CompareReport& report);

}  // namespace bench_mps::harness
