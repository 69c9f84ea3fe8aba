#include "harness/conform/levers.hpp"

namespace bench_mps::harness {

const std::vector<Lever>& conform_levers() {
  static const std::vector<Lever> levers{
      {"proof", "every client is an MPS client under MPS, none when time-sliced",
       "2 clients per mode: under MPS each reports CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 1, time-sliced each 0",
       check_proof},
      {"thread-pct", "the active thread percentage caps the SMs a client gets",
       "at 25 % and 50 % a client sees that share of the 100 % client's SMs (within 2 SMs: MPS grants whole "
       "TPCs), and a GPU-filling kernel takes SMs(100 %) / SMs(p) times its 100 % time (within 25 %)",
       check_thread_pct},
      {"uneven-split", "two clients at 10 % and 90 % share the GPU in that ratio",
       "both fed continuously over the same window: throughput(90 %) / throughput(10 %) = 90 / 10, within 25 %",
       check_uneven_split},
      {"per-client-pct", "per-client percentages (mps:60/20/20) are honoured",
       "each client's share of the SMs seen is its percentage's (within 3 points), and its share of the "
       "throughput too (within 25 % of it)",
       check_per_client_pct},
      {"mem-limit", "the pinned device memory limit stops an allocation at the limit",
       "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=1024M, granule 32 MiB: a client allocating under the limit runs (960, else "
       "768, else 512 MiB: the limit also counts the client's context, so the largest that runs is reported); one "
       "allocating 1056 MiB (the limit + 1 granule) fails with status mps_mem_limit and the driver's error, no hang",
       check_mem_limit},
      {"priority", "a below-normal background gives way to a normal-priority client",
       "a latency-bound foreground (mlp-infer) beside a background kernel of short blocks several waves deep (a "
       "priority orders blocks waiting for an SM, it preempts none): with the background at "
       "CUDA_MPS_CLIENT_PRIORITY=1 (+prio) the foreground's p99 is at least 10 % lower than with both at normal "
       "priority, the ~94 % interval of the ratio over >= 5 runs per arm wholly below 0.90x (above: FAIL; across "
       "it after 15: INCONCLUSIVE)",
       check_priority},
      {"client-ceiling", "the client limit refuses the next client clearly",
       "clients up to the documented limit (48 per device; 60 with CUDA_DEVICE_MAX_CONNECTIONS=2 in newer docs) "
       "connect; past it at least one client gets a clear status and the driver's error, and none hangs (whether the "
       "server then serves the others is not measured: a refused client fails its worker set, so at 61 even 0 may "
       "have connected)",
       check_client_ceiling},
      {"fault", "one client's illegal memory access is contained",
       "the faulter gets an error and no MPS client hangs (20 s cap); time-sliced neighbours do not die (frozen past "
       "the cap is reported); under MPS the server serves a new client within 30 s (its neighbours' fate is "
       "reported: ending them is MPS's documented Volta+ behaviour)",
       check_fault},
      {"sm-partitions", "static SM partitions (MPS control from CUDA 13.1)",
       "probed by version: needs a driver of CUDA 13.1 or newer; SKIP naming the version found where older",
       check_sm_partitions},
      {"control-v3", "MPS's newer control interface",
       "probed by version: needs driver r610 or newer; SKIP naming the driver found where older", check_control_v3},
      {"multi-user", "multi-user MPS (several users' clients on one server)",
       "probed by version: needs driver r610 or newer; SKIP naming the driver found where older", check_multi_user},
      {"exclusive", "EXCLUSIVE_PROCESS compute mode with the MPS daemon",
       "only with --set-exclusive (set for the row, restored after): 2 clients still reach MPS under it; SKIP "
       "otherwise",
       check_exclusive},
  };
  return levers;
}

std::vector<std::string> plain_workload_args(const ConformSetup& setup) {
  if (setup.cpu_stand_in) return {"--workloads", "cpu", "--cpu-task-us", "500"};
  return {"--workloads", "spin"};
}

std::vector<std::string> fill_workload_args(const ConformSetup& setup) {
  // 20 ms: a wake-up late by a few ms on a loaded CPU stays small beside it
  if (setup.cpu_stand_in) return {"--workloads", "cpu", "--cpu-fill", "--cpu-task-us", "20000"};
  return {"--workloads", "spin", "--spin-blocks",   "2112", "--spin-threads", "1024",
          "--spin-us",   "200",  "--spin-launches", "1"};
}

Judgement sweep_error(const SweepOutcome& outcome) {
  return {ConformVerdict::error, "",
          "its sweep (" + outcome.dir.filename().string() + ") exited " + std::to_string(outcome.exit_code) +
              (outcome.last_error.empty() ? "" : ": " + outcome.last_error)};
}

Judgement judged(bool ok, std::string evidence) {
  return {ok ? ConformVerdict::pass : ConformVerdict::fail, std::move(evidence), ""};
}

Judgement decided(const RatioInterval& r, double limit, std::string evidence) {
  if (r.has_interval() && r.hi <= limit) return {ConformVerdict::pass, std::move(evidence), ""};
  if (r.has_interval() && r.lo > limit) return {ConformVerdict::fail, std::move(evidence), ""};
  return {ConformVerdict::inconclusive, std::move(evidence),
          r.has_interval() ? "the interval crosses the criterion within the budget's runs"
                           : "too few runs for an interval"};
}

Judgement skipped(std::string reason) { return {ConformVerdict::skip, "", std::move(reason)}; }

}  // namespace bench_mps::harness
