#pragma once
// What one bench_mps invocation asked for, after validation, and the runs it plans.
#include "harness/plan/wing.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/plan/external_mps_spec.hpp"
#include "harness/plan/scenario.hpp"
#include "harness/workers/workload_config.hpp"

namespace bench_mps::harness {

/// The ceilings on N, named once. A sweep runs at most kMaxProcs copies at once (--procs, --mps-max-clients).
inline constexpr int kMaxProcs = 1024;
/// MPS's documented clients per server on Volta and newer, the sweep's default --mps-max-clients: advise and
/// predict put every N under MPS as well, so they go no higher (conform's client-ceiling row measures it).
inline constexpr int kMpsClientCeiling = 48;
/// --cores-per-worker's ceiling (CPU_SETSIZE: the cores a cpu_set_t can name).
inline constexpr int kMaxCoresPerWorker = 1024;

/// How the N workload instances of a run share the GPU.
enum class ModeKind {
  timeslice,  ///< N processes, no MPS: the driver time-slices their contexts
  mps,        ///< N processes as clients of a private MPS daemon
  streams,    ///< one process, N instances on N streams fed by one host thread (Hyper-Q)
  threads,    ///< one process, N host threads with a stream each
  green,      ///< one process, N threads each in a green context of its own SM partition
};

/// A sharing mode, as `--modes` names it (the canonical name is `name`):
///   timeslice | mps | mps:<pct> | mps:auto | mps:<p0>/<p1>/... | streams[:<connections>] | threads |
///   green[:<sms>], and for the MPS ones options after '+': `+prio` (client 0 normal priority, the
///   others below normal), `+prio=<p0>/<p1>/...` (0 normal, 1 below normal), `+mem=<size>/...`
///   (a pinned device memory limit per client, a whole number of MiB: 512M, 1.5G). A per-client list
///   holds one value for every client or exactly one entry per client of every run it is used in
///   (check_client_lists); client i takes entry i.
struct Mode {
  std::string name;  ///< canonical, e.g. "timeslice", "mps:50", "mps:auto+prio", "green:64"
  ModeKind kind = ModeKind::timeslice;
  bool mps = false;                    ///< kind == mps
  int active_thread_pct = 0;           ///< mps:<pct>: every client, and the daemon's default; 0: no limit set
  bool auto_pct = false;               ///< mps:auto: each of N clients gets 100/N percent (the device plugin's rule)
  std::vector<int> client_pcts;        ///< mps:<p0>/<p1>/...
  bool prio_first = false;             ///< +prio: client 0 at normal priority, the others below
  std::vector<int> client_priorities;  ///< +prio=: CUDA_MPS_CLIENT_PRIORITY per client
  std::vector<std::uint64_t> client_mem_limits;  ///< +mem: bytes per client
  int max_connections = 0;  ///< streams:<c>: CUDA_DEVICE_MAX_CONNECTIONS (0: the driver's default, 8)
  int green_sms = 0;        ///< green:<sms>: SMs per instance (0: an equal share)

