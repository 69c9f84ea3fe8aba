#pragma once
// The statistics of `bench_mps report`, computed once here and only drawn by scripts/plot_report.py:
// per workload, mode and N the median and range over repeats of per-task time, throughput, slowdown
// against N=1 and speedup of MPS over time-slicing, and the per-task time distribution from tasks.csv.
// Only runs with status ok enter a statistic; failed runs are counted and listed.
#include <limits>
#include <string>
#include <vector>

#include "harness/results_reader.hpp"

namespace bench_mps::harness {

/// Median and range of one quantity over repeats; NaN where no repeat has a value.
struct Spread {
  int count = 0;
  double median = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
};

/// Spread of the finite values of `values`.
Spread spread_of(const std::vector<double>& values);

/// Per-task times of one configuration, the tasks of all its ok runs pooled (milliseconds).
struct TaskTimeDistribution {
  long count = 0;
  double min = 0, p1 = 0, p25 = 0, p50 = 0, p75 = 0, p99 = 0, max = 0, mean = 0;
};

/// One configuration (workload and parameters, mode, N) over its repeats.
struct ReportCell {
  std::string workload, params;
  std::string series;  ///< the workload's label: its name, plus its parameters where a workload has several
  std::string mode;
  int active_thread_pct = 0;
  int procs = 0;
  int runs = 0, failed = 0;
  Spread task_mean_ms, task_p99_ms, throughput;
  Spread relative_task_time;    ///< task_mean_ms over the same repeat's N=1 run (same series and mode)
  Spread relative_throughput;   ///< throughput over the same repeat's N=1 run
  Spread speedup_vs_timeslice;  ///< throughput over the same repeat's time-sliced run at this N (MPS modes)
  TaskTimeDistribution tasks;
};

struct FailedRun {
  std::string run_id, status, reason;
};

struct ReportData {
  std::vector<std::string> series;  ///< first-seen order
  std::vector<std::string> modes;   ///< `timeslice` first, then first-seen order
  std::vector<int> procs;           ///< ascending
  std::vector<ReportCell> cells;    ///< ordered by series, mode, N
  int runs_total = 0;
  std::vector<FailedRun> failed;
  /// The cell of (series, mode, N), or nullptr.
  const ReportCell* find(const std::string& series, const std::string& mode, int procs) const;
};

/// Aggregates summary.csv rows and tasks.csv samples (tasks of runs not ok or unknown are ignored).
ReportData aggregate_results(const std::vector<SummaryRecord>& summary, const std::vector<TaskSample>& tasks);

/// `time-sliced`, `MPS`, `MPS 50% threads`: a mode as prose.
std::string mode_label(const std::string& mode);

}  // namespace bench_mps::harness
