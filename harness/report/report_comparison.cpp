// Reads and renders a comparison folder. comparison.json is read leniently (each key optional, any
// JSON shape for the metadata diff; `threshold` in percent, as `bench_mps compare --threshold`);
// comparison.csv strictly, with the shared CSV reader.
#include "harness/report/report_comparison.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "harness/common/csv_table.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

using nlohmann::json;

const std::array<const char*, 5> kVerdicts{"FASTER", "SLOWER", "SAME", "UNSURE", "INSUFFICIENT"};

std::string text_of(const json& info, const char* key) {
  if (!info.contains(key) || info[key].is_null()) return "-";
  return info[key].is_string() ? info[key].get<std::string>() : info[key].dump();
}

double number_of(const json& info, const char* key) {
  if (!info.contains(key) || !info[key].is_number()) return NAN;
  return info[key].get<double>();
}

/// What the folder's compare called noise and how it tested: comparison.json's "statistic", or
/// `before_the_key`, the words a folder written before the key was rendered with (kept byte for byte).
std::string statistic_or(const json& info, const char* before_the_key) {
  return info.contains("statistic") && info["statistic"].is_string() ? info["statistic"].get<std::string>()
                                                                     : before_the_key;
}

/// comparison.json's threshold as a fraction (it holds percent: 5 means +-5%); NaN if absent.
double threshold_fraction(const json& info) {
  const double pct = info.contains("threshold_pct") ? number_of(info, "threshold_pct") : number_of(info, "threshold");
  return pct / 100;
}

std::string cell_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean())
    return v.get<bool>() ? "yes" : "no";  // a false is said, not left blank like a value never recorded
  if (v.is_null()) return "-";
  return v.dump();
}

std::string spread_percent(double fraction) {
  return std::isfinite(fraction) ? fmt_fixed(100 * fraction, 1) + "%" : "-";
}

/// Pair labels: workload, mode and N, plus the metric or parameters where the file has several.
std::vector<std::string> pair_labels(const std::vector<ComparisonRow>& rows) {
  std::set<std::string> metrics;
  std::map<std::string, std::set<std::string>> params;
  for (const auto& r : rows) {
    metrics.insert(r.metric);
    params[r.workload].insert(r.params);
  }
  std::vector<std::string> labels;
  for (const auto& r : rows) {
    std::string l = r.workload;
    if (params[r.workload].size() > 1) l += " (" + r.params + ")";
    l += " " + r.mode + " N=" + std::to_string(r.procs);
    if (metrics.size() > 1) l += " " + r.metric;
    labels.push_back(l);
  }
  return labels;
}

/// The metadata diff as a table when it is a list of records or a map of {base, new}; else as JSON.
std::string metadata_markdown(const json& diff) {
  if (diff.is_null() || diff.empty()) return "No metadata differs.\n";
  if (diff.is_object()) {
    MarkdownTable t({"field", "base", "new"});
    for (auto it = diff.begin(); it != diff.end(); ++it) {
      const json& v = *it;
      if (v.is_object() && v.contains("base") && v.contains("new"))
        t.add_row({it.key(), cell_text(v["base"]), cell_text(v["new"])});
      else
        t.add_row({it.key(), cell_text(v), ""});
    }
    return t.str();
  }
  if (diff.is_array() && diff.front().is_object()) {
    std::vector<std::string> keys;  // the name of the field first, then base and new, then the rest
    for (const char* k : {"key", "field", "name", "base", "new"})
      for (const auto& rec : diff)
        if (rec.is_object() && rec.contains(k) && std::find(keys.begin(), keys.end(), k) == keys.end())
          keys.push_back(k);
    for (const auto& rec : diff)
      if (rec.is_object())
        for (auto it = rec.begin(); it != rec.end(); ++it)
          if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) keys.push_back(it.key());
    MarkdownTable t(keys);
    for (const auto& rec : diff) {
      std::vector<std::string> row;
      for (const auto& k : keys) row.push_back(rec.is_object() && rec.contains(k) ? cell_text(rec[k]) : "");
      t.add_row(row);
    }
    return t.str();
  }
  std::string out;
  if (diff.is_array())
    for (const auto& v : diff) out += "- " + one_line(v.is_string() ? v.get<std::string>() : v.dump()) + "\n";
  else
    out = "`" + one_line(diff.dump()) + "`\n";
  return out;
}

/// The noise compare's verdict weighs for a pair: the wider side's relative_spread; null if unknown.
json pair_noise(const ComparisonRow& r) {
  const bool known = std::isfinite(r.base_spread) && std::isfinite(r.new_spread);
  return known ? json(std::max(r.base_spread, r.new_spread)) : json();
}

}  // namespace

