#include "harness/sweep/run_reduction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/gpu/sample_windows.hpp"

namespace bench_mps::harness {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A fact as its row shows it: whole numbers whole (stdout_bytes=123456789, not 1.23457e+08).
std::string fact_text(const nlohmann::json& value) {
  if (!value.is_number()) return value.dump();
  const double v = value.get<double>();
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
    return fmt_fixed(v + 0.0, 0);  // < 2^53; + 0.0: no "-0"
  return fmt_num(v);
}
}  // namespace

double done_fact(const nlohmann::json& done, const std::string& key) {
  if (!done.is_object() || !done.contains("facts") || !done["facts"].is_object()) return kNaN;
  const auto& facts = done["facts"];
  return facts.contains(key) && facts[key].is_number() ? facts[key].get<double>() : kNaN;
}

namespace {

/// What the workers' rows add up to, for the run's summary.
struct WorkerTotals {
  std::vector<double> all_ms, throughputs, bursts, busy_shares;
  std::int64_t first_start = std::numeric_limits<std::int64_t>::max();  ///< the first task's start
  std::int64_t last_end = 0;                                            ///< the last task's end (GO if none)
};

/// One worker's row: who it was, how it ended, what it reported, its client settings.
WorkerRow worker_row(const RunSpec& spec, const WorkerResult& w) {
  WorkerRow row;
  row.worker = w.index;
  row.pid = w.pid;
  row.status = w.status;
  row.reason = w.reason;
  row.tasks = static_cast<long>(w.tasks.size());
  row.sm_count_seen = w.ready_info.sm_count_seen;
  row.mps_enabled = w.ready_info.mps_enabled;
  row.mem_bytes = w.ready_info.mem_bytes;
  row.client_active_thread_pct = spec.mode.client_active_thread_pct(w.index, spec.procs);
  row.client_priority = spec.mode.client_priority(w.index);
  row.client_mem_limit_bytes = spec.mode.client_mem_limit(w.index);
  if (w.done.is_object() && w.done.contains("facts") && w.done["facts"].is_object())
    for (const auto& [name, value] : w.done["facts"].items()) add_fact(row, name + "=" + fact_text(value));
  if (runs_user_program(spec.workload) && !w.cpus.empty()) {  // where a copy of the user's program ran (host placement)
    add_fact(row, "core=" + std::to_string(w.cpus.front()));
    if (w.cpus.size() > 1) add_fact(row, "cores=" + std::to_string(w.cpus.size()));
  }
  row.burst_ms = done_fact(w.done, "burst_ms");
  row.gpu_busy_share = done_fact(w.done, "gpu_busy_share");
  return row;
}

/// The worker's tasks: into the run's task rows (times after GO), its row's timings and the totals.
void add_worker_tasks(RunRecord& r, const WorkerResult& w, WorkerRow& row, WorkerTotals& totals) {
  if (!std::isnan(row.burst_ms)) totals.bursts.push_back(row.burst_ms);
  if (!std::isnan(row.gpu_busy_share)) totals.busy_shares.push_back(row.gpu_busy_share);
  std::vector<double> ms;
  for (std::size_t t = 0; t < w.tasks.size(); ++t) {
    const TaskRecord& task = w.tasks[t];
    const double d = static_cast<double>(task.end_ns - task.start_ns) * 1e-6;
    ms.push_back(d);
    r.tasks.push_back({w.index, static_cast<long>(t), static_cast<double>(task.start_ns - r.go_ns) * 1e-6, d});
    totals.last_end = std::max(totals.last_end, task.end_ns);
    totals.first_start = std::min(totals.first_start, task.start_ns);
  }
  row.start_s = w.tasks.empty() ? kNaN : static_cast<double>(w.tasks.front().start_ns - r.go_ns) * 1e-9;
  row.end_s = w.tasks.empty() ? kNaN : static_cast<double>(w.tasks.back().end_ns - r.go_ns) * 1e-9;
  row.task_mean_ms = mean(ms);
  row.task_p50_ms = quantile(ms, 0.5);
  row.task_p99_ms = quantile(ms, 0.99);
  const double span = row.end_s - row.start_s;
  row.throughput_tasks_per_s = span > 0 ? static_cast<double>(row.tasks) / span : kNaN;
  if (!std::isnan(row.throughput_tasks_per_s)) totals.throughputs.push_back(row.throughput_tasks_per_s);
  totals.all_ms.insert(totals.all_ms.end(), ms.begin(), ms.end());
}

/// The run's status names the root cause: a worker "aborted" only because another one failed first.
void mark_root_cause(RunRecord& r, const PoolResult& pool) {
  for (const bool aborted_pass : {false, true})
    for (const WorkerResult& w : pool.workers)
      if (w.status != RunStatus::ok && (w.status == RunStatus::aborted) == aborted_pass)
        mark_failed(r, w.status, "worker " + std::to_string(w.index) + ": " + w.reason);
}

/// The run's task times, throughput and fairness over every worker.
void summarize_tasks(SummaryRow& s, const WorkerTotals& t, bool barrier_passed, double alone_task_mean_ms) {
  // From the first task's start, not from GO: how fast a worker wakes up to GO (up to a few ms on a
  // VM) is the harness's, not the GPU's.
  s.makespan_s =
      barrier_passed && t.first_start < t.last_end ? static_cast<double>(t.last_end - t.first_start) * 1e-9 : kNaN;
  s.throughput_tasks_per_s = s.makespan_s > 0 ? static_cast<double>(s.tasks_total) / s.makespan_s : kNaN;
  s.task_mean_ms = mean(t.all_ms);
  s.task_p50_ms = quantile(t.all_ms, 0.5);
  s.task_p99_ms = quantile(t.all_ms, 0.99);
  s.slowdown_vs_alone = alone_task_mean_ms > 0 ? s.task_mean_ms / alone_task_mean_ms : kNaN;
  s.jain_fairness = jain_fairness(t.throughputs);
  s.burst_ms = mean(t.bursts);
  s.gpu_busy_share = mean(t.busy_shares);
}

/// The energy the board drew over [from, to]: its counter's rise between the first and last sample inside the
/// window, scaled to the whole window (the mean power between them times its length); NaN without the counter
/// (old drivers, the CPU stand-ins) or where those samples span under half the window (a run of a few samples).
double energy_between(const std::vector<GpuSample>& samples, std::int64_t from, std::int64_t to) {
  const GpuSample *first = nullptr, *last = nullptr;
  for (const GpuSample& g : samples)
    if (g.energy_j && g.t_ns >= from && g.t_ns <= to) {
      if (!first) first = &g;
      last = &g;
    }
  if (!first || to <= from || 2 * (last->t_ns - first->t_ns) < to - from) return kNaN;
  return (*last->energy_j - *first->energy_j) * static_cast<double>(to - from) /
         static_cast<double>(last->t_ns - first->t_ns);
}

/// The GPU's clock, power, memory and utilisation over the timed window [first_start, last_end].
void summarize_gpu(RunRecord& r, std::int64_t first_start, std::int64_t last_end) {
  SummaryRow& s = r.summary;
  std::vector<double> util, clock, power;
  for (const GpuSample& g : r.samples) {
    if (g.t_ns < first_start || g.t_ns > last_end) continue;  // only the timed window counts
    if (g.sm_clock_mhz) clock.push_back(*g.sm_clock_mhz);
    if (g.power_w) power.push_back(*g.power_w);
    if (g.mem_used_bytes) s.mem_used_max_bytes = std::max(s.mem_used_max_bytes, *g.mem_used_bytes);
  }
  // Utilisation is a share of a sampling period that ends at the sample: only samples whose whole
  // period lies inside the timed window count (a reading just after GO covers the idle time before).
  // The driver's own samples give their period (the gap between them); our polled readings do not,
  // so for them the longest period NVML documents is assumed. Too short a run has no such sample.
  if (r.util_samples.size() >= 2) {
    util = utilization_within(r.util_samples, first_start, last_end);
    s.gpu_util_source = "driver";
  } else {
    const auto margin = static_cast<std::int64_t>(kNvmlLongestUtilPeriod_s * 1e9);
    for (const GpuSample& g : r.samples)
      if (g.gpu_util_pct && g.t_ns - margin >= first_start && g.t_ns <= last_end)
        util.push_back(*g.gpu_util_pct / 100.0);
    if (!r.samples.empty()) s.gpu_util_source = "polled";
  }
  s.gpu_util_samples = static_cast<int>(util.size());
  s.gpu_util_mean = mean(util);
  s.sm_clock_mean_mhz = mean(clock);
  s.power_mean_w = mean(power);
  s.energy_j = energy_between(r.samples, first_start, last_end);
}

}  // namespace

RunRecord make_run_record(const RunSpec& spec, const PoolResult& pool, std::vector<GpuSample> samples,
                          double alone_task_mean_ms, std::vector<UtilSample> util_samples) {
  RunRecord r;
  r.spec = spec;
  r.go_ns = pool.go_ns;
  r.samples = std::move(samples);
  r.util_samples = std::move(util_samples);
  SummaryRow& s = r.summary;

  WorkerTotals totals;
  totals.last_end = pool.go_ns;
  for (const WorkerResult& w : pool.workers) {
    WorkerRow row = worker_row(spec, w);
    add_worker_tasks(r, w, row, totals);
    s.tasks_total += row.tasks;
    s.sm_count_seen = std::max(s.sm_count_seen, row.sm_count_seen);
    if (w.status == RunStatus::ok) ++s.workers_ok;
    r.workers.push_back(row);
  }
  mark_root_cause(r, pool);
  summarize_tasks(s, totals, pool.barrier_passed, alone_task_mean_ms);
  summarize_gpu(r, totals.first_start, totals.last_end);
  return r;
}

}  // namespace bench_mps::harness
