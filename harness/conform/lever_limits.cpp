// The limits: the pinned device memory limit, client priority and the client ceiling. Each runs its
// child sweeps and judges the statuses and numbers they recorded.
#include <algorithm>
#include <cmath>
#include <map>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/conform/levers.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {
namespace {

constexpr int kMemLimitMib = 1024;
/// Allocations under the limit, tried largest first until one runs: the limit counts what the client's
/// context itself holds (the H100 run of 2026-11-26 refused 960 MiB under 1024 MiB), so the largest that
/// runs says how much of the limit the context takes.
constexpr int kMemUnderMib[] = {960, 768, 512};
constexpr int kMemOverMib = 1056;       ///< 1 granule over
constexpr double kPriorityGain = 0.9;   ///< p99 with +prio at most this times the p99 without
constexpr int kPriorityRunsPerArm = 5;  ///< worker sets per arm in one batch
constexpr int kPriorityMaxBatches = 3;  ///< batches while the interval still crosses kPriorityGain
constexpr int kDocumentedClients = 48;  ///< per device on Volta and newer (the older MPS docs)
constexpr int kRampTo = 61;             ///< one past the newer docs' 60

/// Args of one client that allocates `mib` MiB of device memory: membw's three arrays, or the stand-in's claim.
std::vector<std::string> allocating(const ConformSetup& setup, int mib) {
  if (setup.cpu_stand_in)
    return {"--workloads", "cpu", "--cpu-task-us", "500", "--cpu-mem-mib", std::to_string(mib), "--tasks", "5"};
  return {"--workloads", "membw", "--membw-mib", std::to_string(mib / 3), "--membw-iters", "2", "--tasks", "5"};
}

/// The one worker of a one-client sweep, or nothing.
std::optional<WorkerRecord> only_worker(const SweepOutcome& o) {
  if (!o.has_runs()) return std::nullopt;
  const std::vector<WorkerRecord> workers = read_runs(o.dir / "runs.csv");
  if (workers.size() != 1) return std::nullopt;
  return workers.front();
}

std::string clip(const std::string& text, std::size_t n = 160) {
  return text.size() <= n ? text : text.substr(0, n) + "...";
}

}  // namespace

Judgement check_mem_limit(const ConformSetup& setup, ChildSweeps& sweeps) {
  const std::vector<std::string> mode{"--modes", "mps+mem=" + std::to_string(kMemLimitMib) + "M", "--procs", "1"};
  auto run = [&](const char* name, int mib) {
    std::vector<std::string> args = allocating(setup, mib);
    args.insert(args.end(), mode.begin(), mode.end());
    return sweeps.run(name, args);
  };
  auto fate = [](int mib, const WorkerRecord& w) {
    return std::to_string(mib) + " MiB: " + to_string(w.status) + (w.reason.empty() ? "" : " (" + clip(w.reason) + ")");
  };
  std::string evidence = "limit " + std::to_string(kMemLimitMib) + " MiB";
  bool under_ran = false;
  for (int mib : kMemUnderMib) {
    const SweepOutcome under_run = run(("mem-limit-under-" + std::to_string(mib)).c_str(), mib);
    const std::optional<WorkerRecord> under = only_worker(under_run);
    if (!under) return sweep_error(under_run);
    evidence += "; " + (under->status == RunStatus::ok ? std::to_string(mib) + " MiB: ok" : fate(mib, *under));
    if ((under_ran = under->status == RunStatus::ok)) break;
  }
  const SweepOutcome over_run = run("mem-limit-over", kMemOverMib);
  const std::optional<WorkerRecord> over = only_worker(over_run);
  if (!over) return sweep_error(over_run);
  return judged(under_ran && over->status == RunStatus::mps_mem_limit,
                evidence + "; " + fate(kMemOverMib, *over) + "; the neighbours' throughput is not measured");
}

namespace {

/// The priority row's runs: each interference run's foreground p99, by arm (a below-normal background or not).
struct PriorityArms {
  std::vector<double> normal, below, alone;
};

void read_priority_arms(const SweepOutcome& o, PriorityArms& arms) {
  for (const SummaryRecord& s : read_summary(o.dir / "summary.csv")) {
    if (s.status != RunStatus::ok || !std::isfinite(s.fg_latency_p99_ms)) continue;
    if (s.scenario == RunKind::interference_fg) arms.alone.push_back(s.fg_latency_p99_ms);
    if (s.scenario != RunKind::interference) continue;
    const std::optional<NamedMode> named = mode_of_name(s.mode);
    const bool background_below = named && (named->mode.prio_first || !named->mode.client_priorities.empty());
    (background_below ? arms.below : arms.normal).push_back(s.fg_latency_p99_ms);
  }
}

}  // namespace

