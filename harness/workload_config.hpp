#pragma once
// The workloads the tool knows, their parameters, and how those parameters travel: the same CLI11
// options on bench_mps and bench_worker, a canonical "key=value;..." string in every result row.
#include <map>
#include <string>
#include <vector>

#include "harness/cpu_workload.hpp"
#include "kernels/fault.hpp"
#include "kernels/mlp.hpp"
#include "kernels/spin.hpp"

namespace CLI {
class App;
}

namespace bench_mps::harness {

struct WorkloadConfig {
  kernels::SpinParams spin;
  kernels::MlpParams mlp;
  CpuParams cpu;
  double fault_delay_ms = 250;  ///< the fault scenario's faulting worker: spin until then, then fault
};

/// Names accepted by --workloads, in the order they are listed in help texts.
const std::vector<std::string>& workload_names();
bool is_known_workload(const std::string& name);
/// What bench_worker runs: workload_names() plus the fault scenario's "fault".
const std::vector<std::string>& worker_workload_names();
/// False only for the CPU stand-in workload.
bool workload_needs_gpu(const std::string& name);

/// --mlp-launch values ("graph", "eager") and the name of one.
const std::map<std::string, kernels::MlpLaunch>& mlp_launch_names();
std::string mlp_launch_name(kernels::MlpLaunch launch);

/// Adds every workload's parameter options (--spin-*, --mlp-*, --cpu-*) to `app`, bound to `config`.
void add_workload_options(CLI::App& app, WorkloadConfig& config);

/// Canonical parameter string of workload `name`, e.g. "blocks=4;threads=256;launch_us=100;launches=100".
std::string workload_params_string(const std::string& name, const WorkloadConfig& config);

/// The bench_worker arguments that reproduce `config` for workload `name`.
std::vector<std::string> workload_worker_args(const std::string& name, const WorkloadConfig& config);

}  // namespace bench_mps::harness
