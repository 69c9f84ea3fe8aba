#pragma once
// Warm-up runs for the exec workload. A program's first run pays for what later runs find ready: its
// libraries and data in the page cache, CUDA's JIT and kernel caches, Python's bytecode. Measured on
// an H100, a PyTorch program's first timed run took 20.6 s time-sliced and 16.2 s under MPS at N=1
// (one repeat): a 1.28x "MPS gain" that was only the order of the blocks. So before a mode block's
// first exec run, after its MPS daemon is up (MPS's own first-client costs are warmed too), one copy
// of the command runs K times (--exec-warmups, 1 by default) as a plain N=1 run of that block (a
// per-client list gives it client 0's settings), with BENCH_MPS_RUN_ID <run>-warmup<k> and its output
// in exec-warmups/<run>-warmup<k>/ (exec/ holds the recorded runs' only). Nothing of it goes to the
// CSV files: meta.json's exec_warmup_runs lists each block's warm-ups (seconds, status, exit code) and
// one line on screen says each. A warm-up that fails is said there too and the sweep goes on: the
// timed run records the failure properly.
#include "harness/sweep/wing.hpp"

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/plan/sweep_spec.hpp"
#include "harness/results/meta.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {

/// The run whose copy warms `block` up: its first exec run not yet in `recorded`, as one plain worker
/// (N=1, no scenario); nullopt when the block has no exec run left.
std::optional<RunSpec> exec_warmup_run(const ModeBlock& block, const std::set<std::string>& recorded);

/// Runs `count` warm-ups of `copy`, each launched by `launch_for` (given the copy with scenario
/// "warmup<k>"), one line on screen each; stops early when `stop` is set. Returns the block's entry
/// for meta.json's exec_warmup_runs: {mode, group, run_id, runs: [{seconds, wall_s, status, reason,
/// exit_code}]}.
nlohmann::json run_exec_warmups(const ModeBlock& block, const RunSpec& copy, int count,
                                const std::function<WorkerLaunch(const RunSpec&)>& launch_for, const PoolLimits& limits,
                                const std::atomic<int>& stop);

/// After the sweep: exec's configurations whose first run was much slower than the rest (slow_first_runs.hpp),
/// from summary.csv in `out` (an earlier, resumed part's runs too), into meta.json's exec_slow_first_runs;
/// the warnings to print (none where the sweep ran no exec).
std::vector<std::string> note_slow_first_runs(const SweepSpec& spec, const std::filesystem::path& out, SweepMeta& meta);

}  // namespace bench_mps::harness