Judgement check_priority(const ConformSetup& setup, ChildSweeps& sweeps) {
  if (setup.cpu_stand_in) return skipped("the CPU stand-in has no GPU scheduler to prioritise");
  // What MPS documents: a client's priority is its streams' priority, and a stream priority orders the blocks
  // waiting to be dispatched; it preempts no block already running. So the background is a kernel of many
  // short blocks, several waves deep (fill_workload_args: 200 us blocks, 8 waves), whose queued blocks a
  // higher-priority foreground's kernel can pass; the foreground is a paced, latency-bound mlp-infer.
  std::vector<std::string> args{"--scenario",   "interference",
                                "--modes",      "mps,mps+prio",
                                "--procs",      "2",
                                "--duration",   "2",
                                "--foreground", "mlp-infer",
                                "--background", "spin",
                                "--repeats",    std::to_string(kPriorityRunsPerArm),
                                "--rounds",     "1"};
  const std::vector<std::string> fill = fill_workload_args(setup);
  args.insert(args.end(), fill.begin() + 2, fill.end());  // the spin kernel's shape (its --workloads left out)
  PriorityArms arms;
  RatioInterval r{NAN, NAN, NAN};
  int batches = 0;
  for (; batches < kPriorityMaxBatches; ++batches) {
    SweepOutcome o;
    try {
      o = sweeps.run(batches == 0 ? "priority" : "priority-" + std::to_string(batches + 1), args);
    } catch (const BudgetSpent&) {
      if (batches == 0) throw;
      break;  // no time for another batch: what ran before decides, as where one was stopped part way
    }
    if (!o.has_runs()) {
      if (batches == 0) return sweep_error(o);
      break;  // what ran before decides
    }
    read_priority_arms(o, arms);
    r = ratio_of_means(arms.below, arms.normal);
    if (r.has_interval() && (r.hi <= kPriorityGain || r.lo > kPriorityGain)) {
      ++batches;
      break;
    }
  }
  if (arms.normal.empty() || arms.below.empty())
    return {ConformVerdict::error, "", "the sweep recorded no finished interference run with and without +prio"};
  const std::string evidence =
      "foreground p99 " + fmt_sig(mean(arms.normal)) + " ms beside a normal-priority background (" +
      std::to_string(arms.normal.size()) + " runs), " + fmt_sig(mean(arms.below)) + " ms beside a below-normal one (" +
      std::to_string(arms.below.size()) + " runs): " + fmt_sig(r.ratio, 3) + "x" +
      (r.has_interval() ? " (" + fmt_sig(r.lo, 3) + "-" + fmt_sig(r.hi, 3) + ", ~94 %)" : "") + " against at most " +
      fmt_sig(kPriorityGain, 2) + "x; alone " + fmt_sig(mean(arms.alone)) + " ms; background: 200 us blocks, 8 waves";
  return decided(r, kPriorityGain, evidence);
}

Judgement check_client_ceiling(const ConformSetup& setup, ChildSweeps& sweeps) {
  if (setup.cpu_stand_in) return skipped("the fake MPS daemon has no client limit");
  const std::string ramp = std::to_string(kDocumentedClients) + "," + std::to_string(kRampTo);
  const SweepOutcome o =
      sweeps.run("client-ceiling", {"--workloads", "spin", "--modes", "mps", "--procs", ramp, "--mps-max-clients",
                                    std::to_string(kRampTo), "--no-pin", "--tasks", "3", "--spin-launches", "10"});
  if (!o.has_runs()) return sweep_error(o);
  // What the ramp saw, counted: clients connected at the documented limit and past it, and the statuses of
  // those that did not connect (which one the driver refused first varies from card to card: each is named).
  int connected_documented = 0, documented = 0, connected = 0, ramped = 0;
  const WorkerRecord* refused = nullptr;
  std::map<std::string, int> statuses;  ///< past the limit, not connected: status -> clients
  bool hung = false;
  const std::vector<WorkerRecord> workers = read_runs(o.dir / "runs.csv");
  for (const WorkerRecord& w : workers) {
    const bool at_documented = w.procs == kDocumentedClients;
    (at_documented ? documented : ramped) += 1;
    (at_documented ? connected_documented : connected) += w.mps_enabled ? 1 : 0;
    hung = hung || w.status == RunStatus::timeout;
    if (at_documented || w.mps_enabled) continue;
    ++statuses[to_string(w.status)];
    if (w.status != RunStatus::aborted && (!refused || w.worker < refused->worker)) refused = &w;
  }
  std::string evidence = "N=" + std::to_string(kDocumentedClients) + ": " + std::to_string(connected_documented) + "/" +
                         std::to_string(documented) + " clients connected; N=" + std::to_string(kRampTo) + ": " +
                         std::to_string(connected) + "/" + std::to_string(ramped) + " connected";
  for (const auto& [status, n] : statuses) evidence += ", " + std::to_string(n) + " " + status;
  if (refused)
    evidence +=
        "; the lowest-numbered refused, client " + std::to_string(refused->worker) + ": " + clip(refused->reason);
  else
    evidence += "; none refused";
  if (hung) evidence += "; a client hung (timeout)";
  evidence += "; serving the rest after the refusal is not measured";
  return judged(documented > 0 && connected_documented == documented && refused && !hung, evidence);
}

}  // namespace bench_mps::harness
