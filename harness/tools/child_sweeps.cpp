#include "harness/tools/child_sweeps.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <system_error>

#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/option_args.hpp"
#include "harness/common/process.hpp"
#include "harness/common/signals.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

constexpr double kMinSecondsForASweep = 5;
constexpr double kTermGraceS = 15;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// The last line of a child's log that says what went wrong ("bench_mps: ..."), or its last line.
std::string last_error_line(const fs::path& log) {
  std::string last, error;
  for (const std::string& line : split(read_whole_file(log), '\n')) {
    if (trim(line).empty()) continue;
    last = trim(line);
    if (last.rfind("bench_mps:", 0) == 0) error = last;
  }
  return error.empty() ? last : error;
}

}  // namespace

std::vector<std::string> with_common_args(const std::vector<std::string>& args,
                                          const std::vector<std::string>& common) {
  return with_missing_options(args, common);
}

void throw_if_signalled(const std::string& step) {
  if (const int sig = stop_signal().load())
    throw StoppedBySignal("stopped by a signal (" + std::string(strsignal(sig)) + ") during " + step);
}

bool SweepOutcome::has_runs() const {
  std::error_code ec;
  return exit_code >= 0 && fs::is_regular_file(dir / "runs.csv", ec) && fs::is_regular_file(dir / "summary.csv", ec);
}

ChildSweeps::ChildSweeps(fs::path sweeps_dir, std::vector<std::string> common_args, double budget_s)
    : dir_(std::move(sweeps_dir)), common_(std::move(common_args)), deadline_s_(now_s() + budget_s) {}

double ChildSweeps::seconds_left() const { return deadline_s_ - now_s(); }

SweepOutcome ChildSweeps::run(const std::string& name, const std::vector<std::string>& args) {
  const double left = seconds_left();
  if (left < kMinSecondsForASweep)
    throw BudgetSpent("the time budget was spent before its sweep (" + fmt_fixed(left, 1) + " s left)");
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw std::runtime_error("cannot create " + dir_.string() + ": " + ec.message());
  SweepOutcome outcome;
  outcome.dir = dir_ / name;
  std::vector<std::string> full = with_common_args(args, common_);
  full.insert(full.end(), {"--out", outcome.dir.string()});
  const fs::path log = dir_ / (name + ".log");
  const double start = now_s();
  if (starter_) {
    outcome.exit_code = starter_(full, log);
  } else {
    const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec) throw std::runtime_error("cannot find this program (/proc/self/exe): " + ec.message());
    outcome.exit_code = run_logged(self, full, {}, log, left, &stop_signal(), kTermGraceS);
  }
  outcome.seconds = now_s() - start;
  outcome.last_error = last_error_line(log);
  // -1: stopped (a signal, or its share of the budget spent), or it could not be started or waited for: well
  // within its share, that is what it was, not the budget.
  const bool budget = outcome.seconds + 1 >= left;
  outcome.budget_spent = outcome.exit_code < 0 && !stop_signal().load() && budget;
  if (outcome.exit_code < 0)
    outcome.last_error =
        (stop_signal().load() ? std::string("stopped by a signal (") + strsignal(stop_signal().load()) +
                                    "; the sweep it ran was ended with SIGTERM)"
         : budget ? "stopped when the time budget ran out (it ran " + fmt_fixed(outcome.seconds, 1) +
                        " s, the stop included)"
                  : "ended after " + fmt_fixed(outcome.seconds, 1) +
                        " s without an exit status (it could not be started or waited for)") +
        // a sweep a signal stopped says how to resume it: not this tool's step, so its last line is left out
        (outcome.last_error.empty() || stop_signal().load() ? "" : "; its last line: " + outcome.last_error);
  return outcome;
}

}  // namespace bench_mps::harness
