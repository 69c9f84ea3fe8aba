#pragma once
// Runs measurements on a set of bench_worker processes (common/process): spawns N of them, waits
// until every one has said READY, then runs one or more rounds, each released with GO to all of them
// at once (the start barrier) and ended when each has said DONE; finally closes their stdin and
// waits for them to exit. Whatever happens (errors, crashes, hangs, Ctrl-C) becomes a status per
// worker. Each worker runs in its own process group so a terminal's Ctrl-C reaches only the
// harness, which then stops them.
//
// A set that ran several rounds saves the workers' start-up (context creation, allocation, warm-up)
// for every round after the first: the sweep runs a configuration's consecutive repeats on one set
// (see plan/sweep_spec.hpp for when it does not).
#include "harness/sweep/wing.hpp"

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/common/run_status.hpp"
#include "harness/workers/worker_protocol.hpp"

namespace bench_mps::harness {

using EnvVars = std::vector<std::pair<std::string, std::string>>;

/// A worker's arguments: `head` (its workload's), then `tail` (what every worker of the run gets).
inline std::vector<std::string> with_args(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

struct WorkerLaunch {
  std::string exe;                                          ///< bench_worker
  std::vector<std::string> args;                            ///< all but --worker-index
  std::map<int, std::vector<std::string>> args_for_worker;  ///< replaces `args` for these indices
  EnvVars env_set;                                          ///< added to the harness's environment
  std::map<int, EnvVars> env_for_worker;                    ///< added after env_set, for these indices
  std::vector<std::string> env_unset;
  /// Worker i runs pinned to cores_per_worker consecutive entries of cpus, from i x cores_per_worker
  /// (wrapping; see cpu_affinity.hpp); empty: not pinned.
  std::vector<int> cpus;
  int cores_per_worker = 1;
};

struct PoolLimits {
  double ready_timeout_s = 120;  ///< from spawn until every worker is READY
  double run_timeout_s = 600;    ///< from GO until every worker has finished the round
  double close_timeout_s = 60;   ///< from closing their stdin until every worker has exited
  double kill_grace_s = 2;       ///< after the timeout hook, before SIGKILL
};

struct WorkerResult {
  int index = 0;
  long pid = 0;
  /// ok, error, crashed, timeout, interrupted, aborted, or the status the worker's ERROR line named (exec_*)
  RunStatus status = RunStatus::ok;
  std::string reason;
  bool ready = false;
  ReadyInfo ready_info;
  std::vector<TaskRecord> tasks;  ///< of the round
  nlohmann::json done;            ///< the round's DONE summary
  int exit_code = -1;             ///< when it exited normally
  int term_signal = 0;            ///< when a signal ended it
  std::vector<std::string> stderr_tail;
  std::int64_t ended_ns = 0;        ///< CLOCK_MONOTONIC when its exit was seen (within the 20 ms poll)
  std::vector<long> spawned_pgids;  ///< exec: process groups of the commands it started
  std::vector<int> cpus;            ///< the cores it was pinned to (empty: not pinned)
};

struct PoolResult {
  /// One per workload instance: a worker process that ran N instances (the in-process modes) gives N
  /// results, indexed by instance, sharing its pid and status.
  std::vector<WorkerResult> workers;
  bool barrier_passed = false;
  std::int64_t go_ns = 0;   ///< CLOCK_MONOTONIC when GO was sent
  std::int64_t end_ns = 0;  ///< when the last worker finished the round (DONE or gone)
  bool timed_out = false;
  int interrupted_by = 0;  ///< signal number that stopped the run, 0 if none
};

/// Called with the live workers' pids before they are killed on a timeout (MPS: terminate_client).
using BeforeKillHook = std::function<void(const std::vector<pid_t>&)>;

/// Called once every worker is READY, before the first GO; returning false ends the set there (the
/// workers are stopped with status "aborted"): used to measure a workload's memory footprint.
using AllReadyHook = std::function<bool(const std::vector<WorkerResult>&)>;

/// Called about every 20 ms between GO and the end of a round (rate-limit inside if it is costly).
using WhileRunningHook = std::function<void()>;

struct PoolHooks {
  BeforeKillHook before_kill;
  AllReadyHook all_ready;
  WhileRunningHook while_running;
};

/// Where the harness's own time went for one set: from spawn to all READY, and the time finish()
/// waited for the workers to exit (less than their whole teardown when begin_close came first).
struct SetOverhead {
  double startup_s = 0;
  double teardown_s = 0;
};

class WorkerSet {
 public:
  /// `stop_signal` is polled: once non-zero, the set stops and every worker is killed.
  WorkerSet(WorkerLaunch launch, int workers, const PoolLimits& limits, const std::atomic<int>& stop_signal,
            PoolHooks hooks = {});
  /// Kills and reaps whatever is left; never throws.
  ~WorkerSet();
  WorkerSet(const WorkerSet&) = delete;
  WorkerSet& operator=(const WorkerSet&) = delete;

  /// Spawns the workers and waits until every one is READY (and the all_ready hook agrees). False
  /// when the set got no further: finish() then says why, per worker.
  bool start();
  /// One round: GO to every worker, then their tasks until each has said DONE (or failed). Only a
  /// usable() set can run a round.
  PoolResult round();
  /// Whether another round can run: started, every worker alive and ok, not stopped.
  bool usable() const;
  /// Closes every worker's stdin: they start to exit (tear their contexts down) while the harness
  /// goes on, e.g. starting the next set. finish() waits for them.
  void begin_close();
  /// Closes every worker's stdin (if begin_close did not) and waits for their exit (killing them at
  /// close_timeout_s after the close), then returns `last` (the last round's result; empty when no
  /// round ran) with what the exits add: a worker that crashed or failed at the end turns its rows'
  /// status. Call once.
  PoolResult finish(PoolResult last = {});
  SetOverhead overhead() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One set, one round: start, round, finish.
PoolResult run_worker_pool(const WorkerLaunch& launch, int workers, const PoolLimits& limits,
                           const std::atomic<int>& stop_signal, const PoolHooks& hooks = {});

}  // namespace bench_mps::harness
