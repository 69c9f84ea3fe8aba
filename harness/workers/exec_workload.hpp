#pragma once
// `exec`: the user's own program as the workload. A bench_worker holds the start barrier like any
// other worker, then runs the command once (`/bin/sh -c`) in a process group of its own, with its
// stdin from /dev/null and its stdout and stderr kept (capped) under the results folder. The one task
// it reports is the command's completion time, from its start to its exit: how the seed articles
// timed their copies, start-up (imports, CUDA context) included. With a metric regex, every stdout
// line that matches gives one per-step time in ms; the time before the first such line, less that
// step, is reported as start-up.
//
// The worker creates no CUDA context of its own: whether a copy really ran as an MPS client is proven
// by the harness from the MPS server's client list (see exec_proof.hpp), not by asking the program.
//
// A command that cannot be run (/bin/sh's exec failed, or the shell said "not found"), exits non-zero
// (127 and 126 included when the shell did not complain), outlives its timeout (its whole process group
// is killed) or leaves processes behind ends in an ERROR line whose status says which (exec_not_found,
// exec_failed, exec_timeout, exec_left_children; a StatusError, see worker_protocol.hpp), after its TASK
// line: the harness records both. Leftovers are every process the command started, wherever it went: in its group, or
// out of it (setsid, a double fork) but still under this worker (a child subreaper) or carrying the
// worker's BENCH_MPS_EXEC_TOKEN (see harness/common/exec_token.hpp); all are ended.
#include "harness/workers/wing.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "kernels/workload.hpp"

namespace bench_mps::harness {

struct ExecParams {
  std::string command;  ///< run as /bin/sh -c COMMAND
  std::string metric;   ///< regex with one capture group: a step time in ms
  /// --exec-metric-kind latency: each matched line is one request served and its number that request's latency (a
  /// paced server's), so its copies' throughput is the lines' rate (steps_span_s), not 1000 over the number
  bool metric_is_latency = false;
  std::string check;  ///< regex with one capture group: a value of its result (the last one counts)
  std::uint64_t log_cap_bytes = 1u << 20;  ///< bytes of stdout and of stderr kept per copy
  std::string log_dir;                     ///< where w<index>.stdout / .stderr go ("" : discarded)
  double timeout_s = 0;                    ///< > 0: kill the command's process group after this long
};

/// Checks the regex (one capture group) and the command; throws std::invalid_argument naming the problem.
void validate_exec_params(const ExecParams& params);

/// `on_spawn` is told the command's process group id as soon as it exists (the worker tells the
/// harness, which kills that group too if it has to kill the worker).
std::unique_ptr<kernels::Workload> make_exec_workload(const ExecParams& params, int worker_index,
                                                      std::function<void(long)> on_spawn);

}  // namespace bench_mps::harness
