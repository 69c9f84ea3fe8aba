#include "harness/sweep/preflight.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "harness/common/errors.hpp"
#include "harness/common/exec_token.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/signals.hpp"
#include "harness/mps/compute_mode.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/plan/exec_options.hpp"
#include "harness/plan/scenario.hpp"
#include "harness/sweep/cpu_affinity.hpp"
#include "harness/sweep/gpu_profiling.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The worker executable: --worker, else $BENCH_MPS_WORKER, else bench_worker beside bench_mps. One the user named
/// that cannot run is bad input (exit 2); the one beside bench_mps missing is a broken install (exit 3).
std::string find_worker(const SweepSpec& spec) {
  std::string exe = spec.worker_exe, given_by = "--worker";
  if (exe.empty())
    if (const char* env = std::getenv("BENCH_MPS_WORKER")) exe = env, given_by = "BENCH_MPS_WORKER";
  if (exe.empty()) {
    std::error_code ec;
    exe = (fs::read_symlink("/proc/self/exe", ec).parent_path() / "bench_worker").string();
    given_by.clear();
  }
  std::error_code ec;  // the forms that do not throw: a path that cannot be looked at is said below, not thrown
  const bool folder = fs::is_directory(exe, ec);
  if (::access(exe.c_str(), X_OK) == 0 && !folder) return exe;
  const std::string why = !fs::exists(exe, ec) ? "no such file"
                          : folder             ? "a folder, not a program"
                                               : "not executable (chmod +x, or name the program)";
  if (given_by.empty())
    throw EnvironmentError("worker executable " + exe + ": " + why + " (bench_worker beside bench_mps)");
  throw UsageError(given_by + ": " + exe + ": " + why);
}

std::string gib(std::uint64_t bytes) { return fmt_fixed(static_cast<double>(bytes) / (1ull << 30), 2) + " GiB"; }

/// Starts one worker of `workload`, lets it allocate and warm up, and reads how much more GPU memory
/// is in use (NVML) while it waits at the start barrier; the worker is then stopped.
std::uint64_t measure_footprint(const std::string& workload, const SweepSpec& spec, const Environment& env) {
  WorkerLaunch launch;
  launch.exe = env.worker_exe;
  launch.args = workload_worker_args(workload, spec.params);
  launch.args.insert(launch.args.end(), {"--tasks", "1", "--warmup",
                                         std::to_string(std::min(1, default_warmup_tasks(workload, spec.params)))});
  launch.env_unset = {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "CUDA_MPS_LOG_DIRECTORY"};
  launch.env_set = {{"CUDA_MPS_PIPE_DIRECTORY", no_mps_pipe_dir(env).string()}};
  if (spec.external_mps) {  // the site's GPU may allow MPS clients only (EXCLUSIVE_PROCESS): be one, as the runs are
    launch.env_unset = {};
    launch.env_set = {{"CUDA_MPS_PIPE_DIRECTORY", spec.external.pipe_dir}};
  }
  PoolLimits limits;
  limits.ready_timeout_s = spec.ready_timeout_s;
  const std::uint64_t before = env.nvml->sample().mem_used_bytes.value_or(0);
  std::uint64_t during = 0;
  PoolHooks hooks;
  hooks.all_ready = [&](const std::vector<WorkerResult>&) {
    during = env.nvml->sample().mem_used_bytes.value_or(0);
    return false;  // measured: stop it at the barrier
  };
  const PoolResult pool = run_worker_pool(launch, 1, limits, stop_signal(), hooks);
  const WorkerResult& w = pool.workers.front();
  if (!w.ready)
    throw EnvironmentError("a " + workload + " worker could not start on this GPU: " + w.reason +
                           (w.stderr_tail.empty() ? "" : " (" + w.stderr_tail.back() + ")"));
  return during > before ? during - before : w.ready_info.mem_bytes;
}

/// --cpus: this process (so its workers and daemons too) keeps to those cores from here on.
void confine_to_given_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  check_cpus_allowed(cpus, "--cpus");
  if (const std::string why = confine_process(cpus); !why.empty()) throw EnvironmentError("--cpus: " + why);
}

}  // namespace

bool sweep_has_mps_mode(const SweepSpec& spec) {
  return std::any_of(spec.modes.begin(), spec.modes.end(), [](const Mode& m) { return m.mps; });
}

void check_fresh_out_dir(const fs::path& out) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec)) throw UsageError("--out: " + out.string() + " exists and is not a folder");
  if (fs::exists(out / "meta.json", ec))
    throw UsageError("--out: " + out.string() + " already holds results; choose a new folder or --resume it");
  // Files of the names we write but no meta.json: not ours; never append under someone else's header.
  for (const char* name : {"summary.csv", "runs.csv", "tasks.csv", "timeline.csv"})
    if (fs::exists(out / name, ec))
      throw UsageError("--out: " + out.string() + " holds a " + name +
                       " but no meta.json: not bench_mps's results, and "
                       "bench_mps appends to no one else's file; choose a new folder");
}

void check_out_dir(const SweepSpec& spec) {
  const fs::path out = spec.out_dir.empty() ? fs::path("results") : fs::path(spec.out_dir);
  // A sweep writing the folder now: exit 2 naming its pid (before this sweep holds the claim itself, and before
  // the machine's checks, which would name the GPU's lock instead).
  if (!spec.out_dir.empty()) refuse_if_claimed(out);
  if (spec.resume) return;  // prepare_resume checks the folder it continues
  if (!spec.out_dir.empty()) check_fresh_out_dir(out);
  check_folder_creatable(out, "--out");
}

fs::path no_mps_pipe_dir(const Environment& env) { return env.mps_base / "no-mps-daemon"; }

