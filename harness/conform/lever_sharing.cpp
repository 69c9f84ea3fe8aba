// The sharing levers: proof of MPS, the active thread percentage, uneven and per-client splits. Each
// runs one child sweep and judges its runs.csv: SMs seen (cudaDevAttrMultiProcessorCount, which MPS
// lowers to the client's share), MPS enabled, task times and throughputs.
#include <cmath>
#include <cstdlib>
#include <map>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/errors.hpp"
#include "harness/conform/levers.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {
namespace {

constexpr double kSmSlack = 2;           ///< SMs: MPS grants whole TPCs (2 SMs)
constexpr double kTimeTolerance = 0.25;  ///< relative, for task times and throughput ratios
constexpr double kShareSlack = 0.03;     ///< absolute, for shares of the SMs seen

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

/// Seconds every client of a split runs: long enough for many tasks of the slowest (10 of the CPU
/// stand-in's 200 ms ones at 10 %).
constexpr const char* kSplitSeconds = "2";

/// The percentage a worker ran with: its own, the run's, or 100 (plain `mps`).
int pct_of(const WorkerRecord& w) {
  if (w.client_active_thread_pct) return w.client_active_thread_pct;
  return w.active_thread_pct ? w.active_thread_pct : 100;
}

/// The runs.csv rows of a sweep, or the Judgement (ERROR) that says why they cannot be judged.
std::optional<Judgement> unusable(const SweepOutcome& outcome, std::vector<WorkerRecord>& workers) {
  if (!outcome.has_runs()) return sweep_error(outcome);
  workers = read_runs(outcome.dir / "runs.csv");
  if (workers.empty()) return sweep_error(outcome);
  for (const WorkerRecord& w : workers)
    if (w.status != RunStatus::ok)
      return Judgement{
          ConformVerdict::error, "",
          "run " + w.run_id + " worker " + std::to_string(w.worker) + ": " + to_string(w.status) + ": " + w.reason};
  return std::nullopt;
}

bool within(double measured, double ideal, double tolerance) {
  return ideal > 0 && std::isfinite(measured) && std::abs(measured / ideal - 1) <= tolerance;
}

}  // namespace

Judgement check_proof(const ConformSetup& setup, ChildSweeps& sweeps) {
  const SweepOutcome o = sweeps.run(
      "proof", with(plain_workload_args(setup), {"--modes", "timeslice,mps", "--procs", "2", "--tasks", "10"}));
  if (!o.has_runs()) return sweep_error(o);
  std::map<bool, std::pair<int, int>> seen;  // under MPS? -> (clients, MPS-enabled ones)
  std::string problems;
  for (const WorkerRecord& w : read_runs(o.dir / "runs.csv")) {
    const bool mps = w.mode != kTimesliceMode;
    ++seen[mps].first;
    seen[mps].second += w.mps_enabled ? 1 : 0;
    if (w.status != RunStatus::ok)
      problems += "; worker " + std::to_string(w.worker) + " (" + w.mode + "): " + to_string(w.status);
  }
  const auto [mps_clients, mps_on] = seen[true];
  const auto [ts_clients, ts_on] = seen[false];
  // Nothing is concluded about MPS from runs that never happened (issue 35): a sweep stopped for the machine
  // (its daemon would not start) or without one MPS client is an ERROR, not a FAIL of "0/0 clients".
  if (o.exit_code == kExitEnvironment || mps_clients == 0)
    return {ConformVerdict::error, "",
            "no client ran under MPS" + (o.last_error.empty() ? std::string() : " (" + o.last_error + ")") + problems};
  return judged(mps_clients > 0 && ts_clients > 0 && mps_on == mps_clients && ts_on == 0,
                "MPS: " + std::to_string(mps_on) + "/" + std::to_string(mps_clients) +
                    " clients MPS-enabled; time-sliced: " + std::to_string(ts_on) + "/" + std::to_string(ts_clients) +
                    problems);
}

/// Where the SMs a client saw are not its percentage's share, the time its percentage alone would give, so a FAIL
/// whose SMs were never cut does not read "ideal 1.00x" alone: " for the SMs it saw; 4.00x at 25 %".
std::string share_ideal(double ideal_by_sms, int pct) {
  const double by_pct = 100.0 / pct;
  if (std::isfinite(ideal_by_sms) && std::abs(ideal_by_sms / by_pct - 1) < 0.01) return "";
  return " for the SMs it saw; " + fmt_sig(by_pct, 3) + "x at " + std::to_string(pct) + " % of them";
}

