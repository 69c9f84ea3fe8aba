// Renderers of `bench_mps history`: see history_output.hpp.
#include "harness/report/history_output.hpp"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/results/results_writer.hpp"

namespace bench_mps::harness {

const char* const kHistoryMethod =
    "a sequential test against the segment since the last change: each folder in turn is judged against the "
    "pooled worker-set means of the folders since the last change with compare's verdict rule (Welch's test of "
    "the sets' means, the threshold, each side's noise); a FASTER or SLOWER folder is a change only when the next "
    "folder, judged against the same segment, says the same: the change is called at that folder, sized as the "
    "ratio of the two folders' means to the segment's with its ~94 % interval, and a new segment starts there; a "
    "folder the next one contradicts is a blip (not called), a FASTER or SLOWER last folder is pending; a point "
    "with under two worker sets or runs not ok is INSUFFICIENT and never judged";

namespace {

std::string table_of(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                     std::vector<bool> right) {
  MarkdownTable t(header, std::move(right));
  for (const auto& r : rows) t.add_row(r);
  return t.str();
}

std::string label_of(const HistorySeries& s) { return config_label(s.workload, s.params, s.mode, s.procs); }

std::string folder_label(const HistoryReport& r, std::size_t i) {
  return "#" + std::to_string(i + 1) + " " + r.folders[i].driver;
}

std::string status_of(const HistoryPoint& p) { return p.sufficient() ? "ok" : "INSUFFICIENT"; }

const HistoryChange* change_at(const HistorySeries& s, std::size_t folder) {
  for (const HistoryChange& c : s.found.changes)
    if (c.at == folder) return &c;
  return nullptr;
}

/// A change called at `folder`, or the one pending there (the last folder, not yet confirmed).
const HistoryChange* change_or_pending_at(const HistorySeries& s, std::size_t folder) {
  if (const HistoryChange* c = change_at(s, folder)) return c;
  for (const HistoryChange& c : s.found.pending_changes)
    if (c.at == folder) return &c;
  return nullptr;
}

std::string ratio_text(double ratio) { return fmt_percent(ratio - 1, true); }

std::string interval_text(const HistoryChange& c) {
  return std::isfinite(c.lower) ? ratio_text(c.lower) + " to " + ratio_text(c.upper) : std::string("-");
}

std::string folder_list(const HistoryReport& r, const std::vector<std::size_t>& folders) {
  std::string out;
  for (std::size_t f : folders) out += (out.empty() ? "" : ", ") + folder_label(r, f);
  return out;
}

}  // namespace

std::string render_history_markdown(const HistoryReport& r) {
  std::ostringstream md;
  md << "# bench_mps history\n\n";
  md << "Metric: " << metric_column(r.options.metric) << " ("
     << (higher_is_better(r.options.metric) ? "higher" : "lower") << " is better); threshold "
     << fmt_num(r.options.threshold_pct) << "%; alpha " << fmt_num(r.options.alpha) << ".\n\nMethod: " << kHistoryMethod
     << ".\n\n";
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < r.folders.size(); ++i)
    rows.push_back({"#" + std::to_string(i + 1), "`" + r.folders[i].dir + "`", r.folders[i].driver,
                    r.folders[i].started_utc, r.folders[i].testbed});
  md << "## Folders, in order (driver version, then date)\n\n"
     << table_of({"", "folder", "driver", "started (UTC)", "testbed"}, rows, {}) << "\n";
  for (const std::string& n : r.notes) md << "- " << n << "\n";
  if (!r.notes.empty()) md << "\n";
  md << "## Changes\n\n";
  rows.clear();
  std::vector<std::string> blips, pending;
  for (const HistorySeries& s : r.series) {
    for (const HistoryChange& c : s.found.changes)
      rows.push_back({label_of(s), folder_label(r, c.at), folder_label(r, c.segment_from), verdict_name(c.direction),
                      ratio_text(c.ratio), interval_text(c), folder_label(r, c.confirmed_by)});
    if (!s.found.blips.empty()) blips.push_back(label_of(s) + " at " + folder_list(r, s.found.blips));
    for (const HistoryChange& c : s.found.pending_changes)
      pending.push_back(label_of(s) + " at " + folder_label(r, c.at) + ": " + verdict_name(c.direction) + " " +
                        ratio_text(c.ratio) + " (" + interval_text(c) + ", ~94 %) against the segment from " +
                        folder_label(r, c.segment_from));
  }
  if (rows.empty())
    md << "No change persisted in any series.\n\n";
  else
    md << table_of({"configuration", "at", "segment from", "verdict", "change", "~94% interval", "confirmed by"}, rows,
                   {false, false, false, false, true, true, false})
       << "\n";
  for (const std::string& b : blips) md << "- blip, not called (the next folder did not agree): " << b << "\n";
  for (const std::string& p : pending) md << "- pending (the next folder must agree): " << p << "\n";
  if (!blips.empty() || !pending.empty()) md << "\n";
  // A table per testbed and workload + parameters: each series' mean per folder.
  std::map<std::string, std::vector<const HistorySeries*>> groups;
  std::vector<std::string> order;
  for (const HistorySeries& s : r.series) {
    const std::string key = s.testbed + "\n" + s.workload + " `" + s.params + "`";
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&s);
  }
  for (const std::string& key : order) {
    const auto nl = key.find('\n');
    md << "## " << key.substr(nl + 1) << " on " << key.substr(0, nl) << "\n\n"
       << "Each cell: the mean of the worker sets' means of " << metric_column(r.options.metric)
       << " in that folder, with its ~94 % interval (Student's t; none below two sets).\n\n";
    std::vector<std::size_t> folders;
    for (std::size_t i = 0; i < r.folders.size(); ++i)
      if (r.folders[i].testbed == key.substr(0, nl)) folders.push_back(i);
    std::vector<std::string> header{"mode", "N"};
    for (std::size_t f : folders) header.push_back("#" + std::to_string(f + 1));
    rows.clear();
    for (const HistorySeries* s : groups[key]) {
      std::vector<std::string> row{s->mode, std::to_string(s->procs)};
      for (std::size_t f : folders) {
        std::string cell = "-";
        for (const HistoryPoint& p : s->points)
          if (p.folder == f)
            cell = fmt_value(p.mean) +
                   (std::isfinite(p.lower) && std::isfinite(p.upper)
                        ? " (" + fmt_value(p.lower) + " to " + fmt_value(p.upper) + ")"
                        : std::string()) +
                   (p.sufficient() ? "" : " (INSUFFICIENT)") + (change_at(*s, f) ? " **change**" : "");
        row.push_back(cell);
      }
      rows.push_back(row);
    }
    md << table_of(header, rows, {}) << "\n";
  }
  return md.str();
}

