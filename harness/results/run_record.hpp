#pragma once
// One finished run reduced to the rows the results files hold (see docs/RESULTS.md).
#include "harness/results/wing.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/common/run_status.hpp"
#include "harness/gpu/nvml.hpp"
#include "harness/plan/sweep_spec.hpp"

namespace bench_mps::harness {

struct WorkerRow {
  int worker = 0;
  long pid = 0;
  RunStatus status = RunStatus::ok;
  std::string reason;
  long tasks = 0;
  double start_s = 0, end_s = 0;  ///< first task start and last task end, seconds after GO
  double task_mean_ms = 0, task_p50_ms = 0, task_p99_ms = 0;
  double throughput_tasks_per_s = 0;
  int sm_count_seen = 0;
  bool mps_enabled = false;
  std::uint64_t mem_bytes = 0;
  std::string facts;            ///< what the workload reported at the end, "key=value;..." (e.g. loss_first, loss_last)
  std::string role = "worker";  ///< worker | victim | faulter (fault) | foreground | background (interference)
  int client_active_thread_pct = 0;          ///< MPS: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE it ran with (0: none set)
  int client_priority = -1;                  ///< MPS: CUDA_MPS_CLIENT_PRIORITY (-1: none set)
  std::uint64_t client_mem_limit_bytes = 0;  ///< MPS: CUDA_MPS_PINNED_DEVICE_MEM_LIMIT (0: none set)
  double slowdown_vs_baseline = NAN;         ///< victim: task_mean_ms / the victims' mean without the faulter
  double post_fault_task_mean_ms = NAN;      ///< victim: mean of the tasks that started after the faulter died
  double burst_ms = NAN;        ///< mean GPU time of its synchronising steps (facts burst_ms; NaN if not measured)
  double gpu_busy_share = NAN;  ///< its bursts' share of its timed window (facts gpu_busy_share)
};

/// One run's measurements: every summary.csv column after the configuration. The sweep fills it
/// (harness/sweep/run_reduction.cpp), the writer writes it and the reader reads it back into the same
/// fields (SummaryRecord), one member per column of summary_schema().
struct SummaryRow {
  RunStatus status = RunStatus::ok;
  std::string reason;
  long tasks_total = 0;
  int workers_ok = 0;
  double makespan_s = 0;
  double throughput_tasks_per_s = 0;
  double task_mean_ms = 0, task_p50_ms = 0, task_p99_ms = 0;
  double slowdown_vs_alone = 0;  ///< task_mean_ms / the N=1 run's task_mean_ms (same workload, mode, repeat)
  double jain_fairness = 0;      ///< over the workers' throughputs
  double gpu_util_mean = 0;      ///< fraction in [0, 1], over the timed window (see run_reduction.cpp)
  int gpu_util_samples = 0;      ///< how many utilisation samples that mean is over
  std::string gpu_util_source;   ///< "driver" (NVML's own samples), "polled" (our 100 ms reads) or ""
  double sm_clock_mean_mhz = 0;
  double power_mean_w = 0;
  std::uint64_t mem_used_max_bytes = 0;
  int sm_count_seen = 0;
  // The fault scenario (empty / NaN otherwise; the scenario itself is RunSpec::scenario):
  int victims = 0, victims_survived = 0;
  /// The worker set this run's processes belong to, numbered from 1 in the order the sweep started them, and
  /// the run's round within it, from 1 (0: a folder written before these columns; worker_sets() then infers
  /// the sets from start-up times).
  int worker_set = 0, round = 0;
  double victim_slowdown = NAN;             ///< mean over surviving victims of slowdown_vs_baseline
  double victim_post_fault_slowdown = NAN;  ///< mean post-fault task time / baseline task time
  std::string fault_error;                  ///< what the faulting worker reported
  std::string mps_server_state;             ///< MPS: the server after the fault ("survived pid ...", "exited", ...)
  double mps_recovery_s = NAN;              ///< MPS: faulter's death to a new client's first finished task
  std::string driver_messages;              ///< fault: the Xid lines the run added to the kernel log, or why none
  // GPM metrics (Hopper and newer) over the run's round, GO to the last worker's DONE; NaN if unavailable.
  double gpm_sm_util = NAN, gpm_sm_occupancy = NAN, gpm_dram_bw_util = NAN;
  // The harness's own time around the run: its worker set's start-up (spawn to every READY) and the settle
  // pause before it, on the set's first run; the set's teardown on its last; 0 on the runs between.
  double startup_s = NAN, settle_s = NAN, teardown_s = NAN;
  // The interference scenario (NaN otherwise): the foreground's latency (arrival to completion for
  // mlp-infer, the task time otherwise) and throughput, and the background's, beside each other;
  // the ratios are against the foreground alone and the background jobs alone, same mode and repeat.
  double fg_latency_p50_ms = NAN, fg_latency_p95_ms = NAN, fg_latency_p99_ms = NAN, fg_throughput_per_s = NAN;
  double fg_p99_vs_alone = NAN, fg_throughput_vs_alone = NAN, bg_throughput_per_s = NAN, bg_throughput_kept = NAN;
  /// The share of the foreground's timed span during which every background job ran its own (share_beside_all):
  /// under kMinCoRunCoverage the run did not run them side by side and its cell leaves it out.
  double fg_overlap = NAN;
  // The regime (DESIGN.md, "Regimes"): this run's bursts and busy share (means over the workers that
  // measured them), and the same workload's alone (N=1, same mode and repeat): its coordinates.
  double burst_ms = NAN, gpu_busy_share = NAN, burst_alone_ms = NAN, duty_alone = NAN;
  // The X-ray (RunSpec::scenario xray_*; NaN otherwise): see harness/sweep/xray.hpp.
  double xray_slice_ms = NAN, xray_switch_ms = NAN, xray_lost_share = NAN, xray_on_share = NAN;
  double xray_wait_ms = NAN, xray_wait_p99_ms = NAN, xray_turn_ms = NAN, xray_turn_switch_ms = NAN;
  double xray_hold_us = NAN, xray_hold_bound = NAN, xray_idle_kept_share = NAN;  ///< xray_gaps
  double energy_j = NAN;  ///< the board's energy counter's rise over the timed window (NaN without it)
};

struct TaskRow {
  int worker = 0;
  long task = 0;
  double start_ms = 0;  ///< after GO
  double duration_ms = 0;
};

struct RunRecord {
  RunSpec spec;
  std::vector<WorkerRow> workers;
  SummaryRow summary;
  std::vector<TaskRow> tasks;
  std::vector<GpuSample> samples;
  std::vector<UtilSample> util_samples;  ///< the driver's own utilisation samples during the run
  std::vector<GpmPeriod> gpm_periods;    ///< --profile-gpu: the Monitor's GPM periods during the run
  std::int64_t go_ns = 0;
};

/// Appends one `name=value` fact to the row's facts ("key=value;..."), `fact` already so written.
void add_fact(WorkerRow& row, const std::string& fact);
/// Appends `name=value`, the value with `significant` digits.
void add_fact(WorkerRow& row, const std::string& name, double value, int significant = 6);
/// Appends a note to a reason, "; " between notes.
void add_note(std::string& reason, const std::string& note);

/// Marks the run failed (first cause wins) without touching its measurements.
void mark_failed(RunRecord& record, RunStatus status, const std::string& reason);

}  // namespace bench_mps::harness