Judgement check_thread_pct(const ConformSetup& setup, ChildSweeps& sweeps) {
  const SweepOutcome o =
      sweeps.run("thread-pct", with(fill_workload_args(setup), {"--modes", "mps:25,mps:50,mps", "--procs", "1",
                                                                "--tasks", setup.cpu_stand_in ? "10" : "20"}));
  std::vector<WorkerRecord> workers;
  if (auto bad = unusable(o, workers)) return *bad;
  std::map<int, const WorkerRecord*> by_pct;
  for (const WorkerRecord& w : workers) by_pct[pct_of(w)] = &w;
  if (!by_pct.count(100) || !by_pct.count(25) || !by_pct.count(50))
    return {ConformVerdict::error, "", "the sweep lacks a run at 25, 50 or 100 %"};
  const WorkerRecord& full = *by_pct[100];
  bool ok = full.sm_count_seen > 0;
  std::string evidence = "100 %: " + std::to_string(full.sm_count_seen) + " SMs, " + fmt_sig(full.task_mean_ms) + " ms";
  for (const int p : {50, 25}) {
    const WorkerRecord& w = *by_pct[p];
    const double ideal_sms = full.sm_count_seen * p / 100.0;
    const double ratio = w.task_mean_ms / full.task_mean_ms;
    const double ideal_ratio = w.sm_count_seen > 0 ? static_cast<double>(full.sm_count_seen) / w.sm_count_seen : NAN;
    ok = ok && std::abs(w.sm_count_seen - ideal_sms) <= kSmSlack && within(ratio, ideal_ratio, kTimeTolerance);
    evidence += "; " + std::to_string(p) + " %: " + std::to_string(w.sm_count_seen) + " SMs (ideal " +
                fmt_sig(ideal_sms, 3) + "), " + fmt_sig(w.task_mean_ms) + " ms = " + fmt_sig(ratio, 3) + "x (ideal " +
                fmt_sig(ideal_ratio, 3) + "x" + share_ideal(ideal_ratio, p) + ")";
  }
  return judged(ok, evidence);
}

Judgement check_uneven_split(const ConformSetup& setup, ChildSweeps& sweeps) {
  const SweepOutcome o = sweeps.run(
      "uneven-split",
      with(fill_workload_args(setup), {"--modes", "mps:10/90", "--procs", "2", "--duration", kSplitSeconds}));
  std::vector<WorkerRecord> workers;
  if (auto bad = unusable(o, workers)) return *bad;
  if (workers.size() != 2)
    return {ConformVerdict::error, "", "expected 2 clients, runs.csv has " + std::to_string(workers.size())};
  const WorkerRecord& small = pct_of(workers[0]) < pct_of(workers[1]) ? workers[0] : workers[1];
  const WorkerRecord& large = &small == &workers[0] ? workers[1] : workers[0];
  const double ratio = large.throughput_tasks_per_s / small.throughput_tasks_per_s;
  const double ideal = static_cast<double>(pct_of(large)) / pct_of(small);  // what was asked, not what was seen
  auto client = [](const WorkerRecord& w) {
    return std::to_string(pct_of(w)) + " %: " + std::to_string(w.sm_count_seen) + " SMs, " +
           fmt_sig(w.throughput_tasks_per_s) + " tasks/s";
  };
  return judged(within(ratio, ideal, kTimeTolerance), client(small) + "; " + client(large) + "; ratio " +
                                                          fmt_sig(ratio, 3) + " (ideal " + fmt_sig(ideal, 3) + ")");
}

Judgement check_per_client_pct(const ConformSetup& setup, ChildSweeps& sweeps) {
  const SweepOutcome o = sweeps.run(
      "per-client-pct",
      with(fill_workload_args(setup), {"--modes", "mps:60/20/20", "--procs", "3", "--duration", kSplitSeconds}));
  std::vector<WorkerRecord> workers;
  if (auto bad = unusable(o, workers)) return *bad;
  double pct_sum = 0, sms_sum = 0, throughput_sum = 0;
  for (const WorkerRecord& w : workers) {
    pct_sum += pct_of(w);
    sms_sum += w.sm_count_seen;
    throughput_sum += w.throughput_tasks_per_s;
  }
  bool ok = sms_sum > 0 && throughput_sum > 0;
  std::string evidence;
  for (const WorkerRecord& w : workers) {
    const double share = pct_of(w) / pct_sum;
    const double sms_share = w.sm_count_seen / sms_sum;
    const double throughput_share = w.throughput_tasks_per_s / throughput_sum;
    ok = ok && std::abs(sms_share - share) <= kShareSlack && within(throughput_share, share, kTimeTolerance);
    evidence += std::string(evidence.empty() ? "" : "; ") + "client " + std::to_string(w.worker) + " at " +
                std::to_string(pct_of(w)) + " %: " + std::to_string(w.sm_count_seen) + " SMs (" +
                fmt_fixed(100 * sms_share, 1) + " %), " + fmt_fixed(100 * throughput_share, 1) + " % of the throughput";
  }
  return judged(ok, evidence);
}

}  // namespace bench_mps::harness
