// Exports of a comparison for dashboards and CI pages: see exports.hpp.
#include "harness/compare/exports.hpp"

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/json_text.hpp"
#include "harness/common/stats.hpp"

namespace bench_mps::harness {

ExportFormat parse_export_format(const std::string& name, const std::string& option) {
  if (name == "text") return ExportFormat::text;
  if (name == "json") return ExportFormat::json;
  if (name == "bencher") return ExportFormat::bencher;
  if (name == "github-benchmark") return ExportFormat::github_benchmark;
  if (name == "markdown") return ExportFormat::markdown;
  throw UsageError(option + ": '" + name.substr(0, 40) +
                   "' is not one of text, json, bencher, github-benchmark, markdown");
}

ExportPoint export_point(const std::string& name, CompareMetric metric, double value, double lower, double upper) {
  ExportPoint e;
  e.name = name;
  e.measure = metric_name(metric);
  e.unit = metric == CompareMetric::throughput ? "tasks/s" : "ms";
  e.higher_is_better = higher_is_better(metric);
  e.value = value;
  e.lower = lower;
  e.upper = upper;
  return e;
}

std::vector<ExportPoint> comparison_points(const CompareReport& report) {
  std::vector<ExportPoint> out;
  for (const ComparedPair& p : report.comparison.pairs) {
    if (p.next.set_means.empty()) continue;  // NEW has nothing measured here (its runs failed): no point to plot
    const double value = mean(p.next.set_means);
    const double half = std::isfinite(p.next.spread) ? p.next.spread * value / 2 : NAN;
    ExportPoint e = export_point(config_label(p.workload, p.params, p.mode, p.procs), report.options.metric, value,
                                 value - half, value + half);
    e.verdict = verdict_name(p.verdict);
    e.detail = "against " + report.base_dir + ": change " + fmt_percent(p.change, true) + ", p " + fmt_p(p.p_value) +
               (p.note.empty() ? std::string() : "; " + p.note);
    out.push_back(e);
  }
  return out;
}

std::string render_bencher(const std::vector<ExportPoint>& points) {
  nlohmann::json j = nlohmann::json::object();
  for (const ExportPoint& e : points) {
    nlohmann::json m{{"value", e.value}};
    if (std::isfinite(e.lower) && std::isfinite(e.upper)) {
      m["lower_value"] = e.lower;
      m["upper_value"] = e.upper;
    }
    j[e.name][e.measure] = m;
  }
  return json_text(j, 2) + "\n";
}

std::string render_github_benchmark(const std::vector<ExportPoint>& points) {
  nlohmann::json j = nlohmann::json::array();
  for (const ExportPoint& e : points) {
    nlohmann::json row{{"name", e.name + " " + e.measure}, {"unit", e.unit}, {"value", e.value}};
    if (std::isfinite(e.upper)) row["range"] = "± " + fmt_num(e.upper - e.value, 4);
    row["extra"] = (e.verdict.empty() ? std::string() : e.verdict + " ") + e.detail;
    j.push_back(row);
  }
  return json_text(j, 2) + "\n";
}

std::string render_export(ExportFormat format, const std::string& text, const std::string& json,
                          const std::vector<ExportPoint>& points, const std::string& summary) {
  switch (format) {
    case ExportFormat::json:
      return json;
    case ExportFormat::bencher:
      return render_bencher(points);
    case ExportFormat::github_benchmark:
      return render_github_benchmark(points);
    case ExportFormat::markdown:
      return summary;
    case ExportFormat::text:
      break;
  }
  return text;
}

std::string render_comparison_summary(const CompareReport& report) {
  std::ostringstream md;
  md << "### bench_mps compare: `" << report.new_dir << "` against `" << report.base_dir << "`\n\n";
  md << "**" << summary_line(report) << "**\n\n";
  if (!report.testbed.empty()) md << report.testbed << "\n\n";
  md << "Metric: " << metric_column(report.options.metric) << ", threshold " << fmt_num(report.options.threshold_pct)
     << "%, alpha " << fmt_num(report.options.alpha) << ".\n\n";
  std::size_t shown = 0;
  std::ostringstream rows;
  for (const ComparedPair& p : report.comparison.pairs) {
    if (p.verdict == Verdict::same) continue;
    ++shown;
    rows << "| " << config_label(p.workload, p.params, p.mode, p.procs) << " | " << fmt_value(p.base.median) << " | "
         << fmt_value(p.next.median) << " | " << fmt_percent(p.change, true) << " | " << verdict_name(p.verdict)
         << " | " << p.note << " |\n";
  }
  if (report.comparison.pairs.empty()) {  // not a pass: nothing was checked
    md << "No configuration is in both folders: nothing was compared.\n";
  } else if (shown == 0) {
    md << "Every configuration compared is SAME.\n";
  } else {
    md << "| configuration | base | new | change | verdict | note |\n|---|---:|---:|---:|---|---|\n" << rows.str();
  }
  return md.str();
}

}  // namespace bench_mps::harness
