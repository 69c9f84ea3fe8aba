// Aggregation for the report: repeats are paired by their repeat number (runs are interleaved, so
// the runs of one repeat ran close together in time) before ratios are taken.
#include "harness/report/report_data.hpp"

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/results/regime_rows.hpp"
#include "harness/workers/workload_config.hpp"
#include "harness/workers/workload_kind.hpp"

namespace bench_mps::harness {
namespace {

using CellKey = std::tuple<std::string, std::string, int>;      // series, mode, N
using RunKey = std::tuple<std::string, std::string, int, int>;  // series, mode, N, repeat

bool is_ok(const SummaryRecord& r) { return r.status == RunStatus::ok; }

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

/// A ratio shown beside its operands is computed from them: its point is the ratio of the operands' medians
/// (the cells the report prints), its range stays that of the per-repeat ratios (each repeat against its own
/// partner run). Without a partner run in any repeat (an exec sweep whose alone run of that repeat failed, its
/// other alone runs ok) the point stands alone, as the end-of-sweep summary prints it.
void point_from_medians(Spread& ratio, double numerator, double denominator) {
  ratio.median = denominator > 0 && std::isfinite(numerator) ? numerator / denominator : NAN;
  // Repeats added for --noise-target have no partner run, so the medians may move outside the paired
  // repeats' range: the range then reaches the point, so that a range always holds its point.
  if (std::isfinite(ratio.median)) {
    ratio.min = ratio.count == 0 ? ratio.median : std::min(ratio.min, ratio.median);
    ratio.max = ratio.count == 0 ? ratio.median : std::max(ratio.max, ratio.median);
  }
}

void ratios_from_medians(ReportData& data) {
  for (ReportCell& c : data.cells) {
    const ReportCell* alone = data.find(c.series, c.mode, 1);
    const ReportCell* ts = data.find(c.series, kTimesliceMode, c.procs);
    const ReportCell* ts1 = data.find(c.series, kTimesliceMode, 1);
    const ReportCell* unlimited = data.find(c.series, kMpsMode, c.procs);
    if (alone) {
      point_from_medians(c.relative_task_time, c.task_mean_ms.median, alone->task_mean_ms.median);
      point_from_medians(c.relative_throughput, c.throughput.median, alone->throughput.median);
    }
    if (ts && c.mode != kTimesliceMode)  // make_cell's rule: a mode against time-slicing, not time-slicing itself
      point_from_medians(c.speedup_vs_timeslice, c.throughput.median, ts->throughput.median);
    if (ts1) {
      point_from_medians(c.task_time_vs_timeslice_alone, c.task_mean_ms.median, ts1->task_mean_ms.median);
      point_from_medians(c.makespan_vs_timeslice_alone, c.makespan_s.median, ts1->makespan_s.median);
    }
    if (unlimited && is_limited_mps_mode(c.mode))  // a limited MPS mode against unlimited MPS (make_cell's)
      point_from_medians(c.task_time_vs_unlimited_mps, c.task_mean_ms.median, unlimited->task_mean_ms.median);
  }
}

}  // namespace

namespace {

/// data.exec_alone from the ok copies of the cells at N=1 (in runs.csv's order: the order they ran).
void aggregate_exec_alone(const std::map<std::pair<int, int>, std::vector<const WorkerRecord*>>& cells,
                          ReportData& data) {
  for (const auto& [key, copies] : cells) {
    if (key.second != 1) continue;
    ExecAloneRuns a;
    a.mode = data.modes[static_cast<std::size_t>(key.first)];
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> per_run;  // step, completion
    for (const WorkerRecord* w : copies) {
      if (!per_run.count(w->run_id)) a.run_ids.push_back(w->run_id);
      per_run[w->run_id].first.push_back(w->fact("step_mean_ms"));
      per_run[w->run_id].second.push_back(w->fact("completion_s"));
    }
    for (const std::string& id : a.run_ids) {
      a.step_ms.push_back(mean(per_run[id].first));
      a.completion_s.push_back(mean(per_run[id].second));
    }
    a.step = spread_of(a.step_ms);
    a.completion = spread_of(a.completion_s);
    data.exec_alone.push_back(a);
  }
}

/// The last of `values` over the first; NaN with fewer than two.
double last_over_first(const std::vector<double>& values) {
  return values.size() < 2 ? NAN : values.back() / values.front();
}

}  // namespace

double ExecAloneRuns::step_drift() const { return last_over_first(step_ms); }
double ExecAloneRuns::completion_drift() const { return last_over_first(completion_s); }

const ExecAloneRuns* ReportData::find_exec_alone(const std::string& mode) const {
  for (const ExecAloneRuns& a : exec_alone)
    if (a.mode == mode) return &a;
  return nullptr;
}

void aggregate_exec(const std::vector<WorkerRecord>& workers, ReportData& data) {
  std::set<std::string> failed;
  for (const FailedRun& f : data.failed) failed.insert(f.run_id);
  std::map<std::pair<int, int>, std::vector<const WorkerRecord*>> cells;  // (mode order, N)
  for (const WorkerRecord& w : workers) {
    if (!runs_user_program(w.workload) || failed.count(w.run_id) || w.status != RunStatus::ok) continue;
    const auto mode = std::find(data.modes.begin(), data.modes.end(), w.mode);
    if (mode == data.modes.end()) continue;
    cells[{static_cast<int>(mode - data.modes.begin()), w.procs}].push_back(&w);
  }
  for (const auto& [key, copies] : cells) {
    ExecCell c;
    c.mode = data.modes[static_cast<std::size_t>(key.first)];
    c.procs = key.second;
    c.copies = static_cast<int>(copies.size());
    std::vector<double> completion, startup, steps, step_ms;
    for (const WorkerRecord* w : copies) {
      completion.push_back(w->fact("completion_s"));
      if (!std::isfinite(w->fact("step_mean_ms"))) continue;  // printed no step: its steps are the others'
      ++c.copies_with_steps;
      startup.push_back(w->fact("startup_s"));
      steps.push_back(w->fact("steps"));
      step_ms.push_back(w->fact("step_mean_ms"));
    }
    c.completion_s = mean(completion);
    c.startup_s = mean(startup);
    c.steps = mean(steps);
    c.step_ms = mean(step_ms);
    data.exec.push_back(c);
  }
  aggregate_exec_alone(cells, data);
}

std::string regime_of(const std::string& workload, const std::string& params) {
  const std::optional<WorkloadKind> kind = parse_workload_kind(workload);
  if (kind == WorkloadKind::exec) return "seed001";
  if (kind == WorkloadKind::mlp) return param_text(params, "profile") == "seed001" ? "seed001" : "gpu-bound";
  return workload;
}

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

double membw_bytes_per_task(const std::string& workload, const std::string& params) {
  if (parse_workload_kind(workload) != WorkloadKind::membw) return NAN;
  double mib = NAN, iters = NAN;
  for (const std::string& item : split(params, ';')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "mib") mib = std::atof(value.c_str());
    if (key == "iters") iters = std::atof(value.c_str());
  }
  return iters * 3.0 * mib * 1024.0 * 1024.0;
}