  /// streams, threads, green: one process runs all N instances.
  bool in_process() const { return kind == ModeKind::streams || kind == ModeKind::threads || kind == ModeKind::green; }
  /// The active-thread percentage client `i` of `n` runs with; 0 where none is set.
  int client_active_thread_pct(int i, int n) const;
  /// CUDA_MPS_CLIENT_PRIORITY of client `i`; -1 where none is set.
  int client_priority(int i) const;
  /// Pinned device memory limit of client `i` in bytes; 0 where none is set.
  std::uint64_t client_mem_limit(int i) const;
  /// The same active-thread percentage for every client of a run with `n` (0: none); -1 when they differ.
  int uniform_active_thread_pct(int n) const;
  /// What is wrong with the per-client lists for a run of `n` clients ("--modes 'mps:60/40': 2 active
  /// thread percentages (60/40) for N=3 clients"), or "" when each holds one value or exactly `n`.
  std::string check_client_lists(int n) const;
};

/// Repeats a plain sweep plans where the noise target covers every configuration (no exec): two worker
/// sets of one round each, the fewest that tell the noise between sets; the target adds sets where it
/// is wider. Elsewhere (scenarios, exec, --noise-target 0) 5, in 3 + 2 rounds (docs/COMPARE.md).
inline constexpr int kNoiseTargetRepeats = 2;
/// Default --noise-time-cap: the default sweep plans about 43 s on an H100 (two sets of its 12
/// configurations), and the whole default sweep is meant to end within 75 s there.
inline constexpr double kNoiseTimeCapS = 30;

/// Default --exec-alone-runs: the fewest alone runs that give a median and a spread (first, middle, last).
inline constexpr int kExecAloneRuns = 3;

struct SweepSpec {
  std::vector<int> procs{1, 4, 10};
  std::vector<Mode> modes;
  std::vector<std::string> workloads{"spin", "mlp"};
  int repeats = 5;  ///< kNoiseTargetRepeats where the noise target covers the whole sweep (sweep_cli)
  /// Repeats to a noise target (harness/sweep/noise_target): a plain sweep's configuration whose
  /// throughput noise (compare's: harness/results/worker_sets) is above this percentage after `repeats`
  /// gets more, up to `max_repeats` each and `noise_time_cap_s` seconds of added runs. 0: off.
  double noise_target_pct = -1;  ///< < 0: the default, 1 for GPU workloads, off for CPU-only sweeps
  int max_repeats = 12;
  double noise_time_cap_s = kNoiseTimeCapS;
  long tasks = 0;         ///< 0: each workload's default
  double duration_s = 0;  ///< > 0: run for this long instead of a task count
  int warmup = -1;        ///< untimed tasks per worker; < 0: default_warmup_tasks() of each workload
  int exec_warmups =
      1;  ///< exec: untimed runs of one copy of the command per mode block (harness/sweep/exec_warmup.hpp)
  /// exec: where each copy is held until every copy of its worker set is there (harness/sweep/exec_gate.hpp):
  /// steady, first-kernel, wait:K or off.
  std::string exec_gate = "steady";
  double exec_gate_timeout_s = 120;  ///< a copy not there this long after the first arrival releases the rest
  /// exec: alone runs (N=1) per mode and workload at least, where the ladder also runs N >= 2: the repeats'
  /// own, then more after the last repeat's largest N and in the middle of the ladder (exec_alone_positions).
  int exec_alone_runs = kExecAloneRuns;
  bool profile_gpu = false;    ///< exec: a GPU profile of every copy (CUPTI injection; harness/sweep/gpu_profiling.hpp)
  double profile_gap_us = 20;  ///< --profile-gpu: gaps at least this long end a burst in the recorded summaries
  /// --profile-gpu: the NVTX range marking the program's step, whose occurrences the profiles record and the unit
  /// follows (harness/results/step_phase.hpp unit_phase); "" for none.
  std::string exec_unit_range;
  WorkloadConfig params;
  std::string out_dir;  ///< empty: results/<date>-<gpu>
  double run_timeout_s = 300;
  double ready_timeout_s = 120;
  int mps_max_clients = kMpsClientCeiling;
  std::string worker_exe;  ///< empty: bench_worker beside bench_mps
  Scenario scenario = Scenario::sweep;
  std::vector<double> regime_bursts_ms{0.1, 0.3, 1, 3, 10};  ///< regimes: GPU work per step of the grid's points
  std::vector<double> regime_duties_pct{5, 25, 50, 75, 95};  ///< regimes: their duty cycles alone
  bool resume = false;                                       ///< continue the sweep already in out_dir
  bool set_exclusive = false;            ///< switch the GPU to EXCLUSIVE_PROCESS for MPS blocks (root; restored)
  bool pin_cpus = true;                  ///< pin each worker to its own CPU core
  int cores_per_worker = 1;              ///< pinned: the cores of its own each worker (and the program it runs) gets
  bool cpu_stand_in = false;             ///< --cpu-stand-in: duty and xray run as CPU stand-ins (tests, no GPU)
  bool demo = false;                     ///< --demo: results stamped as a demo without GPU data (scripts/run.sh --demo)
  double settle_s = 0;                   ///< idle pause before every worker set (after the last set has exited)
  int rounds = 0;                        ///< repeats one worker set runs (GO rounds); 0: default_rounds()
  std::string foreground = "mlp-infer";  ///< interference: the latency-critical (or training) job
  std::string background = "filler";     ///< interference: the N-1 jobs beside it
  std::vector<std::string> argv;
  // Which GPU, and how MPS is reached (harness/plan/device_options.hpp):
  std::string device;             ///< --device: index, UUID or cpu-<n>; empty: CUDA's device 0
  std::vector<std::string> gpus;  ///< --gpus: "all" or devices; one child sweep each (harness/sweep/multi_gpu)
  std::vector<int> cpus;          ///< --cpus: the cores this sweep may use; empty: all it is allowed
  bool external_mps = false;      ///< --external-mps: clients of the site's daemon, MPS modes only
  ExternalMps external;           ///< that daemon, as found before the sweep (harness/sweep/external_mps)
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

/// GO rounds (repeats) one set of worker processes runs: --rounds, else half the repeats rounded up
/// (so every configuration is measured by at least two independent sets of processes, and the modes
/// interleave twice), 1 for workloads that cannot share processes between repeats.
int rounds_per_set(const SweepSpec& spec, const std::string& workload);

struct RunSpec {
  int index = 0;   ///< position in the plan, from 0
  int repeat = 0;  ///< from 1
  std::string workload;
  std::string params;  ///< canonical parameter string
  Mode mode;
  int procs = 1;
  long tasks = 0;          ///< per worker; 0 when duration-based
  double duration_s = 0;   ///< per worker, from its first task; 0 when task-count based
  RunScenario scenario;    ///< what the run is inside its sweep's scenario (harness/plan/scenario.hpp)
  std::string background;  ///< interference: the background workload beside the foreground
  /// regimes: this grid point's parameters (its duty workload's burst, host work, steps per task);
  /// null: the sweep's own (SweepSpec::params).
  std::shared_ptr<const WorkloadConfig> config;
  /// Stable identity of a run inside a results folder, e.g. "r2-mps:50-spin-n4", "r1-mps-spin-n4-fault".
  /// It names files too (exec's logs), so it is a safe file name: a '/' of the mode's per-client lists
  /// becomes '_' (which no mode name holds), e.g. "r1-mps:60_20_20-spin-n3".
  std::string run_id() const;
  /// run_id() without its repeat: "mps-spin-n4" of "r2-mps-spin-n4", which a run's repeats (and
  /// --noise-target's added ones) share.
  std::string configuration_id() const;
};

/// RunSpec::configuration_id() of a stored run id ("mps-cpu-n2" of "r3-mps-cpu-n2"); an id without a
/// dash is its own.
std::string configuration_of_run_id(const std::string& run_id);

/// The workload parameters of `run`: its grid point's, else the sweep's.
const WorkloadConfig& run_params(const SweepSpec& spec, const RunSpec& run);

/// Steps each context of the xray_turns probe runs (a round of N turns is ~N x 0.16 ms time-sliced).
inline constexpr long kXrayTurnSteps = 300;
/// Steps, at most, of the xray_wait probe's step context (it also stops at 80% of the busy contexts' time).
inline constexpr long kXrayWaitSteps = 400;
/// Tasks, at most, of the xray_gaps probe's gaps context (a task: a pair of tiny kernels for each of
/// kernels::kGapsUs; it also stops at 80% of the busy contexts' time).
inline constexpr long kXrayGapTasks = 200;
/// A grid point's tag (RunScenario::point): "regime-b<burst>ms-d<duty>".
std::string regime_point_tag(double burst_ms, double duty_pct);
/// The grid point's workload parameters: the duty workload at this burst and duty, a task of about
/// 20 ms alone (at least one step).
WorkloadConfig regime_point_params(const WorkloadConfig& base, double burst_ms, double duty_pct);

/// Consecutive runs of one configuration (consecutive repeats) measured by one set of worker
/// processes, one GO round each.
struct WorkerSetPlan {
  std::vector<RunSpec> runs;
};

/// Consecutive worker sets under one mode: one MPS daemon serves a whole block.
struct ModeBlock {
  Mode mode;
  int group = 0;  ///< from 1: which group of repeats
  std::vector<WorkerSetPlan> sets;
  /// Every run of the block, in order.
  std::vector<RunSpec> runs() const;
};

/// Repeats are split into groups of rounds_per_set(); the plan goes group by group, then mode by mode,
/// then workload, then N ascending: modes interleave with groups of repeats, so a slow drift of the
/// GPU's clock cannot pass for a difference between modes, and every N=1 run (the "alone"
/// reference) precedes the larger N of its repeat. In the fault scenario every N >= 2 gives two
/// runs: N-1 victims alone (fault_baseline), then the same victims beside a faulter. In the
/// interference scenario each repeat of a mode runs the foreground alone, then for every N the N-1
/// background jobs alone and then beside the foreground. Where extra_alone_runs() adds alone runs (exec),
/// the first goes after the last repeat's largest N, the next after the middle N of the first repeat's
/// ladder, then of the next repeat's: with one repeat the alone runs are first, middle and last. They take
/// the repeats after the sweep's own (r<repeats+1>...) in the order they run.
std::vector<ModeBlock> plan_sweep(const SweepSpec& spec);

/// How many alone runs (N=1) of one mode and workload the plan adds beyond its repeats' own: where the
/// workload runs one set per repeat (exec), the sweep is plain and its N hold 1 and a larger one,
/// max(0, exec_alone_runs - repeats); else 0.
int extra_alone_runs(const SweepSpec& spec, const std::string& workload);

/// Whether the sweep measures a GPU: a GPU workload that is not a CPU stand-in.
bool sweep_needs_gpu(const SweepSpec& spec);

/// Whether the sweep adds repeats for noisy configurations (harness/sweep/noise_target): a plain sweep
/// (no scenario) with --noise-target above 0; exec, whose runs take seconds to minutes, is left out.
bool noise_target_applies(const SweepSpec& spec);

/// Throws UsageError naming the mode, its list and N where a run of the plan has a number of clients
/// that one of its mode's per-client lists does not have entries for (nothing dropped, nothing reused).
void check_client_lists(const SweepSpec& spec);

}  // namespace bench_mps::harness
