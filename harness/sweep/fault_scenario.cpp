#include "harness/sweep/fault_scenario.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>
#include <cstdio>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "harness/common/format.hpp"
#include "harness/common/proc_scan.hpp"
#include "harness/common/signals.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/sweep/kernel_log.hpp"
#include "harness/sweep/launch.hpp"
#include "harness/common/stats.hpp"
#include "harness/results/fault_rows.hpp"
#include "harness/workers/workload_kind.hpp"

namespace bench_mps::harness {

std::vector<std::string> faulter_args(const RunSpec& run, const SweepSpec& spec, int faulter_index) {
  std::vector<std::string> args;
  if (parse_workload_kind(run.workload) == WorkloadKind::cpu) {
    // The CPU stand-in cannot touch a GPU: it fails with an error after the same delay instead.
    WorkloadConfig c = spec.params;
    c.cpu.fault = CpuFault::error;
    c.cpu.fault_worker = faulter_index;
    // The delay in tasks, held to what an int and --cpu-fault-after take (1 h over a 1 ns task is 3.6e12 tasks).
    const double tasks = spec.params.fault_delay_ms * 1000 / c.cpu.task_us;
    c.cpu.fault_after_tasks = static_cast<int>(std::clamp(tasks, 1.0, 1e9));
    args = workload_worker_args("cpu", c);
  } else {
    args = workload_worker_args("fault", spec.params);
  }
  args.insert(args.end(), {"--tasks", "1000000000", "--warmup", std::to_string(warmup_tasks(spec, run.workload))});
  return args;
}

void evaluate_fault_run(RunRecord& record, const PoolResult& pool, double baseline_task_mean_ms) {
  SummaryRow& s = record.summary;
  const int faulter = record.spec.procs - 1;
  s.status = RunStatus::ok;
  s.reason.clear();
  s.victims = faulter;
  std::int64_t fault_ns = 0;
  // A victim not running at the fault: its tasks all ended by the faulter's last task's end (it faults in the next),
  // the rule report_fault.cpp reads tasks.csv by; none where the faulter finished no task or did not fault.
  std::int64_t exposed_after_ns = std::numeric_limits<std::int64_t>::min();
  for (const WorkerResult& w : pool.workers)
    if (w.index == faulter) {
      fault_ns = w.ended_ns;
      if (w.status != RunStatus::ok && !w.tasks.empty()) exposed_after_ns = w.tasks.back().end_ns;
      s.fault_error = w.reason;
      if (w.status == RunStatus::ok) {
        s.status = RunStatus::fault_not_triggered;
        s.reason = "the faulting worker finished without a fault";
      } else if (w.status == RunStatus::timeout || w.status == RunStatus::aborted) {
        s.status = w.status;
        s.reason = "faulting worker: " + w.reason;
      }
    }
  std::vector<double> slowdowns, post_slowdowns;
  int ended_before = 0;  // victims whose tasks were all done before the fault: not exposed to it, not counted
  for (std::size_t i = 0; i < record.workers.size(); ++i) {
    WorkerRow& row = record.workers[i];
    const WorkerResult& w = pool.workers[i];
    if (row.worker == faulter) {
      row.role = "faulter";
      continue;
    }
    row.role = "victim";
    if (w.status == RunStatus::timeout && s.status == RunStatus::ok) {
      s.status = RunStatus::timeout;
      s.reason = "victim " + std::to_string(w.index) + ": " + w.reason;
    }
    if (w.status != RunStatus::ok) {
      if (s.status == RunStatus::ok && s.reason.empty()) s.reason = "victim error: " + w.reason;
      continue;
    }
    if (!w.tasks.empty() && w.tasks.back().end_ns <= exposed_after_ns) {
      row.role = "victim (ended before the fault)";
      --s.victims;
      ++ended_before;
      continue;
    }
    ++s.victims_survived;
    std::vector<double> after;
    for (const TaskRecord& t : w.tasks)
      if (fault_ns && t.start_ns >= fault_ns) after.push_back(static_cast<double>(t.end_ns - t.start_ns) * 1e-6);
    row.post_fault_task_mean_ms = mean(after);
    if (baseline_task_mean_ms > 0) {
      row.slowdown_vs_baseline = row.task_mean_ms / baseline_task_mean_ms;
      slowdowns.push_back(row.slowdown_vs_baseline);
      if (!after.empty()) post_slowdowns.push_back(row.post_fault_task_mean_ms / baseline_task_mean_ms);
    }
  }
  s.victim_slowdown = mean(slowdowns);
  s.victim_post_fault_slowdown = mean(post_slowdowns);
  if (ended_before > 0 && s.reason.empty())
    s.reason = std::to_string(ended_before) + " of " + std::to_string(faulter) +
               " victims ended before the fault, not counted (give them more --tasks, or a shorter --fault-delay-ms)";
}

void print_fault_table(std::ostream& out, const std::vector<SummaryRecord>& rows) {
  const std::vector<FaultCell> cells = aggregate_fault_runs(rows);
  if (cells.empty()) return;
  char line[512];
  std::snprintf(line, sizeof line, "%-8s %-11s %4s %9s %10s %12s %13s  %s\n", "victims", "mode", "N", "survived",
                "slowdown", "after fault", "MPS recovery", "MPS server after the fault");
  out << "\nfault isolation (one worker of N makes an illegal memory access; medians over repeats)\n" << line;
  for (const FaultCell& c : cells) {
    const std::string survived = std::to_string(c.survived) + "/" + std::to_string(c.victims);
    const std::string rec = c.recovery_s.empty() ? "-" : fmt_fixed(median(c.recovery_s), 2) + " s";
    const std::string failed = c.failed ? "  (" + std::to_string(c.failed) + " run(s) failed)" : "";
    std::snprintf(line, sizeof line, "%-8s %-11s %4d %9s %9sx %11sx %13s  %s%s\n", c.workload.c_str(), c.mode.c_str(),
                  c.procs, survived.c_str(), fmt_fixed(median(c.slowdown), 2).c_str(),
                  fmt_fixed(median(c.post_fault_slowdown), 2).c_str(), rec.c_str(),
                  c.server_state.empty() ? "-" : c.server_state.c_str(), failed.c_str());
    out << line;
  }
  // What the faulter and a dead victim reported, once per mode.
  std::map<std::string, bool> shown;
  for (const SummaryRecord& r : rows) {
    if (r.scenario != RunKind::fault || r.status != RunStatus::ok || shown[r.mode]) continue;
    shown[r.mode] = true;
    out << "  " << r.mode << ": faulting worker: " << r.fault_error << "\n";
    if (!r.reason.empty()) out << "  " << r.mode << ": " << r.reason << "\n";
  }
}

void add_faulter(const RunSpec& run, const SweepSpec& spec, WorkerArgs& args_for_worker) {
  args_for_worker[run.procs - 1] = faulter_args(run, spec, run.procs - 1);
}

namespace {

std::vector<pid_t> server_list(MpsSession& session) {
  try {
    return session.server_pids();
  } catch (const MpsError&) {
    return {};
  }
}

/// After a fault under MPS: what became of the server, and how long until a new client finishes a task.
void measure_recovery(const RoundContext& ctx, MpsSession& session, RunRecord& record) {
  SummaryRow& s = record.summary;
  const std::vector<pid_t> after = server_list(session);
  const std::vector<pid_t> none;
  const std::vector<pid_t>& servers_before = ctx.extras ? ctx.extras->servers_before : none;
  const pid_t before = servers_before.empty() ? 0 : servers_before.front();
  if (after.empty()) {
    s.mps_server_state = before ? "exited (was pid " + std::to_string(before) + ")" : "none";
  } else if (std::find(after.begin(), after.end(), before) != after.end() && process_alive(before)) {
    s.mps_server_state = "survived (pid " + std::to_string(before) + ")";
  } else {
    s.mps_server_state = "replaced (pid " + std::to_string(after.front()) + ")";
  }
  std::int64_t fault_ns = 0;
  for (const WorkerResult& w : ctx.pool.workers)
    if (w.index == ctx.run.procs - 1) fault_ns = w.ended_ns;
  RunSpec probe = ctx.run;
  probe.scenario = RunKind::plain;
  probe.tasks = 1;
  const WorkerLaunch launch = ctx.launch_for(probe);
  PoolLimits l = run_limits(ctx.spec, probe);
  l.ready_timeout_s = std::min(l.ready_timeout_s, 20.0);
  l.run_timeout_s = std::min(l.run_timeout_s, 20.0);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up && !stop_signal().load()) {
    const PoolResult p = run_worker_pool(launch, 1, l, stop_signal());
    if (!p.workers.empty() && p.workers.front().status == RunStatus::ok && !p.workers.front().tasks.empty()) {
      s.mps_recovery_s = static_cast<double>(p.workers.front().tasks.back().end_ns - fault_ns) * 1e-9;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  s.mps_server_state += "; no new client ran within 60 s";
}

}  // namespace

void note_before_fault(const RunSpec&, MpsSession* session, RunExtras& extras) {
  if (session) extras.servers_before = server_list(*session);
  extras.xid_before = read_xid_lines(std::filesystem::temp_directory_path());
}

void evaluate_fault(const RoundContext& ctx, RunRecord& record) {
  const SummaryRecord* base = ctx.reference(RunKind::fault_baseline, ctx.run.procs - 1, ctx.run.workload);
  evaluate_fault_run(record, ctx.pool, base ? base->task_mean_ms : 0.0);
  if (ctx.extras)
    record.summary.driver_messages =
        new_driver_messages(ctx.extras->xid_before, read_xid_lines(std::filesystem::temp_directory_path()));
  if (ctx.session) measure_recovery(ctx, *ctx.session, record);
}

void fault_progress(std::ostream& out, const RunScenario&, const SummaryRow& s) {
  out << "  victims survived " << s.victims_survived << "/" << s.victims;
  if (s.victims_survived) out << ", slowdown " << fmt_fixed(s.victim_slowdown, 2) << "x";
  if (!std::isnan(s.mps_recovery_s)) out << ", MPS recovery " << fmt_fixed(s.mps_recovery_s, 2) << " s";
}

}  // namespace bench_mps::harness