bool is_comparison_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "comparison.csv", ec) && !fs::exists(dir / "summary.csv", ec);
}

ComparisonFolder read_comparison_folder(const fs::path& dir) {
  static constexpr std::array<const char*, 16> cols{
      "workload",    "params", "mode",       "active_thread_pct", "procs",  "metric",  "base_n",  "base_median",
      "base_spread", "new_n",  "new_median", "new_spread",        "change", "p_value", "verdict", "clock_flag"};
  ComparisonFolder f;
  const fs::path meta = dir / "comparison.json";
  const std::string text = read_input_file(meta);
  try {
    f.info = json::parse(text);
  } catch (const json::exception& e) {
    throw ResultsError(meta.string() + ": " + json_value_problem(e));
  }
  if (!f.info.is_object()) throw ResultsError(meta.string() + ": not a JSON object");
  const json version = f.info.value("format_version", json());
  if (!version.is_null() && !version.is_number_integer())
    throw ResultsError(meta.string() + ": format_version is " + version.dump().substr(0, 40) +
                       ", not a whole number: the file is damaged");
  if (!version.is_number_integer())
    throw ResultsError(meta.string() +
                       ": no format_version (written by a bench_mps older than the versioned files): "
                       "run bench_mps compare again");
  if (version.get<long>() != kComparisonFormatVersion)
    throw ResultsError(meta.string() + ": format version " + version.dump() + ", this bench_mps reads " +
                       std::to_string(kComparisonFormatVersion));
  const fs::path csv = dir / "comparison.csv";
  std::size_t line = 1;
  for (const auto& c : read_csv_columns(csv, cols)) {
    const std::string at = csv.string() + " line " + std::to_string(++line);
    ComparisonRow r;
    r.workload = c[0];
    r.params = c[1];
    r.mode = c[2];
    if (r.workload.empty() || r.mode.empty()) throw ResultsError(at + ": empty workload or mode");
    r.active_thread_pct = c[3].empty() ? 0 : static_cast<int>(parse_cell_long(c[3], at + " active_thread_pct"));
    r.procs = static_cast<int>(parse_cell_long(c[4], at + " procs"));
    if (r.procs <= 0) throw ResultsError(at + ": procs must be positive");
    r.metric = c[5];
    r.base_n = parse_cell_long(c[6], at + " base_n");
    r.base_median = parse_cell_double(c[7], at + " base_median");
    r.base_spread = parse_cell_double(c[8], at + " base_spread");
    r.new_n = parse_cell_long(c[9], at + " new_n");
    r.new_median = parse_cell_double(c[10], at + " new_median");
    r.new_spread = parse_cell_double(c[11], at + " new_spread");
    r.change = parse_cell_double(c[12], at + " change");
    r.p_value = parse_cell_double(c[13], at + " p_value");
    r.verdict = c[14];
    if (std::find(kVerdicts.begin(), kVerdicts.end(), r.verdict) == kVerdicts.end())
      throw ResultsError(at + ": verdict '" + r.verdict.substr(0, 20) +
                         "' is none of SAME, FASTER, SLOWER, UNSURE, INSUFFICIENT");
    r.clock_flag = !c[15].empty() && parse_cell_long(c[15], at + " clock_flag") != 0;
    f.rows.push_back(r);
  }
  return f;
}

