#pragma once
// A run's status, and each worker's: `ok`, or what went wrong first. The words are what summary.csv,
// runs.csv, meta.json and the worker protocol's ERROR line hold (docs/RESULTS.md); inside bench_mps a
// status travels as RunStatus, and only the edges turn it into a word or back.
#include "harness/common/wing.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace bench_mps::harness {

enum class RunStatus {
  ok,
  error,                ///< the workload failed (its ERROR message says how)
  crashed,              ///< the worker died, or said something it should not have
  timeout,              ///< not READY, or not finished, in time
  aborted,              ///< stopped because another worker failed first
  interrupted,          ///< Ctrl-C or SIGTERM
  mode_mismatch,        ///< the run did not run in the mode it names
  mps_error,            ///< the MPS daemon failed the run
  mps_mem_limit,        ///< a client over its pinned device memory limit
  mps_unproven,         ///< exec: the MPS server never listed the copy as a client
  fault_not_triggered,  ///< fault: the faulting worker did not fault
  exec_not_found,       ///< exec: the command could not be run
  exec_failed,          ///< exec: it exited non-zero or was killed
  exec_timeout,         ///< exec: it outlived --exec-timeout
  exec_left_children,   ///< exec: it exited 0 but left processes behind
};

/// The status's word, e.g. "exec_failed".
std::string_view status_name(RunStatus status);
/// The same word as a string, for building text.
std::string to_string(RunStatus status);
/// The status a word names; nothing for any other word (a damaged file, an older worker).
std::optional<RunStatus> parse_run_status(std::string_view word);

std::ostream& operator<<(std::ostream& out, RunStatus status);

/// No implicit JSON number: meta.json holds the word (status_name), never the enum's value.
template <class Json>
void to_json(Json& j, RunStatus status) = delete;

}  // namespace bench_mps::harness