std::string render_history_csv(const HistoryReport& r) {
  std::ostringstream o;
  o << csv_line({"testbed", "workload", "params", "mode", "procs", "folder", "driver_version", "started_utc", "sets",
                 "mean", "lower", "upper", "status", "change", "change_lower", "change_upper", "verdict"});
  for (const HistorySeries& s : r.series)
    for (const HistoryPoint& p : s.points) {
      const HistoryChange* c = change_or_pending_at(s, p.folder);  // pending: "SLOWER pending"
      const HistoryFolder& f = r.folders[p.folder];
      o << csv_line({s.testbed, s.workload, s.params, s.mode, std::to_string(s.procs), f.dir, f.driver, f.started_utc,
                     std::to_string(p.set_means.size()), fmt_num(p.mean, 9), fmt_num(p.lower, 9), fmt_num(p.upper, 9),
                     status_of(p), c ? fmt_num(c->ratio - 1, 6) : "", c ? fmt_num(c->lower - 1, 6) : "",
                     c ? fmt_num(c->upper - 1, 6) : "",
                     c ? std::string(verdict_name(c->direction)) + (c->pending ? " pending" : "") : ""});
    }
  return o.str();
}

namespace {

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json history_json(const HistoryReport& r) {
  nlohmann::json j;
  j["format_version"] = 1;
  j["metric"] = metric_name(r.options.metric);
  j["column"] = metric_column(r.options.metric);
  j["threshold"] = r.options.threshold_pct;
  j["alpha"] = r.options.alpha;
  j["method"] = kHistoryMethod;
  j["folders"] = nlohmann::json::array();
  for (const HistoryFolder& f : r.folders)
    j["folders"].push_back(
        {{"dir", f.dir}, {"driver_version", f.driver}, {"started_utc", f.started_utc}, {"testbed", f.testbed}});
  j["testbeds"] = r.testbeds;
  j["notes"] = r.notes;
  j["series"] = nlohmann::json::array();
  for (const HistorySeries& s : r.series) {
    nlohmann::json points = nlohmann::json::array(), changes = nlohmann::json::array();
    for (const HistoryPoint& p : s.points)
      points.push_back({{"folder", p.folder},
                        {"set_means", p.set_means},
                        {"runs_not_ok", p.not_ok},
                        {"mean", number_or_null(p.mean)},
                        {"lower", number_or_null(p.lower)},
                        {"upper", number_or_null(p.upper)},
                        {"status", status_of(p)}});
    for (const HistoryChange& c : s.found.changes)
      changes.push_back({{"at", c.at},
                         {"confirmed_by", c.confirmed_by},
                         {"segment_from", c.segment_from},
                         {"verdict", verdict_name(c.direction)},
                         {"ratio", number_or_null(c.ratio)},
                         {"lower", number_or_null(c.lower)},
                         {"upper", number_or_null(c.upper)}});
    j["series"].push_back({{"testbed", s.testbed},
                           {"workload", s.workload},
                           {"params", s.params},
                           {"mode", s.mode},
                           {"procs", s.procs},
                           {"points", points},
                           {"changes", changes},
                           {"blips", s.found.blips},
                           {"pending", s.found.pending},
                           {"pending_changes", [&s] {
                              nlohmann::json list = nlohmann::json::array();
                              for (const HistoryChange& c : s.found.pending_changes)
                                list.push_back({{"at", c.at},
                                                {"segment_from", c.segment_from},
                                                {"verdict", verdict_name(c.direction)},
                                                {"ratio", number_or_null(c.ratio)},
                                                {"lower", number_or_null(c.lower)},
                                                {"upper", number_or_null(c.upper)}});
                              return list;
                            }()}});
  }
  return j;
}

nlohmann::json history_plot_data(const HistoryReport& r) {
  nlohmann::json figures = nlohmann::json::array();
  std::map<std::string, std::size_t> index;
  for (const HistorySeries& s : r.series) {
    const std::string key = s.testbed + "|" + s.workload + "|" + s.params;
    if (!index.count(key)) {
      index[key] = figures.size();
      nlohmann::json folders = nlohmann::json::array();
      for (std::size_t i = 0; i < r.folders.size(); ++i)
        if (r.folders[i].testbed == s.testbed)
          folders.push_back(
              {{"index", i}, {"label", folder_label(r, i) + "\n" + r.folders[i].started_utc.substr(0, 10)}});
      figures.push_back({{"name", "history-" + std::to_string(figures.size() + 1) + "-" + s.workload},
                         {"kind", "history"},
                         {"title", s.workload + " " + s.params + "\n" + s.testbed},
                         {"metric", metric_column(r.options.metric)},
                         {"threshold", r.options.threshold_pct / 100},
                         {"folders", folders},
                         {"lines", nlohmann::json::array()}});
    }
    nlohmann::json points = nlohmann::json::array(), changes = nlohmann::json::array();
    for (const HistoryPoint& p : s.points)
      points.push_back({{"folder", p.folder},
                        {"mean", number_or_null(p.mean)},
                        {"lower", number_or_null(p.lower)},
                        {"upper", number_or_null(p.upper)},
                        {"sufficient", p.sufficient()}});
    for (const HistoryChange& c : s.found.changes)
      changes.push_back({{"folder", c.at}, {"label", verdict_name(c.direction) + " " + ratio_text(c.ratio)}});
    figures[index[key]]["lines"].push_back(
        {{"label", s.mode + " N=" + std::to_string(s.procs)}, {"points", points}, {"changes", changes}});
  }
  return {{"figures", figures}};
}

const HistoryPoint* newest_point(const HistoryReport& r, const HistorySeries& s) {
  std::size_t newest = 0;
  for (std::size_t i = 0; i < r.folders.size(); ++i)
    if (r.folders[i].testbed == s.testbed) newest = i;
  return !s.points.empty() && s.points.back().folder == newest ? &s.points.back() : nullptr;
}

std::vector<ExportPoint> history_points(const HistoryReport& r) {
  std::vector<ExportPoint> out;
  for (const HistorySeries& s : r.series) {
    const HistoryPoint* newest = newest_point(r, s);
    if (!newest) continue;  // the newest folder did not measure it: no point of an older one stands in
    const HistoryPoint& p = *newest;
    ExportPoint e = export_point(label_of(s), r.options.metric, p.mean, p.lower, p.upper);
    e.verdict = p.sufficient() ? std::string() : "INSUFFICIENT";
    e.detail = r.folders[p.folder].dir + ": " + std::to_string(s.found.changes.size()) + " change(s) in the series";
    for (const HistoryChange& c : s.found.pending_changes)  // the newest folder's own, not yet confirmed: said
      if (c.at == p.folder)
        e.detail += "; this folder " + std::string(verdict_name(c.direction)) + " " + fmt_times(c.ratio) + " (" +
                    fmt_times(c.lower) + " to " + fmt_times(c.upper) + "), pending: the next folder must agree";
    if (std::isfinite(e.value)) out.push_back(e);
  }
  return out;
}

std::string render_history_summary(const HistoryReport& r) {
  std::ostringstream md;
  std::size_t changes = 0, blips = 0, pending = 0, insufficient = 0, missing = 0;
  std::vector<std::vector<std::string>> rows;
  std::set<std::size_t> named;  // the folders the rows name, listed under the table: a job page has no history.md
  for (const HistorySeries& s : r.series) {  // a row per change, pending change and newest point lacking: named
    for (const HistoryChange& c : s.found.changes) {
      named.insert(c.at);
      rows.push_back(
          {label_of(s), folder_label(r, c.at), verdict_name(c.direction), ratio_text(c.ratio), interval_text(c)});
    }
    for (const HistoryChange& c : s.found.pending_changes) {
      named.insert(c.at);
      rows.push_back({label_of(s), folder_label(r, c.at), std::string(verdict_name(c.direction)) + " pending",
                      ratio_text(c.ratio), interval_text(c)});
    }
    changes += s.found.changes.size();
    blips += s.found.blips.size();
    pending += s.found.pending.size();
    const HistoryPoint* newest = newest_point(r, s);
    if (!newest) {
      ++missing;
      rows.push_back({label_of(s), "newest folder", "missing", "-", "-"});
    } else if (!newest->sufficient()) {
      ++insufficient;
      named.insert(newest->folder);
      rows.push_back({label_of(s), folder_label(r, newest->folder), "INSUFFICIENT", "-", "-"});
    }
  }
  md << "### bench_mps history: " << r.folders.size() << " folders, " << r.series.size() << " series\n\n";
  md << "**" << changes << " changes called, " << blips << " blips not called, " << pending << " pending, "
     << insufficient << " series INSUFFICIENT in their newest folder"
     << (missing > 0 ? ", " + std::to_string(missing) + " missing from it" : std::string()) << "**\n\n";
  if (!rows.empty()) md << table_of({"configuration", "at", "verdict", "change", "~94% interval"}, rows, {}) << "\n";
  for (std::size_t f : named) md << "- " << folder_label(r, f) << ": `" << r.folders[f].dir << "`\n";
  if (!named.empty()) md << "\n";
  return md.str();
}

}  // namespace bench_mps::harness
