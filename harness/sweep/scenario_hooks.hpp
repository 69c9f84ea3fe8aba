#pragma once
// Each scenario's part in a sweep, as tables instead of if-chains in the run loop (a new scenario adds its
// row here and its file beside the others):
// per run, by what the run is (plain, fault, X-ray probe, interference): the workers' roles on their command
// lines, a worker that is the scenario's own (the faulter), what to note before the round (the fault's
// servers and kernel log), the scenario's columns after it, and the progress line's figures. The tables
// printed when a sweep ends are chosen by --scenario in progress.hpp.
#include "harness/sweep/wing.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <sys/types.h>
#include <vector>

#include "harness/gpu/nvml.hpp"
#include "harness/plan/scenario.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/profiler/start_gate.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/run_record.hpp"
#include "harness/sweep/kernel_log.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {

class MpsSession;

/// What a run's record needs from before and after its round besides the pool's result.
struct RunExtras {
  std::vector<pid_t> servers_before;          ///< fault under MPS: the servers before the fault
  XidLines xid_before;                        ///< fault: the kernel log's Xid lines before the run
  std::optional<GpmMetrics> gpm;              ///< GPM metrics over the round
  std::optional<profiler::GateReading> gate;  ///< exec: the start gate's passage (exec_gate.hpp)
  std::string gate_point;                     ///< the point its copies were held at
};

/// What a scenario's hooks may ask of the sweep about one finished round.
struct RoundContext {
  const SweepSpec& spec;
  const RunSpec& run;
  const PoolResult& pool;
  MpsSession* session;      ///< null when time-sliced
  const RunExtras* extras;  ///< null for a set that never started
  /// The recorded ok run of this run's repeat and mode with that scenario, N and workload, or null.
  std::function<const SummaryRecord*(const RunScenario&, int procs, const std::string& workload)> reference;
  /// The launch of another run in this round's mode (the fault's recovery probe).
  std::function<WorkerLaunch(const RunSpec&)> launch_for;
};

using WorkerArgs = std::map<int, std::vector<std::string>>;

/// One row: a family of runs and what its scenario does around them (a null hook does nothing).
struct RunHooks {
  const char* family;
  bool (*matches)(const RunScenario&);
  /// The workers' roles: arguments beyond the workload's (`base`: what every worker gets besides them).
  void (*add_roles)(const RunSpec&, const SweepSpec&, const std::vector<std::string>& base,
                    std::vector<std::string>& args, WorkerArgs& args_for_worker);
  /// A worker whose whole command line is the scenario's (set after the CPU stand-in flag is added).
  void (*own_worker)(const RunSpec&, const SweepSpec&, WorkerArgs& args_for_worker);
  /// What to note before the round.
  void (*before_round)(const RunSpec&, MpsSession*, RunExtras&);
  /// The scenario's columns of the finished run.
  void (*evaluate)(const RoundContext&, RunRecord&);
  /// The progress line's figures of a run that ended ok.
  void (*progress)(std::ostream&, const RunScenario&, const SummaryRow&);
};
/// The row of `scenario` (the first that matches; the last, plain, matches every run).
const RunHooks& run_hooks(const RunScenario& scenario);

}  // namespace bench_mps::harness
