#include "harness/sweep/exec_warmup.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "harness/common/format.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/slow_first_runs.hpp"
#include "harness/workers/workload_config.hpp"

namespace bench_mps::harness {
namespace {

namespace fs = std::filesystem;

/// What one warm-up left for meta.json: the command's completion (the pool's wall time where it
/// reported no task), its status and reason, and its exit code where the worker reported one.
nlohmann::json warmup_entry(const PoolResult& pool, double wall_s) {
  nlohmann::json entry{{"wall_s", wall_s},
                       {"seconds", wall_s},
                       {"status", to_string(RunStatus::error)},
                       {"reason", ""},
                       {"exit_code", nullptr}};
  if (pool.workers.empty()) {
    entry["reason"] = "no worker ran";
    return entry;
  }
  const WorkerResult& w = pool.workers.front();
  entry["status"] = to_string(w.status);
  entry["reason"] = w.reason;
  if (!w.tasks.empty()) entry["seconds"] = static_cast<double>(w.tasks.back().end_ns - w.tasks.back().start_ns) * 1e-9;
  if (w.done.is_object() && w.done.contains("facts") && w.done["facts"].is_object() &&
      w.done["facts"].contains("exit_code") && w.done["facts"]["exit_code"].is_number())
    entry["exit_code"] = std::lround(w.done["facts"]["exit_code"].get<double>());
  return entry;
}

/// The warm-up's output goes to exec-warmups/<its run id>/ beside exec/ (which holds the recorded runs' only).
void redirect_exec_logs(WorkerLaunch& launch, const std::string& run_id) {
  const auto at = std::find(launch.args.begin(), launch.args.end(), "--exec-log-dir");
  if (at == launch.args.end() || std::next(at) == launch.args.end()) return;
  const fs::path run_dir = *std::next(at);  // <out>/exec/<run id>
  *std::next(at) = (run_dir.parent_path().parent_path() / "exec-warmups" / run_id).string();
}

}  // namespace

std::optional<RunSpec> exec_warmup_run(const ModeBlock& block, const std::set<std::string>& recorded) {
  for (const RunSpec& run : block.runs()) {
    if (!runs_user_program(run.workload) || recorded.count(run.run_id())) continue;
    RunSpec copy = run;
    copy.procs = 1;
    copy.scenario = RunKind::plain;
    copy.background.clear();
    return copy;
  }
  return std::nullopt;
}

nlohmann::json run_exec_warmups(const ModeBlock& block, const RunSpec& copy, int count,
                                const std::function<WorkerLaunch(const RunSpec&)>& launch_for, const PoolLimits& limits,
                                const std::atomic<int>& stop) {
  nlohmann::json runs = nlohmann::json::array();
  for (int k = 1; k <= count && !stop.load(); ++k) {
    RunSpec warm = copy;
    warm.scenario = RunScenario::warmup(k);
    const auto t0 = std::chrono::steady_clock::now();
    WorkerLaunch launch = launch_for(warm);
    redirect_exec_logs(launch, warm.run_id());
    const PoolResult pool = run_worker_pool(launch, 1, limits, stop);
    if (pool.interrupted_by) break;  // the sweep stops: nothing to say of a warm-up cut short
    const nlohmann::json entry =
        warmup_entry(pool, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::cerr << "exec warm-up " << k << "/" << count << " (" << block.mode.name
              << "): " << fmt_fixed(entry["seconds"].get<double>(), 1) << " s";
    if (parse_run_status(entry["status"].get<std::string>()) != RunStatus::ok)
      std::cerr << ", " << entry["status"].get<std::string>() << " (" << entry["reason"].get<std::string>()
                << "); the sweep goes on, its timed runs record what the command does";
    std::cerr << "\n";
    runs.push_back(entry);
  }
  return {{"mode", block.mode.name}, {"group", block.group}, {"run_id", copy.run_id()}, {"runs", runs}};
}

std::vector<std::string> note_slow_first_runs(const SweepSpec& spec, const std::filesystem::path& out,
                                              SweepMeta& meta) {
  if (std::find(spec.workloads.begin(), spec.workloads.end(), "exec") == spec.workloads.end()) return {};
  std::vector<std::string> lines;
  nlohmann::json list = nlohmann::json::array();
  try {
    for (const SlowFirstRun& slow : find_slow_first_runs(read_summary(out / "summary.csv"))) {
      lines.push_back(describe_slow_first_run(slow) +
                      ": its first run was much slower than the rest (cold caches?); "
                      "warm it up with --exec-warmups" +
                      (spec.exec_warmups ? " (more of them)" : ""));
      list.push_back(slow_first_run_json(slow));
    }
  } catch (const std::exception& e) {
    lines.push_back("cannot read back " + (out / "summary.csv").string() + " for exec's first runs: " + e.what());
  }
  meta.exec_slow_first_runs = list;
  return lines;
}

}  // namespace bench_mps::harness