void aggregate_membw(const std::vector<WorkerRecord>& workers, ReportData& data) {
  for (const WorkerRecord& w : workers)
    if (parse_workload_kind(w.workload) == WorkloadKind::membw && std::isfinite(w.fact("peak_gbps"))) {
      data.dram_peak_gbps = w.fact("peak_gbps");
      return;
    }
}

std::string mode_label(const std::string& mode) {
  const std::optional<NamedMode> named = mode_of_name(mode);
  if (!named) return mode;
  const Mode& m = named->mode;
  if (named->external) return "external " + mode_label(m.name);  // --external-mps
  switch (m.kind) {
    case ModeKind::timeslice:
      return "time-sliced";
    case ModeKind::streams:
      return "one process, N streams" +
             (m.max_connections ? " (" + std::to_string(m.max_connections) + " connections)" : "");
    case ModeKind::threads:
      return "one process, N threads";
    case ModeKind::green:
      return "green contexts" + (m.green_sms ? " of " + std::to_string(m.green_sms) + " SMs" : "");
    case ModeKind::mps:
      if (has_mps_options(m)) return mode;
      if (m.auto_pct) return "MPS 100/N% threads";
      if (m.active_thread_pct) return "MPS " + std::to_string(m.active_thread_pct) + "% threads";
      return "MPS";
  }
  return mode;
}

namespace {

/// The folder's runs by cell, and its ok runs by cell and repeat (the partners ratios are taken against).
struct RunIndex {
  std::map<RunKey, const SummaryRecord*> ok_runs;
  std::map<CellKey, std::vector<const SummaryRecord*>> by_cell;
  std::map<CellKey, std::vector<double>> task_ms;  ///< every task of the cell's ok runs

