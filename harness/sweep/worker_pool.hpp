#pragma once
// Runs one measurement: spawns N bench_worker processes (common/process), waits until every one has
// said READY, releases them together with GO (the start barrier), collects every TASK record, and
// turns whatever happens (errors, crashes, hangs, Ctrl-C) into a status per worker. Each worker runs
// in its own process group so a terminal's Ctrl-C reaches only the harness, which then stops them.
#include "harness/sweep/wing.hpp"

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/workers/worker_protocol.hpp"

namespace bench_mps::harness {

struct WorkerLaunch {
  std::string exe;                                          ///< bench_worker
  std::vector<std::string> args;                            ///< all but --worker-index
  std::map<int, std::vector<std::string>> args_for_worker;  ///< replaces `args` for these indices
  std::vector<std::pair<std::string, std::string>> env_set; ///< added to the harness's environment
  std::vector<std::string> env_unset;
  /// Worker i runs pinned to cpus[i % size] (see cpu_affinity.hpp); empty: not pinned.
  std::vector<int> cpus;
};

struct PoolLimits {
  double ready_timeout_s = 120;  ///< from spawn until every worker is READY
  double run_timeout_s = 600;    ///< from GO until every worker has exited
  double kill_grace_s = 2;       ///< after the timeout hook, before SIGKILL
};

struct WorkerResult {
  int index = 0;
  long pid = 0;
  /// ok | error | crashed | timeout | interrupted | aborted, or an exec_* word the worker's ERROR began with
  std::string status = "ok";
  std::string reason;
  bool ready = false;
  ReadyInfo ready_info;
  std::vector<TaskRecord> tasks;
  nlohmann::json done;
  int exit_code = -1;    ///< when it exited normally
  int term_signal = 0;   ///< when a signal ended it
  std::vector<std::string> stderr_tail;
  std::int64_t ended_ns = 0;  ///< CLOCK_MONOTONIC when its exit was seen (within the 20 ms poll)
  std::vector<long> spawned_pgids;  ///< exec: process groups of the commands it started
};

struct PoolResult {
  std::vector<WorkerResult> workers;
  bool barrier_passed = false;
  std::int64_t go_ns = 0;   ///< CLOCK_MONOTONIC when GO was sent
  std::int64_t end_ns = 0;  ///< when the last worker was gone
  bool timed_out = false;
  int interrupted_by = 0;   ///< signal number that stopped the run, 0 if none
};

/// Called with the live workers' pids before they are killed on a timeout (MPS: terminate_client).
using BeforeKillHook = std::function<void(const std::vector<pid_t>&)>;

/// Called once every worker is READY, before GO; returning false ends the run there (the workers are
/// stopped with status "aborted"): used to measure a workload's memory footprint.
using AllReadyHook = std::function<bool(const std::vector<WorkerResult>&)>;

/// Called about every 20 ms between GO and the end of the run (rate-limit inside if it is costly).
using WhileRunningHook = std::function<void()>;

struct PoolHooks {
  BeforeKillHook before_kill;
  AllReadyHook all_ready;
  WhileRunningHook while_running;
};

/// `stop_signal` is polled: once non-zero, the run stops and every worker is killed.
PoolResult run_worker_pool(const WorkerLaunch& launch, int workers, const PoolLimits& limits,
                           const std::atomic<int>& stop_signal, const PoolHooks& hooks = {});

}  // namespace bench_mps::harness
