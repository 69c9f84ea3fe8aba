// Renders a CompareReport as markdown (padded pipe tables: readable on a terminal, valid markdown in a
// file), as comparison.csv and as comparison.json. Unknown numbers are "-" in tables, empty CSV cells
// and JSON nulls.
#include "harness/compare/compare_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "harness/common/format.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/results_writer.hpp"

namespace bench_mps::harness {

std::string fmt_value(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == 0) return "0";
  const int digits = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  return fmt_fixed(v, std::clamp(4 - digits, 0, 6));
}

std::string fmt_percent(double fraction, bool sign) {
  if (sign) return fmt_change(fraction);
  // Under half a tenth of a point prints as zero (fmt_fixed): not "-0.0%", which reads as a change too small to show.
  return std::isfinite(fraction) ? fmt_fixed(100.0 * fraction, 1) + "%" : "-";
}

std::string fmt_p(double p) { return std::isfinite(p) ? fmt_fixed(p, 4) : "-"; }

namespace {

std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : one_line(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

/// A pipe table padded to the widest cell of each column; `right[i]` right-aligns column i.
std::string pipe_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<bool>& right) {
  std::vector<std::size_t> width(header.size(), 3);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], md_cell(cells[i]).size());
  };
  measure(header);
  for (const auto& r : rows) measure(r);
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (std::size_t i = 0; i < header.size(); ++i) {
      const std::string c = md_cell(i < cells.size() ? cells[i] : "");
      const std::string pad(width[i] - c.size(), ' ');
      out += " " + (right[i] ? pad + c : c + pad) + " |";
    }
    return out + "\n";
  };
  std::string out = line(header) + "|";
  for (std::size_t i = 0; i < header.size(); ++i)
    out += right[i] ? std::string(width[i] + 1, '-') + ":|" : std::string(width[i] + 2, '-') + "|";
  out += "\n";
  for (const auto& r : rows) out += line(r);
  return out;
}

std::string clock_note(const ComparedPair& p) {
  if (!p.clock_flag) return "";
  return "SM clock " + fmt_num(p.base.sm_clock_mhz, 6) + " -> " + fmt_num(p.next.sm_clock_mhz, 6) + " MHz (" +
         fmt_percent((p.next.sm_clock_mhz - p.base.sm_clock_mhz) / p.base.sm_clock_mhz, true) + ")";
}

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

const std::vector<std::string>& comparison_csv_columns() {
  static const std::vector<std::string> columns{
      "workload",    "params",      "mode",      "active_thread_pct", "procs",      "metric", "base_n",
      "base_median", "base_spread", "new_n",     "new_median",        "new_spread", "change", "p_value",
      "verdict",     "clock_flag",  "detectable"};
  return columns;
}

std::string render_comparison_csv(const CompareReport& report) {
  std::string out = csv_line(comparison_csv_columns());
  const std::string column = metric_column(report.options.metric);
  for (const auto& p : report.comparison.pairs) {
    out += csv_line({p.workload, p.params, p.mode, p.active_thread_pct > 0 ? std::to_string(p.active_thread_pct) : "",
                     std::to_string(p.procs), column, std::to_string(p.base.values.size()), fmt_num(p.base.median, 7),
                     fmt_num(p.base.spread, 6), std::to_string(p.next.values.size()), fmt_num(p.next.median, 7),
                     fmt_num(p.next.spread, 6), fmt_num(p.change, 6), fmt_num(p.p_value, 6), verdict_name(p.verdict),
                     p.clock_flag ? "1" : "0", fmt_num(p.detectable, 6)});
  }
  return out;
}

std::string summary_line(const CompareReport& report) {
  const auto counts = count_verdicts(report.comparison);
  std::ostringstream s;
  s << report.comparison.pairs.size() << " pairs:";
  for (std::size_t i = 0; i < kAllVerdicts.size(); ++i)
    s << (i ? ", " : " ") << counts[i] << " " << verdict_name(kAllVerdicts[i]);
  const auto flags = std::count_if(report.comparison.pairs.begin(), report.comparison.pairs.end(),
                                   [](const ComparedPair& p) { return p.clock_flag; });
  s << "; " << flags << " clock flag" << (flags == 1 ? "" : "s");
  s << "; only in base " << report.comparison.only_in_base.size() << ", only in new "
    << report.comparison.only_in_new.size();
  s << "; runs not ok (left out): base " << report.comparison.base_not_ok << ", new " << report.comparison.new_not_ok;
  if (report.comparison.base_not_side_by_side + report.comparison.new_not_side_by_side > 0)
    s << "; interference runs not side by side (left out): base " << report.comparison.base_not_side_by_side << ", new "
      << report.comparison.new_not_side_by_side;
  if (report.comparison.base_no_value + report.comparison.new_no_value > 0)
    s << "; runs ok without a " << metric_name(report.options.metric) << " value (left out): base "
      << report.comparison.base_no_value << ", new " << report.comparison.new_no_value;
  if (report.same_folder) s << "; base and new are the same folder (SAME trivially)";
  return s.str();
}

