#pragma once
// The sweeps behind a tool's steps (conform's rows, advise's ladder): each a child bench_mps
// (`bench_mps <args> --out OUT/sweeps/<name>`, its output in OUT/sweeps/<name>.log), so every step gets the sweep's own guarantees (preflight, the GPU
// lock, one private MPS daemon per mode block that quits on every exit path, recorded statuses). All
// of them share one time budget: a child that outlives its share gets SIGTERM (it quits its daemon and
// records what it has), and SIGKILL 15 s later.
#include "harness/tools/wing.hpp"

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_mps::harness {

/// What one child sweep left.
struct SweepOutcome {
  std::filesystem::path dir;  ///< its results folder (runs.csv, summary.csv, meta.json where it got that far)
  int exit_code = -1;         ///< -1: stopped (budget spent or Ctrl-C) or could not start
  double seconds = 0;
  std::string last_error;     ///< the last "bench_mps: ..." line of its log, for ERROR rows
  bool budget_spent = false;  ///< stopped because its share of the time budget ran out (not a signal)
  /// Whether it ended by itself and its folder holds runs to judge (runs.csv and summary.csv): a sweep
  /// stopped part way is not judged on what it had done.
  bool has_runs() const;
};

/// `args` and then each option of `common` (a name, and its value where one follows) that `args` do not
/// give already: the child's own value wins ("--repeats 5" over a common "--repeats 1").
std::vector<std::string> with_common_args(const std::vector<std::string>& args, const std::vector<std::string>& common);

/// No time is left for another child sweep.
class BudgetSpent : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A step a signal (Ctrl-C, SIGTERM) stopped: what it says ("stopped by a signal (Interrupt) during ..."); no failure.
class StoppedBySignal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws StoppedBySignal naming `step` ("the X-ray's sweep") where a signal has stopped the tool.
void throw_if_signalled(const std::string& step);

class ChildSweeps {
 public:
  /// Children go to `sweeps_dir`; each gets `common_args` (e.g. --device) after its own.
  ChildSweeps(std::filesystem::path sweeps_dir, std::vector<std::string> common_args, double budget_s);

  /// Runs `bench_mps args... common_args... --out sweeps_dir/name` to its end or the budget's; a common
  /// option that `args` give already is left out (the child's own value wins).
  /// Throws BudgetSpent when less than a few seconds are left before it starts.
  SweepOutcome run(const std::string& name, const std::vector<std::string>& args);

  double seconds_left() const;

  /// What starts a child: `bench_mps` with these arguments, its output to `log`; returns its exit code
  /// (negative: stopped). By default run_logged on this program; a test puts its own in to see every command
  /// line a tool builds without running it.
  using Starter = std::function<int(const std::vector<std::string>& args, const std::filesystem::path& log)>;
  void set_starter(Starter starter) { starter_ = std::move(starter); }

 private:
  Starter starter_;
  std::filesystem::path dir_;
  std::vector<std::string> common_;
  double deadline_s_;  ///< on the monotonic clock
};

}  // namespace bench_mps::harness
