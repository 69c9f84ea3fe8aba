#include "harness/sweep/interference.hpp"
#include "harness/sweep/worker_pool.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "harness/common/option_args.hpp"
#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/results/co_run.hpp"
#include "harness/results/interference_rows.hpp"
#include "harness/sweep/progress.hpp"

namespace bench_mps::harness {
namespace {

/// `a` followed by the options of `b` that `a` does not already give (both come from one config, so an option in
/// both has the same value), `b`'s --workload left out.
std::vector<std::string> merged_args(std::vector<std::string> a, std::vector<std::string> b) {
  const auto workload = std::find(b.begin(), b.end(), "--workload");
  if (workload != b.end()) b.erase(workload, workload + std::min<std::ptrdiff_t>(2, b.end() - workload));
  return with_missing_options(std::move(a), b);
}

/// Worker 0 is the foreground of a side-by-side run; every worker of a foreground-alone run is.
bool row_is_foreground(const RunScenario& scenario, int worker) {
  return scenario == RunKind::interference_fg || (scenario == RunKind::interference && worker == 0);
}

/// `base` (the side-by-side run's worker options) with the background's own length and warm-up: a run's length is its
/// foreground's, and a program's (exec) is one run of it, which would leave its background one task (a review found
/// mlp beside a program timed by its first millisecond).
std::vector<std::string> background_base(const SweepSpec& spec, std::vector<std::string> base) {
  const RunLength length = run_length(spec, spec.background);
  for (std::size_t i = 0; i + 1 < base.size(); ++i) {
    if (base[i] == "--tasks" || base[i] == "--duration-s") {
      base[i] = length.tasks > 0 ? "--tasks" : "--duration-s";
      base[i + 1] = length.tasks > 0 ? std::to_string(length.tasks) : fmt_num(length.duration_s, 9);
    } else if (base[i] == "--warmup") {
      base[i + 1] = std::to_string(warmup_tasks(spec, spec.background));
    }
  }
  return base;
}

}  // namespace

void add_interference_args(const RunSpec& run, const SweepSpec& spec, const std::vector<std::string>& base,
                           std::vector<std::string>& args, std::map<int, std::vector<std::string>>& args_for_worker) {
  const std::vector<std::string> fg = workload_worker_args(spec.foreground, spec.params);
  const std::vector<std::string> bg = workload_worker_args(spec.background, spec.params);
  if (run.scenario != RunKind::interference) return;  // the alone runs are plain runs of their workload
  if (run.mode.in_process()) {
    args = with_args(merged_args(bg, fg), base);
    args.insert(args.end(), {"--fg-workload", spec.foreground});
    return;
  }
  args = with_args(bg, background_base(spec, base));
  args_for_worker[0] = with_args(fg, base);
}

void evaluate_interference_run(RunRecord& record, const SummaryRow* fg_alone, const SummaryRow* bg_alone) {
  const RunScenario& scenario = record.spec.scenario;
  for (WorkerRow& row : record.workers)
    row.role = scenario == RunKind::interference_bg || (scenario == RunKind::interference && row.worker != 0)
                   ? "background"
                   : "foreground";
  SummaryRow& s = record.summary;
  std::vector<double> fg_ms;
  double bg_rate = 0;
  bool bg_any = false;
  for (const TaskRow& t : record.tasks)
    if (row_is_foreground(scenario, t.worker)) fg_ms.push_back(t.duration_ms);
  for (const WorkerRow& row : record.workers) {
    if (row_is_foreground(scenario, row.worker)) {
      s.fg_throughput_per_s = row.throughput_tasks_per_s;
    } else if (!std::isnan(row.throughput_tasks_per_s)) {
      bg_rate += row.throughput_tasks_per_s;
      bg_any = true;
    }
  }
  if (!fg_ms.empty()) {
    s.fg_latency_p50_ms = quantile(fg_ms, 0.50);
    s.fg_latency_p95_ms = quantile(fg_ms, 0.95);
    s.fg_latency_p99_ms = quantile(fg_ms, 0.99);
  }
  if (bg_any) s.bg_throughput_per_s = bg_rate;
  if (scenario != RunKind::interference) return;
  std::vector<TaskSpan> spans;
  for (const TaskRow& t : record.tasks) spans.push_back({t.worker, t.start_ms, t.start_ms + t.duration_ms});
  const SpanShare overlap = span_share_beside_all(spans, 0);
  s.fg_overlap = overlap.share;
  // Beside, the background's rate is its tasks' inside the foreground's span: a background that outlasts the
  // foreground (as advise --beside asks of B beside a program) ran alone after it, which its whole run would count.
  if (const double within = others_tasks_per_s_within(spans, 0, overlap.focus_start_ms, overlap.focus_end_ms);
      std::isfinite(within) && bg_any)
    s.bg_throughput_per_s = within;
  if (s.status == RunStatus::ok && s.fg_overlap < kMinCoRunCoverage)
    add_note(s.reason, not_side_by_side_note(s.fg_overlap, "the foreground ran " + fmt_num(overlap.focus_ms, 3) +
                                                               " ms against the shortest background job's " +
                                                               fmt_num(overlap.shortest_other_ms, 3) + " ms"));
  if (fg_alone && fg_alone->status == RunStatus::ok && fg_alone->fg_latency_p99_ms > 0) {
    s.fg_p99_vs_alone = s.fg_latency_p99_ms / fg_alone->fg_latency_p99_ms;
    s.fg_throughput_vs_alone = s.fg_throughput_per_s / fg_alone->fg_throughput_per_s;
  }
  if (bg_alone && bg_alone->status == RunStatus::ok && bg_alone->bg_throughput_per_s > 0)
    s.bg_throughput_kept = s.bg_throughput_per_s / bg_alone->bg_throughput_per_s;
}

void interference_progress(std::ostream& out, const RunScenario& scenario, const SummaryRow& s) {
  if (scenario != RunKind::interference) return plain_progress(out, scenario, s);
  out << "  foreground p99 " << fmt_fixed(s.fg_latency_p99_ms, 3) << " ms";
  if (!std::isnan(s.fg_p99_vs_alone)) out << " (" << fmt_fixed(s.fg_p99_vs_alone, 2) << "x alone)";
  if (!std::isnan(s.bg_throughput_kept)) out << ", background kept " << fmt_fixed(s.bg_throughput_kept, 2);
}

}  // namespace bench_mps::harness
