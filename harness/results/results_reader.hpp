#pragma once
// Reads a results folder back (meta.json, summary.csv, tasks.csv) for report, compare and --resume.
// Every defect is a ResultsError (exit 2) with one line naming the file and the problem.
#include "harness/results/wing.hpp"

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/common/csv_table.hpp"

namespace bench_mps::harness {

/// The configuration columns that runs.csv and summary.csv rows start with.
struct RunConfig {
  std::string run_id;
  int repeat = 0;
  std::string workload, params, mode;
  int active_thread_pct = 0;  ///< 0 for time-sliced runs
  int procs = 0;
  /// Configuration without the repeat: "workload|params|mode|pct|N"; compare pairs runs on it.
  std::string config_key() const;
};

/// One row of summary.csv.
struct SummaryRecord : RunConfig {
  std::string status, reason;
  long workers_ok = 0, tasks_total = 0;
  double makespan_s = 0, throughput_tasks_per_s = 0, task_mean_ms = 0, task_p50_ms = 0, task_p99_ms = 0;
  double slowdown_vs_alone = 0, jain_fairness = 0, gpu_util_mean = 0, sm_clock_mean_mhz = 0, power_mean_w = 0;
  long sm_count_seen = 0;
  // Columns newer than the first results folders (NaN when a file lacks them): see SummaryRow.
  double gpm_sm_util = NAN, gpm_sm_occupancy = NAN, gpm_dram_bw_util = NAN;
  double startup_s = NAN, settle_s = NAN, teardown_s = NAN;
  double fg_latency_p50_ms = NAN, fg_latency_p95_ms = NAN, fg_latency_p99_ms = NAN, fg_throughput_per_s = NAN;
  double fg_p99_vs_alone = NAN, fg_throughput_vs_alone = NAN, bg_throughput_per_s = NAN, bg_throughput_kept = NAN;
  double burst_ms = NAN, gpu_busy_share = NAN, burst_alone_ms = NAN, duty_alone = NAN;
  double xray_slice_ms = NAN, xray_switch_ms = NAN, xray_lost_share = NAN, xray_on_share = NAN;
  double xray_wait_ms = NAN, xray_wait_p99_ms = NAN, xray_turn_ms = NAN, xray_turn_switch_ms = NAN;
  std::string scenario;  ///< "", fault_baseline, fault, interference_fg, interference_bg, interference
};

/// One row of runs.csv (one worker of one run).
struct WorkerRecord : RunConfig {
  int worker = 0;
  long pid = 0;
  std::string status, reason;
  long tasks = 0;
  double task_mean_ms = 0, throughput_tasks_per_s = 0;
  long sm_count_seen = 0;
  bool mps_enabled = false;
  std::string facts;  ///< "key=value;..."
  /// The number under `key` in facts, NaN if absent.
  double fact(const std::string& key) const;
};

/// One row of tasks.csv.
struct TaskSample {
  std::string run_id;
  int worker = 0;
  long task = 0;
  double start_ms = 0, duration_ms = 0;
};

struct ResultsFolder {
  std::filesystem::path dir;
  nlohmann::json meta;
  std::vector<SummaryRecord> summary;
};

/// A JSON value of the wrong type or shape, in words: "a value has the wrong type: type must be string,
/// but is number" (nlohmann's "[json.exception.type_error.302]" prefix dropped). The caller names the file.
std::string json_value_problem(const std::exception& error);

/// meta.json (schema version checked) and summary.csv.
ResultsFolder read_results_folder(const std::filesystem::path& dir);
nlohmann::json read_meta(const std::filesystem::path& dir);
std::vector<SummaryRecord> read_summary(const std::filesystem::path& file);
std::vector<TaskSample> read_tasks(const std::filesystem::path& file);
std::vector<WorkerRecord> read_runs(const std::filesystem::path& file);

}  // namespace bench_mps::harness
