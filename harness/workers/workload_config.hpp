#pragma once
// The workloads the tool knows, their parameters, and how those parameters travel: the same CLI11
// options on bench_mps and bench_worker, a canonical "key=value;..." string in every result row.
#include "harness/workers/wing.hpp"

#include <map>
#include <string>
#include <vector>

#include "harness/workers/cpu_workload.hpp"
#include "harness/workers/exec_workload.hpp"
#include "harness/workers/workload_kind.hpp"
#include "kernels/duty.hpp"
#include "kernels/fault.hpp"
#include "kernels/filler.hpp"
#include "kernels/membw.hpp"
#include "kernels/mlp.hpp"
#include "kernels/mlp_infer.hpp"
#include "kernels/spin.hpp"
#include "kernels/xray.hpp"

namespace CLI {
class App;
}

namespace bench_mps::harness {

struct WorkloadConfig {
  kernels::SpinParams spin;
  kernels::MlpParams mlp;
  kernels::MembwParams membw;
  kernels::FillerParams filler;
  kernels::MlpInferParams infer;  ///< mlp-infer: the network is mlp's (layers, seed, dataset, launch)
  CpuParams cpu;
  ExecParams exec;
  kernels::DutyParams duty;     ///< its host_us follows duty_pct (resolve_duty_host_us) in bench_mps
  double duty_pct = 50;         ///< duty: the target share of a step on the GPU, percent
  kernels::XrayParams xray;     ///< the X-ray's probes (their role is set per worker by the scenario)
  double fault_delay_ms = 250;  ///< the fault scenario's faulting worker: spin until then, then fault
};

/// duty: host work per step from the target duty cycle (duty_pct) and the burst.
void resolve_duty_host_us(WorkloadConfig& config);
/// The most host work per step (us) a duty worker takes: the harness refuses a burst and duty cycle that need
/// more before any run (plan/sweep_cli), the worker the same number.
inline constexpr double kMaxDutyHostUs = 1e9;

/// Names accepted by --workloads, in the order they are listed in help texts.
const std::vector<std::string>& workload_names();
/// The same less the tests' CPU stand-in (cpu): the names messages list.
const std::vector<std::string>& listed_workload_names();
bool is_known_workload(const std::string& name);
/// What bench_worker runs: workload_names() plus the scenarios' own fault and xray.
const std::vector<std::string>& worker_workload_names();
/// False for the CPU stand-in workload and for exec (the user's program may not use the GPU at all).
bool workload_needs_gpu(const std::string& name);
bool workload_needs_gpu(WorkloadKind kind);
/// exec: the user's own program, run once per worker and run as a process of its own (no rounds, no
/// warm-up tasks, no context of its own that bench_mps could ask about; its own logs and time margin).
bool runs_user_program(const std::string& name);
bool runs_user_program(WorkloadKind kind);
/// duty and xray: --cpu-stand-in runs a CPU stand-in of them (harness/workers/cpu_standins.hpp).
bool has_cpu_stand_in(const std::string& name);
/// Whether one host thread can feed N streams of `name` (the streams mode): its task enqueues its GPU work
/// without waiting on the host (spin, membw, cpu, mlp's gpu-bound profile without --mlp-read-loss).
bool workload_feeds_streams(const std::string& name, const WorkloadConfig& config);

/// --xray-role values ("busy", "step"; bench_mps sets it per worker) and the name of one.
const std::map<std::string, kernels::XrayRole>& xray_role_names();
std::string xray_role_name(kernels::XrayRole role);
/// --mlp-launch values ("graph", "eager") and the name of one.
const std::map<std::string, kernels::MlpLaunch>& mlp_launch_names();
std::string mlp_launch_name(kernels::MlpLaunch launch);
/// --mlp-profile values ("gpu-bound", "seed001") and the name of one.
const std::map<std::string, kernels::MlpProfile>& mlp_profile_names();
std::string mlp_profile_name(kernels::MlpProfile profile);

/// Whether a worker may run several GO rounds (repeats) of `workload` in one process: not exec (the
/// user's program's start-up is part of what is timed), not mlp's seed001 profile (a task is a whole
/// epoch, timed to completion as the seed timed a fresh process), not the fault scenario's faulter.
bool workload_allows_rounds(const std::string& name, const WorkloadConfig& config);

/// Untimed tasks a worker of `workload` runs before READY when --warmup is not given: 2, but none
/// for exec (the user's program runs once) and for mlp's seed001 profile (a task is an epoch).
int default_warmup_tasks(const std::string& workload, const WorkloadConfig& config);

/// A workload's length when neither --tasks nor --duration is given: `tasks` timed tasks, or (tasks 0)
/// `duration_s` seconds; one task (a whole epoch) for mlp's seed001 profile; {50, 0} for an unknown word.
struct DefaultLength {
  long tasks = 0;
  double duration_s = 0;
};
DefaultLength default_run_length(const std::string& workload, const WorkloadConfig& config);

/// Adds every workload's parameter options (--spin-*, --mlp-*, --exec-*, --cpu-*) to `app`, bound to `config`.
void add_workload_options(CLI::App& app, WorkloadConfig& config);

/// Canonical parameter string of workload `name`, e.g. "blocks=4;threads=256;launch_us=100;launches=100".
std::string workload_params_string(const std::string& name, const WorkloadConfig& config);

/// The bench_worker arguments that reproduce `config` for workload `name`.
std::vector<std::string> workload_worker_args(const std::string& name, const WorkloadConfig& config);

}  // namespace bench_mps::harness
