#pragma once
// Proof that the copies of a user's command really ran as MPS clients, or really did not, without
// touching the program: while an exec run is under way the harness polls the MPS server's client list
// (get_client_list) and remembers every client with all its ancestors. A worker is proven an MPS
// client if one of the listed clients descends from it (the command itself or any child it started).
// Time-sliced, the proof is that no MPS server that may serve its GPU was alive at the run's end.
#include "harness/sweep/wing.hpp"

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

namespace bench_mps::harness {

class MpsSession;
struct MeasuredDevice;
struct RunRecord;
struct PoolResult;

class MpsClientWatch {
 public:
  explicit MpsClientWatch(MpsSession& session, double interval_s = 0.1);
  /// Reads the client list if `interval_s` has passed since the last read; never throws.
  void poll();
  /// True if some listed client was `pid` or descended from it.
  bool saw_client_under(pid_t pid) const { return lineage_.count(pid) > 0; }
  int polls() const { return polls_; }
  const std::string& error() const { return error_; }

 private:
  MpsSession& session_;
  std::int64_t interval_ns_;
  std::int64_t last_ns_ = 0;
  int polls_ = 0;
  std::set<pid_t> lineage_;  ///< every client seen and all its ancestors
  std::string error_;
};

/// Checks every exec worker of `record` against the run's mode, adds "mps_proof=..." to its facts and
/// marks those that cannot be proven (status mps_unproven, or mode_mismatch for a time-sliced run
/// with an MPS server alive that may serve `device`, this sweep's own sessions under `own_mps_dir` aside).
/// `watch` is null for time-sliced runs.
void prove_exec_mode(RunRecord& record, const PoolResult& pool, const MpsClientWatch* watch,
                     const std::filesystem::path& own_mps_dir, const MeasuredDevice& device);

}  // namespace bench_mps::harness
