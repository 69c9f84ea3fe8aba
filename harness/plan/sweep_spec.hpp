#pragma once
// What one bench_mps invocation asked for, after validation, and the runs it plans.
#include "harness/plan/wing.hpp"

#include <string>
#include <vector>

#include "harness/plan/external_mps_spec.hpp"
#include "harness/workers/workload_config.hpp"

namespace bench_mps::harness {

/// How the workers share the GPU: time-sliced (no MPS), or as clients of a private MPS daemon,
/// optionally limited to an active-thread percentage.
struct Mode {
  std::string name;           ///< "timeslice", "mps" or "mps:<pct>"
  bool mps = false;
  int active_thread_pct = 0;  ///< 0: no limit set
};

struct SweepSpec {
  std::vector<int> procs{1, 4, 10};
  std::vector<Mode> modes;
  std::vector<std::string> workloads{"spin", "mlp"};
  int repeats = 5;
  long tasks = 0;          ///< 0: each workload's default
  double duration_s = 0;   ///< > 0: run for this long instead of a task count
  int warmup = -1;         ///< untimed tasks per worker; < 0: default_warmup_tasks() of each workload
  WorkloadConfig params;
  std::string out_dir;     ///< empty: results/<date>-<gpu>
  double run_timeout_s = 300;
  double ready_timeout_s = 120;
  int mps_max_clients = 48;
  std::string worker_exe;  ///< empty: bench_worker beside bench_mps
  std::string scenario = "sweep";  ///< "sweep", or "fault": N-1 victims beside one worker that faults
  bool resume = false;     ///< continue the sweep already in out_dir
  bool set_exclusive = false;  ///< switch the GPU to EXCLUSIVE_PROCESS for MPS blocks (root; restored)
  bool pin_cpus = true;        ///< pin each worker to its own CPU core
  double settle_s = 0.5;       ///< idle pause before every run, so one run's teardown cannot slow the next
  std::vector<std::string> argv;
  // Which GPU, and how MPS is reached (harness/plan/device_options.hpp):
  std::string device;              ///< --device: index, UUID or cpu-<n>; empty: CUDA's device 0
  std::vector<std::string> gpus;   ///< --gpus: "all" or devices; one child sweep each (harness/sweep/multi_gpu)
  std::vector<int> cpus;           ///< --cpus: the cores this sweep may use; empty: all it is allowed
  bool external_mps = false;       ///< --external-mps: clients of the site's daemon, MPS modes only
  ExternalMps external;            ///< that daemon, as found before the sweep (harness/sweep/external_mps)
};

/// Untimed tasks a worker of `workload` runs before READY: --warmup, or the workload's default.
int warmup_tasks(const SweepSpec& spec, const std::string& workload);

/// How long each worker of a run works: a number of tasks, or a time (then tasks == 0).
struct RunLength {
  long tasks = 0;
  double duration_s = 0;
};
/// --tasks or --duration if given, else the workload's default (see sweep_spec.cpp for why).
RunLength run_length(const SweepSpec& spec, const std::string& workload);

struct RunSpec {
  int index = 0;        ///< position in the plan, from 0
  int repeat = 0;       ///< from 1
  std::string workload;
  std::string params;   ///< canonical parameter string
  Mode mode;
  int procs = 1;
  long tasks = 0;       ///< per worker; 0 when duration-based
  double duration_s = 0; ///< per worker, from its first task; 0 when task-count based
  std::string scenario; ///< "" for sweep runs; "fault" (victims + faulter) or "fault_baseline" (victims alone)
  /// Stable identity of a run inside a results folder, e.g. "r2-mps:50-spin-n4", "r1-mps-spin-n4-fault".
  std::string run_id() const;
};

/// Consecutive runs under one mode (one MPS daemon serves a whole block).
struct ModeBlock {
  Mode mode;
  int repeat = 0;
  std::vector<RunSpec> runs;
};

/// Repeats outermost, then modes, then workloads, then N ascending: repeats and modes interleave, so
/// a slow drift of the GPU's clock cannot pass for a difference between modes, and every N=1 run
/// (the "alone" reference) precedes the larger N of its block. In the fault scenario every N >= 2
/// gives two runs: N-1 victims alone (fault_baseline), then the same victims beside a faulter.
std::vector<ModeBlock> plan_sweep(const SweepSpec& spec);

}  // namespace bench_mps::harness