std::string render_comparison_markdown(const CompareReport& report) {
  const CompareOptions& o = report.options;
  std::ostringstream md;
  md << "# bench_mps compare\n\n";
  md << "Base: `" << report.base_dir << "`  \nNew: `" << report.new_dir << "`  \n";
  if (report.same_folder)
    md << "\n**Base and New are the same folder**: every pair compares runs with themselves and is SAME "
          "trivially; this says nothing about a change.\n\n";
  if (!report.testbed.empty()) md << report.testbed << "\n\n";
  md << "Metric: " << metric_column(o.metric) << " (" << (higher_is_better(o.metric) ? "higher" : "lower")
     << " is better); threshold " << fmt_num(o.threshold_pct) << "%; alpha " << fmt_num(o.alpha) << "; "
     << kCompareStatistic
     << "; detectable = the smallest change the pair could have called FASTER/SLOWER (the threshold, or the wider "
        "noise)\n\n";

  md << "## Metadata\n\n";
  std::vector<std::vector<std::string>> meta_rows;
  for (const auto& m : report.metadata)
    meta_rows.push_back({m.key, meta_value_text(m.base), meta_value_text(m.next),
                         m.can_explain ? "differs: can explain a change"
                         : m.differs   ? "differs"
                                       : ""});
  md << pipe_table({"Key", "Base", "New", "Diff"}, meta_rows, {false, false, false, false}) << "\n";

  // Base and New, as the header lines and the metadata table call the two folders (Ref and Cmp before 2026-12-05).
  const std::vector<std::string> header{"Mode",  "N", "Base",       "Base noise", "New", "New noise",
                                        "%Diff", "p", "Detectable", "Status",     "Note"};
  const std::vector<bool> right{false, true, true, true, true, true, true, true, true, false, false};
  const auto& pairs = report.comparison.pairs;
  for (std::size_t i = 0; i < pairs.size();) {
    std::size_t j = i;
    std::vector<std::vector<std::string>> rows;
    for (; j < pairs.size() && pairs[j].workload == pairs[i].workload && pairs[j].params == pairs[i].params; ++j) {
      const ComparedPair& p = pairs[j];
      std::string note = p.note;
      if (p.clock_flag) note += (note.empty() ? "" : "; ") + clock_note(p);
      rows.push_back({p.mode, std::to_string(p.procs), fmt_value(p.base.median), fmt_percent(p.base.spread, false),
                      fmt_value(p.next.median), fmt_percent(p.next.spread, false), fmt_percent(p.change, true),
                      fmt_p(p.p_value), std::isfinite(p.detectable) ? fmt_percent(p.detectable, false) : "none",
                      verdict_name(p.verdict), note});
    }
    md << "## " << pairs[i].workload << " `" << pairs[i].params << "`\n\n" << pipe_table(header, rows, right) << "\n";
    i = j;
  }
  if (pairs.empty()) md << "No configuration has ok runs on both sides.\n\n";

  for (const auto* side : {&report.comparison.only_in_base, &report.comparison.only_in_new}) {
    if (side->empty()) continue;
    md << "Only in " << (side == &report.comparison.only_in_base ? "base" : "new") << ":\n";
    for (const auto& label : *side) md << "- " << label << "\n";
    md << "\n";
  }
  md << "**Summary:** " << summary_line(report) << "\n";
  return md.str();
}

nlohmann::json comparison_json(const CompareReport& report) {
  nlohmann::json j;
  j["format_version"] = kComparisonFormatVersion;
  j["base"] = report.base_dir;
  j["new"] = report.new_dir;
  j["same_folder"] = report.same_folder;
  j["metric"] = metric_name(report.options.metric);
  j["column"] = metric_column(report.options.metric);
  j["threshold"] = report.options.threshold_pct;
  j["alpha"] = report.options.alpha;
  j["statistic"] = kCompareStatistic;
  j["ignore_params"] = report.options.ignore_params;
  j["testbed"] = report.testbed;
  j["metadata_diff"] = nlohmann::json::array();
  for (const auto& m : report.metadata)
    j["metadata_diff"].push_back(
        {{"key", m.key}, {"base", m.base}, {"new", m.next}, {"differs", m.differs}, {"can_explain", m.can_explain}});
  const auto counts = count_verdicts(report.comparison);
  j["counts"] = nlohmann::json::object();
  for (std::size_t i = 0; i < kAllVerdicts.size(); ++i) j["counts"][verdict_name(kAllVerdicts[i])] = counts[i];
  j["only_in_base"] = report.comparison.only_in_base;
  j["only_in_new"] = report.comparison.only_in_new;
  j["pairs"] = nlohmann::json::array();
  for (const auto& p : report.comparison.pairs) {
    j["pairs"].push_back(
        {{"workload", p.workload},
         {"params", p.params},
         {"mode", p.mode},
         {"active_thread_pct", p.active_thread_pct > 0 ? nlohmann::json(p.active_thread_pct) : nlohmann::json(nullptr)},
         {"procs", p.procs},
         {"base_values", p.base.values},
         {"new_values", p.next.values},
         {"base_median", number_or_null(p.base.median)},
         {"new_median", number_or_null(p.next.median)},
         {"base_spread", number_or_null(p.base.spread)},
         {"new_spread", number_or_null(p.next.spread)},
         {"change", number_or_null(p.change)},
         {"p_value", number_or_null(p.p_value)},
         {"verdict", verdict_name(p.verdict)},
         {"note", p.note},
         {"clock_flag", p.clock_flag},
         {"detectable", number_or_null(p.detectable)}});
  }
  return j;
}

}  // namespace bench_mps::harness
