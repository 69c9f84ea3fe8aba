#pragma once
// A finished round of worker processes made into its run's record and written: reduced from the pool's
// result (tasks, NVML and GPM over its window), checked (the mode each worker ran in, a pinned memory
// limit, exec's MPS proof and metric, the MPS server), completed by its scenario's hooks and the alone
// reference, appended to the CSV files, counted, and said in one progress line.
#include "harness/sweep/wing.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/gpu/monitor.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_writer.hpp"
#include "harness/sweep/exec_proof.hpp"
#include "harness/sweep/preflight.hpp"
#include "harness/sweep/scenario_hooks.hpp"

namespace bench_mps::harness {

/// Where a sweep invocation's time went (meta.json `timing`, and the `sweep:` line it prints at the end).
struct SweepTiming {
  double wall_s = 0;  ///< from the end of the preflight to the last run's record
  double timed_s = 0, startup_s = 0, settle_s = 0, teardown_s = 0;
  int runs = 0;
  int invocations = 1;  ///< the first run and its resumes, whose times add_earlier summed
  double timed_share() const { return wall_s > 0 ? timed_s / wall_s : 0.0; }
  /// The rest: MPS daemons started and stopped, their checks, the files written, a resume's repairs.
  double other_s() const { return std::max(0.0, wall_s - timed_s - startup_s - settle_s - teardown_s); }
  /// Adds a resumed folder's meta.json timing (its earlier invocations'), so a resume, even one that runs nothing,
  /// keeps the sweep's whole time; a timing that is not an object of numbers adds nothing.
  void add_earlier(const nlohmann::json& earlier);
  nlohmann::json json() const;
  /// "sweep: 73.1 s, of which 26.8 s timed (37%); harness: start-up 38.4 s, settle 0.0 s, teardown 6.1 s, other 1.8 s"
  std::string line() const;
};

class MpsSession;

/// The harness's own time around a run (see SummaryRow).
struct Overhead {
  double settle_s = 0, startup_s = 0, teardown_s = 0;
};

/// A round that has run: everything its record is made from.
struct FinishedRound {
  const ModeBlock* block = nullptr;
  RunSpec run;
  PoolResult pool;
  Overhead overhead;
  std::optional<RunExtras> extras;        ///< none for a set that never started
  const MpsClientWatch* watch = nullptr;  ///< exec under MPS: the clients the daemon saw
  MpsSession* session = nullptr;          ///< null when time-sliced
  double seconds = 0;                     ///< wall time of the round, for the progress line
  int set = 0, round = 0;                 ///< its worker set (from 1, in the sweep's order) and round in it (from 1)
};

class RunRecorder {
 public:
  /// Writes the CSV headers into `out` (FileWriteError where it cannot); `meta` and `monitor` are the sweep's.
  RunRecorder(const SweepSpec& spec, const Environment& env, const std::filesystem::path& out, SweepMeta& meta,
              Monitor& monitor);
  /// A resumed sweep's runs recorded earlier: references, the failures counted, the progress counted from them.
  void resume(std::vector<SummaryRecord> earlier);
  /// The round reduced, checked, completed and written; FileWriteError (nothing counted) where a file cannot be.
  void record(FinishedRound& round);
  /// A new block of runs (a new daemon): its first MPS run checks the server again.
  void new_block() { server_checked_ = false; }
  void add_to_total(int runs) { total_ += runs; }

  const std::vector<SummaryRecord>& records() const { return records_; }
  /// The largest worker set recorded (a resumed sweep numbers its new sets from the next).
  int last_set() const;
  int failed() const { return failed_; }
  /// Where this invocation's `wall_s` went: inside timed windows (each run's makespan) and the harness's own.
  SweepTiming timing(double wall_s) const;

 private:
  RunRecord reduce(const FinishedRound& round, const SummaryRecord* alone);
  void evaluate_scenario(FinishedRound& round, RunRecord& record);
  void tally(const RunRecord& record, const FinishedRound& round);
  const SummaryRecord* reference(const RunSpec& run, const RunScenario& scenario, int procs,
                                 const std::string& workload) const;

  const SweepSpec& spec_;
  const Environment& env_;
  const std::filesystem::path out_;
  SweepMeta& meta_;
  Monitor& monitor_;
  ResultsWriter writer_;
  std::vector<SummaryRecord> records_;  ///< every run recorded so far (a resumed sweep's earlier ones too)
  int failed_ = 0, done_ = 0, total_ = 0;
  bool server_checked_ = false;
  SweepTiming timing_;
};

}  // namespace bench_mps::harness
