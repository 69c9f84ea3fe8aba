// Aggregation for the report: repeats are paired by their repeat number (runs are interleaved, so
// the runs of one repeat ran close together in time) before ratios are taken.
#include "harness/report_data.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "harness/stats.hpp"

namespace bench_mps::harness {
namespace {

using CellKey = std::tuple<std::string, std::string, int>;      // series, mode, N
using RunKey = std::tuple<std::string, std::string, int, int>;  // series, mode, N, repeat

bool is_ok(const SummaryRecord& r) { return r.status == "ok"; }

TaskTimeDistribution distribution_of(std::vector<double> ms) {
  TaskTimeDistribution d;
  if (ms.empty()) return d;
  std::sort(ms.begin(), ms.end());
  d.count = static_cast<long>(ms.size());
  d.min = ms.front();
  d.max = ms.back();
  d.p1 = quantile(ms, 0.01);
  d.p25 = quantile(ms, 0.25);
  d.p50 = quantile(ms, 0.50);
  d.p75 = quantile(ms, 0.75);
  d.p99 = quantile(ms, 0.99);
  d.mean = mean(ms);
  return d;
}

/// Series labels: the workload name, with its parameters where one workload ran with several.
std::map<std::pair<std::string, std::string>, std::string> series_labels(const std::vector<SummaryRecord>& summary) {
  std::map<std::string, std::set<std::string>> params_of;
  for (const auto& r : summary) params_of[r.workload].insert(r.params);
  std::map<std::pair<std::string, std::string>, std::string> labels;
  for (const auto& r : summary)
    labels[{r.workload, r.params}] = params_of[r.workload].size() > 1 ? r.workload + " (" + r.params + ")" : r.workload;
  return labels;
}

}  // namespace

Spread spread_of(const std::vector<double>& values) {
  std::vector<double> finite;
  for (double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  Spread s;
  if (finite.empty()) return s;
  s.count = static_cast<int>(finite.size());
  s.median = median(finite);
  s.min = *std::min_element(finite.begin(), finite.end());
  s.max = *std::max_element(finite.begin(), finite.end());
  return s;
}

const ReportCell* ReportData::find(const std::string& s, const std::string& mode, int n) const {
  for (const ReportCell& c : cells)
    if (c.series == s && c.mode == mode && c.procs == n) return &c;
  return nullptr;
}

std::string mode_label(const std::string& mode) {
  if (mode == "timeslice") return "time-sliced";
  if (mode == "mps") return "MPS";
  if (mode.rfind("mps:", 0) == 0) return "MPS " + mode.substr(4) + "% threads";
  return mode;
}

ReportData aggregate_results(const std::vector<SummaryRecord>& summary, const std::vector<TaskSample>& tasks) {
  ReportData data;
  const auto labels = series_labels(summary);
  std::map<RunKey, const SummaryRecord*> ok_runs;
  std::map<CellKey, std::vector<const SummaryRecord*>> by_cell;
  std::map<std::string, CellKey> cell_of_ok_run;
  std::set<int> procs;
  for (const SummaryRecord& r : summary) {
    const std::string& series = labels.at({r.workload, r.params});
    if (std::find(data.series.begin(), data.series.end(), series) == data.series.end()) data.series.push_back(series);
    if (std::find(data.modes.begin(), data.modes.end(), r.mode) == data.modes.end()) data.modes.push_back(r.mode);
    procs.insert(r.procs);
    const CellKey key{series, r.mode, r.procs};
    by_cell[key].push_back(&r);
    ++data.runs_total;
    if (!is_ok(r)) {
      data.failed.push_back({r.run_id, r.status, r.reason});
      continue;
    }
    ok_runs[{series, r.mode, r.procs, r.repeat}] = &r;
    cell_of_ok_run[r.run_id] = key;
  }
  std::stable_partition(data.modes.begin(), data.modes.end(), [](const std::string& m) { return m == "timeslice"; });
  data.procs.assign(procs.begin(), procs.end());

  std::map<CellKey, std::vector<double>> task_ms;
  for (const TaskSample& t : tasks) {
    auto it = cell_of_ok_run.find(t.run_id);
    if (it != cell_of_ok_run.end()) task_ms[it->second].push_back(t.duration_ms);
  }

  auto partner = [&](const std::string& series, const std::string& mode, int n, int repeat) -> const SummaryRecord* {
    auto it = ok_runs.find({series, mode, n, repeat});
    return it == ok_runs.end() ? nullptr : it->second;
  };

  for (const std::string& series : data.series) {
    for (const std::string& mode : data.modes) {
      for (int n : data.procs) {
        auto it = by_cell.find({series, mode, n});
        if (it == by_cell.end()) continue;
        ReportCell c;
        const SummaryRecord& first = *it->second.front();
        c.workload = first.workload;
        c.params = first.params;
        c.series = series;
        c.mode = mode;
        c.active_thread_pct = first.active_thread_pct;
        c.procs = n;
        std::vector<double> mean_ms, p99_ms, tput, rel_time, rel_tput, speedup;
        for (const SummaryRecord* r : it->second) {
          ++c.runs;
          if (!is_ok(*r)) {
            ++c.failed;
            continue;
          }
          mean_ms.push_back(r->task_mean_ms);
          p99_ms.push_back(r->task_p99_ms);
          tput.push_back(r->throughput_tasks_per_s);
          if (const SummaryRecord* alone = partner(series, mode, 1, r->repeat)) {
            rel_time.push_back(r->task_mean_ms / alone->task_mean_ms);
            rel_tput.push_back(r->throughput_tasks_per_s / alone->throughput_tasks_per_s);
          }
          if (mode != "timeslice")
            if (const SummaryRecord* ts = partner(series, "timeslice", n, r->repeat))
              speedup.push_back(r->throughput_tasks_per_s / ts->throughput_tasks_per_s);
        }
        c.task_mean_ms = spread_of(mean_ms);
        c.task_p99_ms = spread_of(p99_ms);
        c.throughput = spread_of(tput);
        c.relative_task_time = spread_of(rel_time);
        c.relative_throughput = spread_of(rel_tput);
        c.speedup_vs_timeslice = spread_of(speedup);
        c.tasks = distribution_of(task_ms[{series, mode, n}]);
        data.cells.push_back(c);
      }
    }
  }
  return data;
}

}  // namespace bench_mps::harness
