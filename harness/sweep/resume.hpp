#pragma once
// --resume DIR: continue an interrupted sweep in its own folder. The sweep comes from DIR/meta.json
// (the command line it stored), or must match it when given again; runs already recorded (a row in
// summary.csv) are skipped. A crash can leave a torn last line and rows of a run whose summary row
// never made it: both are removed before the sweep goes on. Anything else wrong with the folder (a recorded run
// without its runs.csv rows among it) is a ResultsError (exit 2) and the folder is left untouched.
#include "harness/sweep/wing.hpp"

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/plan/sweep_spec.hpp"
#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

struct ResumeState {
  SweepMeta meta;
  std::vector<SummaryRecord> recorded;  ///< summary rows already on disk
  std::set<std::string> recorded_ids;
  std::vector<std::string> repairs;  ///< what was cleaned up, one line each
};

/// How --resume is given, said after a command line that does not fit it.
inline constexpr const char* kResumeForms =
    "give --resume DIR alone, with limits only (--timeout, --ready-timeout, --mps-max-clients, --settle, --no-pin, "
    "--cores-per-worker, --cpus, --worker), or with the whole command line that started it";

/// The sweep stored in DIR/meta.json, rebuilt from its command line.
SweepSpec stored_sweep(const std::filesystem::path& dir);

/// Throws UsageError unless `spec` is the sweep DIR/meta.json describes (limits may differ).
void check_same_sweep(const SweepSpec& spec, const SweepMeta& meta);

/// A resumed sweep's meta: its sweep section takes the limits this run goes on with (so meta.json says what the runs
/// from here on used), and `resumes` gets an entry naming each limit that changed, was and now, with the runs recorded
/// before it (those ran with the values before). --cpus counts as a limit: meta's device.cpus_given.
void note_resumed_limits(SweepMeta& meta, const SweepSpec& spec, const std::string& utc, std::size_t recorded);

/// Validates DIR, repairs a crash's leftovers and returns what is recorded. With `spec`, a recorded run whose
/// configuration (its id less the repeat) the sweep does not plan is refused before any repair: an edited
/// summary.csv, or rows of another sweep.
ResumeState prepare_resume(const std::filesystem::path& dir, const SweepSpec* spec = nullptr);

}  // namespace bench_mps::harness
