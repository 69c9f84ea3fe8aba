#pragma once
// The statistics of `bench_mps report`, computed once here and only drawn by scripts/plot_report.py:
// per workload, mode and N the median and range over repeats of per-task time, throughput, slowdown
// against N=1 and speedup of MPS over time-slicing, and the per-task time distribution from tasks.csv.
// Only runs with status ok enter a statistic; failed runs are counted and listed.
#include "harness/report/wing.hpp"

#include <limits>
#include <string>
#include <vector>

#include "harness/results/results_reader.hpp"
#include "harness/results/slow_first_runs.hpp"

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
  // On the seed articles' basis, one process time-sliced (the same repeat's time-sliced N=1 run):
  Spread task_time_vs_timeslice_alone;  ///< task_mean_ms / time-sliced N=1 task_mean_ms
  Spread task_time_vs_unlimited_mps;    ///< mps:<p> modes: task_mean_ms / unlimited mps task_mean_ms, same N
  Spread makespan_s;                    ///< first task's start to last task's end
  Spread makespan_vs_timeslice_alone;   ///< makespan_s / time-sliced N=1 makespan_s (N copies' completion)
  Spread gpu_util;                      ///< gpu_util_mean, fraction
  Spread gpm_sm_util, gpm_sm_occupancy, gpm_dram_bw_util;  ///< GPM fractions (Hopper+), where recorded
  Spread dram_gbps;  ///< membw: bytes its tasks moved per second, all workers together
  /// "seed001" (a fixed amount of work per process whose GPU idles between steps: exec, mlp's seed001
  /// profile), "gpu-bound" (mlp's default), else the workload's name.
  std::string regime;
  TaskTimeDistribution tasks;
};

struct FailedRun {
  std::string run_id;
  RunStatus status = RunStatus::ok;
  std::string reason;
};

/// The exec workload at one mode and N, over every copy of its ok runs (from runs.csv's facts).
struct ExecCell {
  std::string mode;
  int procs = 0;
  int copies = 0;
  double completion_s = 0;  ///< mean over copies: the command's start to its exit
  double startup_s = 0;     ///< mean time before its first reported step (NaN without --exec-metric)
  double steps = 0;         ///< mean steps reported per copy
  double step_ms = 0;       ///< mean over copies of their mean step time
  /// The copies that printed a step: start-up, steps and step time are theirs (NaN where none did); one copy
  /// without a metric does not blank the others'.
  int copies_with_steps = 0;
};

/// The exec workload's alone runs (N=1, ok) of one mode, in the order they ran: the anchor every "vs one copy"
/// ratio divides by is their median, and their spread is that ratio's interval (docs/SWEEP.md "Alone runs").
struct ExecAloneRuns {
  std::string mode;
  std::vector<std::string> run_ids;
  std::vector<double> step_ms;       ///< each run's mean step over its copy (NaN without a metric)
  std::vector<double> completion_s;  ///< each run's completion (mean over its copies)
  Spread step, completion;
  /// The last run's over the first's (NaN with fewer than 2 runs or no value).
  double step_drift() const;
  double completion_drift() const;
};

struct ReportData {
  std::string tasks_note;           ///< tasks.csv short of summary.csv's tasks_total (tasks_short_of_summary), or ""
  std::vector<std::string> series;  ///< first-seen order
  std::vector<std::string> modes;   ///< `timeslice` first, then first-seen order
  std::vector<int> procs;           ///< ascending
  std::vector<ReportCell> cells;    ///< ordered by series, mode, N
  int runs_total = 0;
  std::vector<FailedRun> failed;
  std::vector<ExecCell> exec;                 ///< by mode (time-sliced first), then N; empty without exec runs
  std::vector<ExecAloneRuns> exec_alone;      ///< by mode (time-sliced first): the exec alone runs
  std::vector<SlowFirstRun> exec_slow_first;  ///< exec configurations whose first repeat was much slower
  double dram_peak_gbps = NAN;                ///< membw: the DRAM's peak as its workers computed it (runs.csv facts)
  /// The exec alone runs of `mode`, or nullptr.
  const ExecAloneRuns* find_exec_alone(const std::string& mode) const;
  /// The cell of (series, mode, N), or nullptr.
  const ReportCell* find(const std::string& series, const std::string& mode, int procs) const;
};

/// Aggregates summary.csv rows and tasks.csv samples (tasks of runs not ok or unknown are ignored).
ReportData aggregate_results(const std::vector<SummaryRecord>& summary, const std::vector<TaskSample>& tasks);

/// Fills data.exec from runs.csv rows of exec runs that are ok in data (failed runs are left out).
void aggregate_exec(const std::vector<WorkerRecord>& workers, ReportData& data);

/// Fills data.dram_peak_gbps from the facts of membw workers in runs.csv.
void aggregate_membw(const std::vector<WorkerRecord>& workers, ReportData& data);

/// membw: bytes one task moves (iters x 3 arrays x mib MiB) from its parameter string; NaN if not membw.
double membw_bytes_per_task(const std::string& workload, const std::string& params);

/// ReportCell::regime of a workload and its parameter string.
std::string regime_of(const std::string& workload, const std::string& params);

/// `time-sliced`, `MPS`, `MPS 50% threads`: a mode as prose.
std::string mode_label(const std::string& mode);

}  // namespace bench_mps::harness