  const SummaryRecord* partner(const std::string& series, const std::string& mode, int n, int repeat) const {
    auto it = ok_runs.find({series, mode, n, repeat});
    return it == ok_runs.end() ? nullptr : it->second;
  }
};

/// Indexes the runs; fills the report's series, modes (time-sliced first), N and failed runs.
RunIndex index_runs(const std::vector<SummaryRecord>& summary, const std::vector<TaskSample>& tasks, ReportData& data) {
  RunIndex index;
  const auto labels = series_labels(summary);
  std::map<std::string, CellKey> cell_of_ok_run;
  std::set<int> procs;
  for (const SummaryRecord& r : summary) {
    const std::string& series = labels.at({r.workload, r.params});
    if (std::find(data.series.begin(), data.series.end(), series) == data.series.end()) data.series.push_back(series);
    if (std::find(data.modes.begin(), data.modes.end(), r.mode) == data.modes.end()) data.modes.push_back(r.mode);
    procs.insert(r.procs);
    const CellKey key{series, r.mode, r.procs};
    index.by_cell[key].push_back(&r);
    ++data.runs_total;
    if (!is_ok(r)) {
      data.failed.push_back({r.run_id, r.status, r.reason});
      continue;
    }
    index.ok_runs[{series, r.mode, r.procs, r.repeat}] = &r;
    cell_of_ok_run[r.run_id] = key;
  }
  std::stable_partition(data.modes.begin(), data.modes.end(), [](const std::string& m) { return m == kTimesliceMode; });
  data.procs.assign(procs.begin(), procs.end());
  for (const TaskSample& t : tasks) {
    auto it = cell_of_ok_run.find(t.run_id);
    if (it != cell_of_ok_run.end()) index.task_ms[it->second].push_back(t.duration_ms);
  }
  return index;
}

/// One cell: its runs' figures over the repeats, and each repeat's ratios against its partners.
ReportCell make_cell(const RunIndex& index, const std::string& series, const std::string& mode, int n,
                     const std::vector<const SummaryRecord*>& runs) {
  ReportCell c;
  const SummaryRecord& first = *runs.front();
  c.workload = first.workload;
  c.params = first.params;
  c.series = series;
  c.mode = mode;
  c.active_thread_pct = first.active_thread_pct;
  c.procs = n;
  c.regime = regime_of(c.workload, c.params);
  std::vector<double> mean_ms, p99_ms, tput, rel_time, rel_tput, speedup, ts_rel_time, makespan, ts_rel_makespan, util,
      vs_mps, gpm_sm, gpm_occ, gpm_dram, dram;
  const double bytes_per_task = membw_bytes_per_task(c.workload, c.params);
  const bool limited = is_limited_mps_mode(mode);  // its ratio against unlimited MPS
  for (const SummaryRecord* r : runs) {
    ++c.runs;
    if (!is_ok(*r)) {
      ++c.failed;
      continue;
    }
    mean_ms.push_back(r->task_mean_ms);
    p99_ms.push_back(r->task_p99_ms);
    tput.push_back(r->throughput_tasks_per_s);
    if (const SummaryRecord* alone = index.partner(series, mode, 1, r->repeat)) {
      rel_time.push_back(r->task_mean_ms / alone->task_mean_ms);
      rel_tput.push_back(r->throughput_tasks_per_s / alone->throughput_tasks_per_s);
    }
    if (mode != kTimesliceMode)
      if (const SummaryRecord* ts = index.partner(series, kTimesliceMode, n, r->repeat))
        speedup.push_back(r->throughput_tasks_per_s / ts->throughput_tasks_per_s);
    if (limited)
      if (const SummaryRecord* unlimited = index.partner(series, kMpsMode, n, r->repeat))
        vs_mps.push_back(r->task_mean_ms / unlimited->task_mean_ms);
    makespan.push_back(r->makespan_s);
    util.push_back(r->gpu_util_mean);
    gpm_sm.push_back(r->gpm_sm_util);
    gpm_occ.push_back(r->gpm_sm_occupancy);
    gpm_dram.push_back(r->gpm_dram_bw_util);
    if (std::isfinite(bytes_per_task)) dram.push_back(r->throughput_tasks_per_s * bytes_per_task * 1e-9);
    if (const SummaryRecord* ts1 = index.partner(series, kTimesliceMode, 1, r->repeat)) {
      ts_rel_time.push_back(r->task_mean_ms / ts1->task_mean_ms);
      ts_rel_makespan.push_back(r->makespan_s / ts1->makespan_s);
    }
  }
  c.task_mean_ms = spread_of(mean_ms);
  c.task_p99_ms = spread_of(p99_ms);
  c.throughput = spread_of(tput);
  c.relative_task_time = spread_of(rel_time);
  c.relative_throughput = spread_of(rel_tput);
  c.speedup_vs_timeslice = spread_of(speedup);
  c.task_time_vs_timeslice_alone = spread_of(ts_rel_time);
  c.task_time_vs_unlimited_mps = spread_of(vs_mps);
  c.makespan_s = spread_of(makespan);
  c.makespan_vs_timeslice_alone = spread_of(ts_rel_makespan);
  c.gpu_util = spread_of(util);
  c.gpm_sm_util = spread_of(gpm_sm);
  c.gpm_sm_occupancy = spread_of(gpm_occ);
  c.gpm_dram_bw_util = spread_of(gpm_dram);
  c.dram_gbps = spread_of(dram);
  const auto tasks = index.task_ms.find({series, mode, n});
  c.tasks = distribution_of(tasks == index.task_ms.end() ? std::vector<double>{} : tasks->second);
  return c;
}

}  // namespace

ReportData aggregate_results(const std::vector<SummaryRecord>& summary, const std::vector<TaskSample>& tasks) {
  ReportData data;
  const RunIndex index = index_runs(summary, tasks, data);
  for (const std::string& series : data.series)
    for (const std::string& mode : data.modes)
      for (int n : data.procs) {
        auto it = index.by_cell.find({series, mode, n});
        if (it != index.by_cell.end()) data.cells.push_back(make_cell(index, series, mode, n, it->second));
      }
  ratios_from_medians(data);
  return data;
}

}  // namespace bench_mps::harness
