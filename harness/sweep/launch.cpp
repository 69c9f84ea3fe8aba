#include "harness/sweep/launch.hpp"

#include <algorithm>

#include "harness/common/format.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/sweep/scenario_hooks.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

/// "0=512M": CUDA_MPS_PINNED_DEVICE_MEM_LIMIT for the client's device (ordinal 0 of what it sees).
std::string pinned_limit_value(std::uint64_t bytes) {
  return "0=" + std::to_string(std::max<std::uint64_t>(1, bytes >> 20)) + "M";
}

/// The workers of run `run`: processes (timeslice, mps) or one process with N instances (in-process).
int worker_processes(const RunSpec& run) { return run.mode.in_process() ? 1 : run.procs; }

/// exec as the run's workload or as its background: its copies log, and get a margin on --timeout.
bool has_user_program(const RunSpec& run) {
  return runs_user_program(run.workload) || runs_user_program(run.background);
}

WorkerLaunch make_launch(const SweepSpec& spec, const RunSpec& run, const Environment& env, MpsSession* session,
                         const fs::path& out_dir) {
  WorkerLaunch launch;
  launch.exe = env.worker_exe;
  std::vector<std::string> base;
  if (has_user_program(run))
    base.insert(base.end(), {"--exec-log-dir", (out_dir / "exec" / run.run_id()).string(), "--exec-timeout",
                             fmt_num(spec.run_timeout_s, 9)});
  if (run.tasks > 0) {
    base.insert(base.end(), {"--tasks", std::to_string(run.tasks)});
  } else {
    base.insert(base.end(), {"--duration-s", fmt_num(run.duration_s, 9)});
  }
  base.insert(base.end(), {"--warmup", std::to_string(warmup_tasks(spec, run.workload))});
  if (run.mode.in_process()) {
    base.insert(base.end(), {"--instances", std::to_string(run.procs), "--layout",
                             run.mode.kind == ModeKind::streams ? "streams" : "threads"});
    if (run.mode.kind == ModeKind::green)
      base.insert(base.end(), {"--green", "--green-sms", std::to_string(run.mode.green_sms)});
  }
  // A host thread (threads, green) per instance, each on cores of its own.
  launch.cores_per_worker = spec.cores_per_worker * (run.mode.in_process() ? run.procs : 1);
  launch.args = workload_worker_args(run.workload, run_params(spec, run));
  launch.args.insert(launch.args.end(), base.begin(), base.end());
  const RunHooks& hooks = run_hooks(run.scenario);
  if (hooks.add_roles) hooks.add_roles(run, spec, base, launch.args, launch.args_for_worker);
  if (spec.cpu_stand_in) {
    launch.args.emplace_back("--cpu-stand-in");
    for (auto& [worker, args] : launch.args_for_worker) args.emplace_back("--cpu-stand-in");
  }
  launch.cpus = env.worker_cpus;
  if (hooks.own_worker) hooks.own_worker(run, spec, launch.args_for_worker);  // a worker that is the scenario's alone
  launch.env_unset = {
      "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "CUDA_MPS_PIPE_DIRECTORY",          "CUDA_MPS_LOG_DIRECTORY",
      "CUDA_MPS_CLIENT_PRIORITY",          "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "CUDA_DEVICE_MAX_CONNECTIONS"};
  if (session) {
    launch.env_set = session->client_env();
    for (int i = 0; i < run.procs; ++i) {
      EnvVars& env_i = launch.env_for_worker[i];
      if (const int pct = run.mode.client_active_thread_pct(i, run.procs))
        env_i.emplace_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(pct));
      if (const int prio = run.mode.client_priority(i); prio >= 0)
        env_i.emplace_back("CUDA_MPS_CLIENT_PRIORITY", std::to_string(prio));
      if (const std::uint64_t limit = run.mode.client_mem_limit(i))
        env_i.emplace_back("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", pinned_limit_value(limit));
    }
  } else {
    launch.env_set = {{"CUDA_MPS_PIPE_DIRECTORY", no_mps_pipe_dir(env).string()}};
  }
  if (run.mode.max_connections)
    launch.env_set.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(run.mode.max_connections));
  // What a user's command may want to know (bench_worker adds BENCH_MPS_WORKER_INDEX).
  launch.env_set.emplace_back("BENCH_MPS_PROCS", std::to_string(run.procs));
  launch.env_set.emplace_back("BENCH_MPS_MODE", run.mode.name);
  launch.env_set.emplace_back("BENCH_MPS_RUN_ID", run.run_id());
  return launch;
}

PoolLimits run_limits(const SweepSpec& spec, const RunSpec& run) {
  PoolLimits l;
  l.ready_timeout_s = spec.ready_timeout_s;
  l.run_timeout_s = spec.run_timeout_s + (has_user_program(run) ? kExecTimeoutMargin_s : 0.0);
  return l;
}

}  // namespace bench_mps::harness