PlotPlan comparison_plot_plan(const ComparisonFolder& folder) {
  PlotPlan plan;
  const std::string recorded = statistic_or(folder.info, "");
  FigureInfo fig{"comparison", "Change per configuration, NEW against BASE",
                 "One bar per configuration: the change of the median from BASE to NEW, (new - base) / |base|, "
                 "in percent, coloured by the verdict of `bench_mps compare` (SAME, FASTER, SLOWER, UNSURE). "
                 "The shaded band is the threshold within which a change is not called; the black whisker on "
                 "each row spans that row's noise, the wider side's " +
                     (recorded.empty() ? std::string("noise (its median's ~94% confidence interval over the median; "
                                                     "the whole range up to 8 repeats)")
                                       : "(" + recorded + ")") +
                     ": a change "
                     "inside it is never called FASTER or SLOWER, and noise wider than the threshold leaves a small "
                     "change UNSURE. The x range is the same for every comparison chart (the smallest of ±2, 5, 10, "
                     "20, 50, 100, ...% that holds every bar and whisker), so charts can be set side by side; * marks "
                     "pairs whose SM clocks differed by more than 2%, where a change may be the clock's."};
  const auto labels = pair_labels(folder.rows);
  json pairs = json::array();
  for (std::size_t i = 0; i < folder.rows.size(); ++i) {
    const ComparisonRow& r = folder.rows[i];
    pairs.push_back({{"label", labels[i] + (r.clock_flag ? " *" : "")},
                     {"change", std::isfinite(r.change) ? json(r.change) : json()},
                     {"verdict", r.verdict},
                     {"noise", pair_noise(r)},
                     {"clock_flag", r.clock_flag}});
  }
  const double threshold = threshold_fraction(folder.info);
  const std::string title = "NEW " + text_of(folder.info, "new") + " vs BASE " + text_of(folder.info, "base");
  json entry{{"name", fig.name},
             {"title", fig.title},
             {"metric", text_of(folder.info, "metric")},
             {"threshold", std::isfinite(threshold) ? json(threshold) : json()},
             {"pairs", pairs}};
  if (folder.rows.empty()) {
    plan.not_drawn.push_back(fig.title + ": comparison.csv has no pairs");
  } else {
    plan.figures.push_back(fig);
  }
  plan.data = {{"format_version", kPlotDataFormatVersion},
               {"kind", "comparison"},
               {"machine", title},
               {"figures", folder.rows.empty() ? json::array() : json::array({entry})}};
  return plan;
}

std::string render_comparison_report(const ComparisonFolder& folder, const PlotPlan& plan,
                                     const std::string& folder_name) {
  std::map<std::string, int> count;
  int clocks = 0;
  for (const auto& r : folder.rows) {
    ++count[r.verdict];
    clocks += r.clock_flag;
  }
  const json& info = folder.info;
  const double threshold = threshold_fraction(info);
  std::string verdict = "Comparing NEW " + text_of(info, "new") + " with BASE " + text_of(info, "base") + " on " +
                        text_of(info, "metric") + ": ";
  for (const char* v : kVerdicts)  // INSUFFICIENT only where there is one: earlier reports render as they did
    if (std::string(v) != "INSUFFICIENT" || count[v] > 0) verdict += std::to_string(count[v]) + " " + v + ", ";
  verdict += "of " + std::to_string(folder.rows.size()) + " pairs (threshold " +
             (std::isfinite(threshold) ? "±" + fmt_fixed(100 * threshold, 1) + "%" : std::string("-")) + ", alpha " +
             text_of(info, "alpha") + ")";
  if (clocks) verdict += "; SM clocks differ by more than 2% in " + std::to_string(clocks) + " of them";
  verdict += ".";

  std::string md = verdict + "\n\n# bench_mps comparison report: " + folder_name + "\n\n";
  md +=
      "Rendered by `bench_mps report` from comparison.csv and comparison.json (written by `bench_mps compare`); "
      "compare's own tables are in comparison.md. See docs/REPORT.md.\n\n## What differs between the two folders\n\n";
  const char* diff_key = info.contains("metadata_diff") ? "metadata_diff" : "metadata";
  md += metadata_markdown(info.contains(diff_key) ? info[diff_key] : json());
  md += "\n## Figure\n\n";
  for (const FigureInfo& f : plan.figures) md += figure_markdown(f);
  for (const std::string& why : plan.not_drawn) md += "Not drawn: " + why + ".\n\n";
  if (folder.rows.empty())  // compare wrote the folder of two results folders with no configuration in common
    return md + "## Pairs\n\nNone: the two folders had no configuration in common, so nothing was compared.\n";
  md += "## Pairs\n\nMedian over repeats on each side and its noise (" +
        statistic_or(info,
                     "the median's ~94% confidence interval over the median: the whole range, (max - min) / median, "
                     "up to 8 repeats") +
        "); change = (new - base) / |base|.\n\n";
  MarkdownTable t({"workload", "params", "mode", "N", "metric", "base (n)", "base median", "base noise", "new (n)",
                   "new median", "new noise", "change", "p", "verdict", "clocks differ"},
                  {false, false, false, true, false, true, true, true, true, true, true, true, true, false, false});
  for (const auto& r : folder.rows)
    t.add_row({r.workload, r.params, r.mode, std::to_string(r.procs), r.metric, std::to_string(r.base_n),
               fmt_sig(r.base_median), spread_percent(r.base_spread), std::to_string(r.new_n), fmt_sig(r.new_median),
               spread_percent(r.new_spread), fmt_change(r.change, false),
               std::isfinite(r.p_value) ? fmt_num(r.p_value, 3) : "-", r.verdict, r.clock_flag ? "yes" : ""});
  md += t.str();
  return md;
}

}  // namespace bench_mps::harness
