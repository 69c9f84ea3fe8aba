#include "harness/results/results_schema.hpp"

namespace bench_mps::harness {
namespace {
std::vector<std::string> with_config(std::vector<std::string> tail) {
  std::vector<std::string> cols = config_columns();
  cols.insert(cols.end(), tail.begin(), tail.end());
  return cols;
}
}  // namespace

const std::vector<std::string>& config_columns() {
  static const std::vector<std::string> cols{"run_id", "repeat", "workload", "params", "mode", "active_thread_pct", "procs"};
  return cols;
}

const std::vector<std::string>& runs_columns() {
  static const std::vector<std::string> cols = with_config(
      {"worker", "pid", "status", "reason", "tasks", "start_s", "end_s", "task_mean_ms", "task_p50_ms", "task_p99_ms",
       "throughput_tasks_per_s", "sm_count_seen", "mps_enabled", "mem_bytes", "facts", "role",
       "slowdown_vs_baseline", "post_fault_task_mean_ms"});
  return cols;
}

const std::vector<std::string>& summary_columns() {
  static const std::vector<std::string> cols = with_config(
      {"status", "reason", "workers_ok", "tasks_total", "makespan_s", "throughput_tasks_per_s", "task_mean_ms",
       "task_p50_ms", "task_p99_ms", "slowdown_vs_alone", "jain_fairness", "gpu_util_mean", "sm_clock_mean_mhz",
       "power_mean_w", "mem_used_max_bytes", "sm_count_seen", "scenario", "victims", "victims_survived",
       "victim_slowdown", "victim_post_fault_slowdown", "fault_error", "mps_server_state", "mps_recovery_s"});
  return cols;
}

const std::vector<std::string>& tasks_columns() {
  static const std::vector<std::string> cols{"run_id", "worker", "task", "start_ms", "duration_ms"};
  return cols;
}

const std::vector<std::string>& timeline_columns() {
  static const std::vector<std::string> cols{"run_id", "t_s", "gpu_util", "mem_util", "sm_clock_mhz", "mem_clock_mhz",
                                             "mem_used_bytes", "power_w"};
  return cols;
}

}  // namespace bench_mps::harness
