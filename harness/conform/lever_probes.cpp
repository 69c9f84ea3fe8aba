// The levers newer drivers add (probed by the version found) and the exclusive-process compute mode
// (opt-in: it changes the GPU's settings for its sweep, which restores them).
#include <cstdlib>

#include "harness/conform/levers.hpp"
#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {
namespace {

constexpr int kSmPartitionsCuda = 13010;  ///< CUDA 13.1
constexpr int kNewerMpsDriver = 610;      ///< r610: the newer MPS docs' control interface and multi-user MPS

std::string cuda_name(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string found(const GpuStaticInfo& gpu) {
  return "driver " + gpu.driver_version + " (CUDA " + cuda_name(gpu.cuda_driver_version) + ")";
}

/// SKIP naming what was found: too old, or new enough for a probe conform does not have yet.
Judgement by_version(const ConformSetup& setup, bool new_enough, const std::string& needs) {
  if (!setup.gpu) return skipped("no GPU (CPU stand-ins): no driver version to probe");
  if (!new_enough) return skipped(found(*setup.gpu) + " found; needs " + needs);
  return skipped(found(*setup.gpu) + " may offer it (needs " + needs + "); conform has no probe of its own for it yet");
}

int driver_major(const ConformSetup& setup) { return setup.gpu ? std::atoi(setup.gpu->driver_version.c_str()) : 0; }

}  // namespace

Judgement check_sm_partitions(const ConformSetup& setup, ChildSweeps&) {
  return by_version(setup, setup.gpu && setup.gpu->cuda_driver_version >= kSmPartitionsCuda,
                    "CUDA " + cuda_name(kSmPartitionsCuda));
}

Judgement check_control_v3(const ConformSetup& setup, ChildSweeps&) {
  return by_version(setup, driver_major(setup) >= kNewerMpsDriver, "driver r" + std::to_string(kNewerMpsDriver));
}

Judgement check_multi_user(const ConformSetup& setup, ChildSweeps&) {
  return by_version(setup, driver_major(setup) >= kNewerMpsDriver, "driver r" + std::to_string(kNewerMpsDriver));
}

Judgement check_exclusive(const ConformSetup& setup, ChildSweeps& sweeps) {
  if (!setup.set_exclusive)
    return skipped("opt-in: --set-exclusive lets this row set EXCLUSIVE_PROCESS for its sweep (restored after)");
  std::vector<std::string> args = plain_workload_args(setup);
  args.insert(args.end(), {"--modes", "mps", "--procs", "2", "--tasks", "10", "--set-exclusive"});
  const SweepOutcome o = sweeps.run("exclusive", args);
  if (!o.has_runs()) return sweep_error(o);
  int clients = 0, on = 0;
  std::string problems;
  for (const WorkerRecord& w : read_runs(o.dir / "runs.csv")) {
    ++clients;
    on += w.mps_enabled && w.status == RunStatus::ok ? 1 : 0;
    if (w.status != RunStatus::ok)
      problems += "; worker " + std::to_string(w.worker) + ": " + to_string(w.status) + " (" + w.reason + ")";
  }
  return judged(clients > 0 && on == clients && o.exit_code == 0,
                std::to_string(on) + "/" + std::to_string(clients) +
                    " clients ran as MPS clients under EXCLUSIVE_PROCESS" + problems);
}

}  // namespace bench_mps::harness
