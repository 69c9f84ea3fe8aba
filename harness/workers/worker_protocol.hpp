#pragma once
// The line protocol between bench_mps and each bench_worker (stdout of the worker, stdin for GO):
//   worker:  READY {"pid":..,"sm_count_seen":..,"mps_enabled":..,"mem_bytes":..,"instances":..,...}
//   then one or more rounds, each:
//   harness: GO
//   worker:  TASK <start_ns> <end_ns> [<instance>]   one per task, CLOCK_MONOTONIC (comparable across
//                                                    processes); the instance where a worker runs several
//   worker:  SPAWNED <pgid>                          exec: the user's command runs in this process group
//   worker:  DONE {json summary of the round}
//   and at the end the harness closes the worker's stdin: it exits 0. On any failure the worker says
//   FACTS {json} (where a round failed: what its workload learnt, exec's exit_code, as DONE's "facts") and
//   ERROR <status> <message> (after the tasks it finished) and exits non-zero: the status is `error`, or
//   the one a StatusError named (exec's exec_failed, ...); a line without a status word (an older
//   worker's ERROR <message>) reads as `error` with its whole text.
#include "harness/workers/wing.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/common/clock.hpp"
#include "harness/common/run_status.hpp"

namespace bench_mps::harness {

struct ReadyInfo {
  long pid = 0;
  int sm_count_seen = 0;
  bool mps_enabled = false;
  std::uint64_t mem_bytes = 0;  ///< device memory the workload allocated
  std::string device;
  int cuda_runtime_version = 0;
  int cuda_driver_version = 0;
  int clock_khz = 0;
  int instances = 1;              ///< workload instances in this process (in-process modes: N)
  std::vector<int> instance_sms;  ///< SMs each instance's probe counted (in-process modes)
};

struct TaskRecord {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  int instance = 0;  ///< which of the worker's instances ran it
};

struct WorkerMessage {
  enum class Kind { ready, task, spawned, done, facts, error, unknown };
  Kind kind = Kind::unknown;
  ReadyInfo ready;
  TaskRecord task;
  nlohmann::json done;                  ///< DONE's summary; FACTS's object
  RunStatus status = RunStatus::error;  ///< the ERROR line's status
  std::string text;                     ///< the ERROR message, or the whole line if unknown
  long spawned_pgid = 0;
};

std::string format_ready(const ReadyInfo& info);
/// The instance field is written only where the worker runs several (`with_instance`).
std::string format_task(const TaskRecord& task, bool with_instance = false);
std::string format_done(const nlohmann::json& summary);
/// A failed round's facts (an object), said before its ERROR.
std::string format_facts(const nlohmann::json& facts);
std::string format_error(const std::string& message, RunStatus status = RunStatus::error);
std::string format_spawned(long pgid);

/// A workload's failure with a status of its own (exec's); any other exception is reported as `error`.
class StatusError : public std::runtime_error {
 public:
  StatusError(RunStatus status, const std::string& message) : std::runtime_error(message), status_(status) {}
  RunStatus status() const { return status_; }

 private:
  RunStatus status_;
};

/// Parses one line from a worker; malformed lines come back as Kind::unknown with the line as text.
WorkerMessage parse_worker_line(const std::string& line);

}  // namespace bench_mps::harness
