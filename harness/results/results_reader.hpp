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
#include "harness/plan/scenario.hpp"
#include "harness/results/run_record.hpp"
#include "harness/results/sweep_meta.hpp"

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

/// One row of summary.csv: its configuration, its run's scenario and its measurements, the same
/// SummaryRow the sweep wrote it from.
struct SummaryRecord : RunConfig, SummaryRow {
  RunScenario scenario;  ///< the `scenario` column (plain where a file lacks it)
};

/// One row of runs.csv (one worker of one run).
struct WorkerRecord : RunConfig {
  int worker = 0;
  long pid = 0;
  RunStatus status = RunStatus::ok;
  std::string reason;
  long tasks = 0;
  double task_mean_ms = 0, throughput_tasks_per_s = 0;
  long sm_count_seen = 0;
  bool mps_enabled = false;
  int client_active_thread_pct = 0;  ///< MPS: the percentage this client ran with; 0: none set
  std::string facts;                 ///< "key=value;..."
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
  SweepMeta meta;
  std::vector<SummaryRecord> summary;
};

/// A JSON value of the wrong type or shape, in words: "a value has the wrong type: type must be string,
/// but is number" (nlohmann's "[json.exception.type_error.302]" prefix dropped). The caller names the file.
std::string json_value_problem(const std::exception& error);

/// meta.json (schema version checked) and summary.csv.
ResultsFolder read_results_folder(const std::filesystem::path& dir);
/// DIR/meta.json, its schema version and sections checked: a ResultsError naming the file otherwise.
SweepMeta read_sweep_meta(const std::filesystem::path& dir);
/// The same as JSON (what it reads, written back unchanged), for code that walks it by pointer.
nlohmann::json read_meta(const std::filesystem::path& dir);
std::vector<SummaryRecord> read_summary(const std::filesystem::path& file);
std::vector<TaskSample> read_tasks(const std::filesystem::path& file);
std::vector<WorkerRecord> read_runs(const std::filesystem::path& file);

}  // namespace bench_mps::harness