Environment preflight(const SweepSpec& spec) {
  for (const std::string& line : exec_option_notes(spec)) std::cerr << "bench_mps: " << line << "\n";
  if (const std::string note = procs_left_out_note(spec.scenario, spec.procs); !note.empty())
    std::cerr << "bench_mps: " << note << "\n";
  Environment env;
  env.worker_exe = find_worker(spec);
  if (spec.profile_gpu) env.profiler_library = find_profiler_library();
  if (has_exec(spec) && spec.exec_gate != "off" && spec.exec_gate_timeout_s >= spec.run_timeout_s)
    std::cerr << "bench_mps: warning: --exec-gate-timeout " << fmt_num(spec.exec_gate_timeout_s)
              << " s is not under --timeout " << fmt_num(spec.run_timeout_s)
              << " s: a copy that never arrives ends the run before the gate would release the rest\n";
  if (!spec.profile_gpu && has_exec(spec) && spec.exec_gate != "off") {  // the start gate's holder (exec_gate.hpp)
    try {
      env.profiler_library = find_profiler_library();
    } catch (const EnvironmentError& e) {
      std::cerr << "bench_mps: warning: --exec-gate: " << e.what()
                << "; copies of a CUDA program will not be held at the gate\n";
    }
  }
  env.device = select_device(spec);  // before NVML opens "CUDA's device 0": from here on, that is this one
  confine_to_given_cpus(spec.cpus);
  std::string why;
  env.nvml = Nvml::open(why);
  if (!env.nvml && sweep_needs_gpu(spec)) throw EnvironmentError(no_gpu_words(why));
  if (env.nvml) {
    try {
      env.gpu = env.nvml->static_info();
    } catch (const NvmlError& e) {
      throw EnvironmentError(std::string("cannot read the GPU's properties: ") + e.what());
    }
  }
  const fs::path root = default_mps_base_dir();
  env.mps_base = root / device_dir_name(env.device.id);  // sessions and restore files of this device only
  env.mps_control = find_mps_control();
  if (sweep_has_mps_mode(spec) && env.mps_control.empty())
    throw EnvironmentError(
        "nvidia-cuda-mps-control is not on PATH: MPS modes need it (it comes with the NVIDIA driver's utilities; "
        "a plain sweep can leave MPS out with --modes timeslice)");
  env.lock = std::make_unique<GpuLock>(root, device_dir_name(env.device.id), env.device.describe());
  std::error_code ec;
  fs::create_directories(env.mps_base, ec);  // restore files of --set-exclusive go here before any session
  fs::permissions(env.mps_base, fs::perms::owner_all, ec);
  for (const fs::path& dir : {root, env.mps_base})  // root: restore files of bench_mps before --device
    for (const std::string& line : restore_stale_compute_modes(dir)) std::cerr << "bench_mps: " << line << "\n";
  for (const std::string& line : stop_stale_sessions(root, env.mps_control)) std::cerr << "bench_mps: " << line << "\n";
  // exec commands (and what they started) of a bench_mps killed outright: they would share the GPU
  // and the CPUs with this sweep's runs, and no one else would ever end them.
  for (const std::string& line : end_orphaned_exec_processes()) std::cerr << "bench_mps: " << line << "\n";
  const auto foreign = spec.external_mps ? std::vector<ProcInfo>{} : foreign_mps_processes(env.mps_base, env.device.id);
  if (!foreign.empty()) {
    const ProcInfo& p = foreign.front();
    const auto pipe = process_env(p.pid, "CUDA_MPS_PIPE_DIRECTORY");
    const auto visible = process_env(p.pid, "CUDA_VISIBLE_DEVICES");
    throw EnvironmentError("another MPS daemon is running (pid " + std::to_string(p.pid) + " " + p.comm +
                           ", pipe directory " + pipe.value_or("/tmp/nvidia-mps or unknown") + ", serving " +
                           (visible ? "CUDA_VISIBLE_DEVICES=" + *visible : std::string("every GPU")) + ") on " +
                           env.device.describe() + ": it would turn time-sliced runs into MPS runs; stop it first");
  }
  if (spec.set_exclusive) {
    if (::geteuid() != 0) throw EnvironmentError("--set-exclusive changes the GPU's compute mode: run as root");
    env.nvidia_smi = find_nvidia_smi();
    if (env.nvidia_smi.empty()) throw EnvironmentError("--set-exclusive needs nvidia-smi on PATH");
  }
  const int max_procs = *std::max_element(spec.procs.begin(), spec.procs.end());
  if (env.gpu && sweep_needs_gpu(spec)) {
    const std::string& cm = env.gpu->compute_mode;
    if (cm == "Prohibited") throw EnvironmentError("the GPU's compute mode is Prohibited: no process may use it");
    for (const Mode& m : spec.modes) {
      if (!m.mps && max_procs > 1 && (cm == "Exclusive_Process" || cm == "Exclusive_Thread"))
        throw EnvironmentError("the GPU's compute mode is " + cm + ": time-sliced runs with N>1 cannot share it");
    }
    for (const std::string& w : spec.workloads) {
      if (!workload_needs_gpu(w)) continue;
      const std::uint64_t one = measure_footprint(w, spec, env);
      env.footprint_bytes[w] = one;
      const std::uint64_t need = one * static_cast<std::uint64_t>(max_procs) * 11 / 10;
      const std::uint64_t free_bytes = env.nvml->memory_free_bytes();
      if (need > free_bytes)
        throw EnvironmentError(std::to_string(max_procs) + " " + w + " workers need about " + gib(need) +
                               " of GPU memory (" + gib(one) + " each), only " + gib(free_bytes) + " is free");
    }
  }
  return env;
}

}  // namespace bench_mps::harness
