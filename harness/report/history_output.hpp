#pragma once
// What `bench_mps history` shows and writes: the folders in order, each series of a configuration across
// them with the changes found (history.hpp), as Markdown, history.csv, history.json, the figures' plot data,
// the points a dashboard reads (the newest folder's) and a CI job's summary. Rendering only: no file I/O.
#include "harness/report/wing.hpp"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/compare/exports.hpp"
#include "harness/report/history.hpp"

namespace bench_mps::harness {

/// One results folder of a history, as ordered: by driver version, then by the sweep's start.
struct HistoryFolder {
  std::string dir, driver, started_utc, testbed;
};

/// One configuration across the folders of one testbed.
struct HistorySeries {
  std::string testbed, workload, params, mode;
  int procs = 0;
  std::vector<HistoryPoint> points;  ///< in folder order; a folder without the configuration has no point
  SeriesChanges found;
};

struct HistoryReport {
  std::vector<HistoryFolder> folders;
  std::vector<std::string> testbeds;  ///< in order of first appearance
  std::vector<std::string> notes;     ///< testbed differences named, folders lacking a field
  CompareOptions options;
  std::vector<HistorySeries> series;
};

/// The method in one paragraph (history.hpp), as every output states it.
extern const char* const kHistoryMethod;

std::string render_history_markdown(const HistoryReport& report);
/// history.csv: a row per series and folder: the point, its status, and the change called there if any.
std::string render_history_csv(const HistoryReport& report);
nlohmann::json history_json(const HistoryReport& report);
/// plot_report.py's data: one figure per testbed and workload + parameters (kind "history").
nlohmann::json history_plot_data(const HistoryReport& report);
/// Every series' point in its testbed's newest folder (a series that folder lacks has none), for --format bencher /
/// github-benchmark.
std::vector<ExportPoint> history_points(const HistoryReport& report);

/// The series' point in the newest folder of its testbed; nullptr where that folder lacks the configuration (an
/// interrupted sweep, a shorter --procs): an older folder's point is not what the newest measured.
const HistoryPoint* newest_point(const HistoryReport& report, const HistorySeries& series);
/// A CI job's summary: the changes called, the blips and pending folders, the INSUFFICIENT newest points.
std::string render_history_summary(const HistoryReport& report);

}  // namespace bench_mps::harness
