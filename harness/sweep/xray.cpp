#include "harness/sweep/xray.hpp"

#include <cmath>
#include <limits>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/sweep/run_reduction.hpp"

namespace bench_mps::harness {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> role_args(const SweepSpec& spec, kernels::XrayRole role) {
  WorkloadConfig c = spec.params;
  c.xray.role = role;
  return workload_worker_args("xray", c);
}

bool is_step_worker(const RunScenario& probe, int worker) {
  return probe == RunKind::xray_turns || (probe == RunKind::xray_wait && worker == 0);
}
bool is_gaps_worker(const RunScenario& probe, int worker) { return probe == RunKind::xray_gaps && worker == 0; }

}  // namespace

void add_xray_args(const RunSpec& run, const SweepSpec& spec, const std::vector<std::string>& base,
                   std::vector<std::string>& args, std::map<int, std::vector<std::string>>& args_for_worker) {
  const bool steps = run.scenario == RunKind::xray_turns;
  args = with_args(role_args(spec, steps ? kernels::XrayRole::step : kernels::XrayRole::busy), base);
  if (run.scenario != RunKind::xray_wait && run.scenario != RunKind::xray_gaps) return;
  // The step (or gaps) context ends while the busy ones still run (they all start at GO), after at most
  // kXrayWaitSteps steps or kXrayGapTasks tasks (where it does not wait, under MPS, that is a few ms: its
  // task lines stay few).
  const bool gaps = run.scenario == RunKind::xray_gaps;
  args_for_worker[0] = with_args(role_args(spec, gaps ? kernels::XrayRole::gaps : kernels::XrayRole::step),
                                 {"--duration-s", fmt_num(0.8 * spec.params.xray.busy_ms / 1000.0, 9), "--max-tasks",
                                  std::to_string(gaps ? kXrayGapTasks : kXrayWaitSteps), "--warmup", "2"});
}

void evaluate_xray_run(RunRecord& record, const PoolResult& pool, const SummaryRow* alone_step) {
  const RunScenario& probe = record.spec.scenario;
  const int n = record.spec.procs;
  SummaryRow& s = record.summary;
  for (WorkerRow& row : record.workers)
    row.role = is_step_worker(probe, row.worker) ? "step" : is_gaps_worker(probe, row.worker) ? "gaps" : "busy";
  if (s.status != RunStatus::ok) return;

  double slice_sum = 0, slices = 0;
  std::vector<double> offs, on_shares, periods, step_gpu;
  for (const WorkerResult& w : pool.workers) {
    if (is_gaps_worker(probe, w.index)) {
      s.xray_hold_us = done_fact(w.done, "hold_us");
      s.xray_hold_bound = done_fact(w.done, "hold_bound");
      s.xray_idle_kept_share = done_fact(w.done, "gaps_kept_share");
      continue;
    }
    if (is_step_worker(probe, w.index)) {
      if (const double p = done_fact(w.done, "start_period_ms"); !std::isnan(p)) periods.push_back(p);
      if (const double g = done_fact(w.done, "step_gpu_ms"); !std::isnan(g)) step_gpu.push_back(g);
      continue;
    }
    const double k = done_fact(w.done, "slices"), slice = done_fact(w.done, "slice_ms");
    if (k > 0 && !std::isnan(slice)) {
      slice_sum += slice * k;
      slices += k;
    }
    if (const double off = done_fact(w.done, "off_ms"); !std::isnan(off)) offs.push_back(off);
    if (const double on = done_fact(w.done, "on_share"); !std::isnan(on)) on_shares.push_back(on);
  }

  if (probe == RunKind::xray_busy) {
    s.xray_on_share = mean(on_shares);
    if (slices > 0) {
      s.xray_slice_ms = slice_sum / slices;
      if (!offs.empty()) {
        s.xray_switch_ms = (mean(offs) - (n - 1) * s.xray_slice_ms) / n;
        s.xray_lost_share = s.xray_switch_ms / (s.xray_slice_ms + s.xray_switch_ms);
      }
    }
  } else if (probe == RunKind::xray_wait) {
    std::vector<double> step_ms;
    for (const TaskRow& t : record.tasks)
      if (t.worker == 0) step_ms.push_back(t.duration_ms);
    const double alone = alone_step ? alone_step->task_mean_ms : kNaN;
    s.xray_wait_ms = mean(step_ms) - alone;
    s.xray_wait_p99_ms = quantile(step_ms, 0.99) - alone;
  } else if (probe == RunKind::xray_turns) {
    s.xray_turn_ms = mean(periods) / n;  // one context's kernel start to its next holds a round of N turns
    // Time-sliced only: under MPS the kernels of different contexts overlap, a turn is no longer a unit.
    if (n > 1 && !record.spec.mode.mps) s.xray_turn_switch_ms = s.xray_turn_ms - mean(step_gpu);
  }
}

void xray_progress(std::ostream& out, const RunScenario& probe, const SummaryRow& s) {
  switch (probe.kind) {
    case RunKind::xray_busy:
      out << "  slice " << fmt_fixed(s.xray_slice_ms, 3) << " ms, switch " << fmt_fixed(s.xray_switch_ms, 3)
          << " ms, each context ran " << fmt_fixed(100 * s.xray_on_share, 1) << "% of the time";
      break;
    case RunKind::xray_wait:
      out << "  a short step waited " << fmt_fixed(s.xray_wait_ms, 3) << " ms on average (p99 "
          << fmt_fixed(s.xray_wait_p99_ms, 3) << ")";
      break;
    case RunKind::xray_gaps:
      out << "  an idle queue kept the GPU " << fmt_fixed(100 * s.xray_idle_kept_share, 1) << "% of the time, hold "
          << (s.xray_hold_bound > 0 ? ">= " : "") << fmt_num(s.xray_hold_us, 3) << " us";
      break;
    default:  // xray_turns
      out << "  per-step " << fmt_fixed(s.task_mean_ms, 3) << " ms, a turn " << fmt_fixed(s.xray_turn_ms, 3) << " ms";
      if (!std::isnan(s.xray_turn_switch_ms))
        out << " (" << fmt_fixed(s.xray_turn_switch_ms, 3) << " ms beyond its kernel)";
  }
}

}  // namespace bench_mps::harness
