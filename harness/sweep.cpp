#include "harness/sweep.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "harness/errors.hpp"
#include "harness/format.hpp"
#include "harness/meta.hpp"
#include "harness/monitor.hpp"
#include "harness/mps_session.hpp"
#include "harness/nvml.hpp"
#include "harness/results_writer.hpp"
#include "harness/signals.hpp"
#include "harness/summary_table.hpp"
#include "harness/worker_pool.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

struct Environment {
  std::unique_ptr<Nvml> nvml;
  std::optional<GpuStaticInfo> gpu;
  std::string mps_control;
  fs::path mps_base;
  std::string worker_exe;
};

bool needs_gpu(const SweepSpec& spec) {
  for (const auto& w : spec.workloads)
    if (workload_needs_gpu(w)) return true;
  return false;
}

bool has_mps_mode(const SweepSpec& spec) {
  for (const Mode& m : spec.modes)
    if (m.mps) return true;
  return false;
}

/// --out must be creatable and must not already hold results.
void check_out_dir(const SweepSpec& spec) {
  const fs::path out = spec.out_dir.empty() ? fs::path("results") : fs::path(spec.out_dir);
  std::error_code ec;
  if (!spec.out_dir.empty() && fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) throw UsageError("--out: " + out.string() + " exists and is not a folder");
    if (fs::exists(out / "summary.csv", ec) || fs::exists(out / "meta.json", ec))
      throw UsageError("--out: " + out.string() + " already holds results; choose a new folder");
  }
  fs::path probe = fs::absolute(out, ec);
  while (!probe.empty() && !fs::exists(probe, ec)) probe = probe.parent_path();
  if (probe.empty() || !fs::is_directory(probe, ec) || ::access(probe.c_str(), W_OK | X_OK) != 0)
    throw UsageError("--out: cannot create " + out.string() + ": " + probe.string() + " is not writable");
}

std::string find_worker(const SweepSpec& spec) {
  std::string exe = spec.worker_exe;
  if (exe.empty())
    if (const char* env = std::getenv("BENCH_MPS_WORKER")) exe = env;
  if (exe.empty()) {
    std::error_code ec;
    exe = (fs::read_symlink("/proc/self/exe", ec).parent_path() / "bench_worker").string();
  }
  if (::access(exe.c_str(), X_OK) != 0) throw EnvironmentError("worker executable not found: " + exe);
  return exe;
}

Environment preflight(const SweepSpec& spec) {
  Environment env;
  env.worker_exe = find_worker(spec);
  std::string why;
  env.nvml = Nvml::open(why);
  if (!env.nvml && needs_gpu(spec)) throw EnvironmentError("no GPU visible: " + why);
  if (env.nvml) {
    try {
      env.gpu = env.nvml->static_info();
    } catch (const NvmlError& e) {
      throw EnvironmentError(std::string("cannot read the GPU's properties: ") + e.what());
    }
  }
  env.mps_base = default_mps_base_dir();
  env.mps_control = find_mps_control();
  if (has_mps_mode(spec) && env.mps_control.empty())
    throw EnvironmentError("nvidia-cuda-mps-control is not on PATH: MPS modes need it (or run --modes timeslice)");
  for (const std::string& line : stop_stale_sessions(env.mps_base, env.mps_control))
    std::cerr << "bench_mps: " << line << "\n";
  const auto foreign = foreign_mps_processes(env.mps_base);
  if (!foreign.empty()) {
    const ProcInfo& p = foreign.front();
    const auto pipe = process_env(p.pid, "CUDA_MPS_PIPE_DIRECTORY");
    throw EnvironmentError("another MPS daemon is running (pid " + std::to_string(p.pid) + " " + p.comm +
                           ", pipe directory " + pipe.value_or("/tmp/nvidia-mps or unknown") +
                           "): it would turn time-sliced runs into MPS runs; stop it first");
  }
  if (env.gpu && needs_gpu(spec)) {
    const std::string& cm = env.gpu->compute_mode;
    if (cm == "Prohibited") throw EnvironmentError("the GPU's compute mode is Prohibited: no process may use it");
    const int max_procs = *std::max_element(spec.procs.begin(), spec.procs.end());
    for (const Mode& m : spec.modes)
      if (!m.mps && max_procs > 1 && (cm == "Exclusive_Process" || cm == "Exclusive_Thread"))
        throw EnvironmentError("the GPU's compute mode is " + cm + ": time-sliced runs with N>1 cannot share it");
  }
  return env;
}

fs::path choose_out_dir(const SweepSpec& spec, const Environment& env) {
  if (!spec.out_dir.empty()) return spec.out_dir;
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  const std::string base = std::string("results/") + date + "-" + (env.gpu ? gpu_slug(env.gpu->name) : "cpu");
  fs::path dir = base;
  for (int i = 2; fs::exists(dir); ++i) dir = base + "-" + std::to_string(i);
  return dir;
}

WorkerLaunch make_launch(const SweepSpec& spec, const RunSpec& run, const Environment& env, MpsSession* session) {
  WorkerLaunch launch;
  launch.exe = env.worker_exe;
  launch.args = workload_worker_args(run.workload, spec.params);
  if (run.tasks > 0) {
    launch.args.insert(launch.args.end(), {"--tasks", std::to_string(run.tasks)});
  } else {
    launch.args.insert(launch.args.end(), {"--duration-s", fmt_num(spec.duration_s, 9)});
  }
  launch.args.insert(launch.args.end(), {"--warmup", std::to_string(spec.warmup)});
  launch.env_unset = {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY"};
  if (session) {
    launch.env_set = session->client_env();
    if (run.mode.active_thread_pct)
      launch.env_set.emplace_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(run.mode.active_thread_pct));
  } else {
    // A pipe directory where no daemon listens: even a system-wide MPS daemon cannot capture these clients.
    launch.env_set = {{"CUDA_MPS_PIPE_DIRECTORY", (env.mps_base / "no-mps-daemon").string()}};
  }
  return launch;
}

/// Every worker that got as far as READY must have run in the mode asked for.
void check_mps_expectation(RunRecord& record, const PoolResult& pool) {
  for (const WorkerResult& w : pool.workers) {
    if (!w.ready || w.ready_info.mps_enabled == record.spec.mode.mps) continue;
    mark_failed(record, "mode_mismatch",
                "worker " + std::to_string(w.index) +
                    (record.spec.mode.mps ? " did not run as an MPS client" : " ran as an MPS client"));
  }
}

void print_progress(const RunRecord& r, int done, int total, double seconds) {
  const SummaryRow& s = r.summary;
  std::cerr << "[" << done << "/" << total << "] " << r.spec.run_id() << ": " << s.status;
  if (s.status == "ok") {
    std::cerr << "  per-task " << fmt_fixed(s.task_mean_ms, 3) << " ms (" << fmt_fixed(s.slowdown_vs_alone, 2)
              << "x alone)  " << fmt_fixed(s.throughput_tasks_per_s, 1) << " tasks/s";
  } else {
    std::cerr << " (" << s.reason << ")";
  }
  std::cerr << "  [" << fmt_fixed(seconds, 1) << " s]\n";
}

class Sweep {
 public:
  Sweep(const SweepSpec& spec, Environment env, fs::path out)
      : spec_(spec), env_(std::move(env)), out_(std::move(out)),
        meta_(make_meta(spec, env_.gpu, env_.mps_control)), writer_(out_),
        monitor_(env_.nvml.get(), std::chrono::milliseconds(100)) {
    save_meta();
  }

  int run() {
    const auto blocks = plan_sweep(spec_);
    int total = 0;
    for (const auto& b : blocks) total += static_cast<int>(b.runs.size());
    std::cerr << "bench_mps: " << total << " runs -> " << out_.string() << "\n";
    int done = 0;
    for (const ModeBlock& block : blocks) {
      if (stop_signal().load()) break;
      run_block(block, done, total);
    }
    return finish();
  }

 private:
  void run_block(const ModeBlock& block, int& done, int total) {
    std::unique_ptr<MpsSession> session;
    if (block.mode.mps) {
      MpsSessionOptions options;
      options.control_exe = env_.mps_control;
      options.base_dir = env_.mps_base;
      if (block.mode.active_thread_pct) options.default_active_thread_pct = block.mode.active_thread_pct;
      try {
        session = std::make_unique<MpsSession>(options);
      } catch (const MpsError& e) {
        env_error_ = std::string("MPS unavailable: ") + e.what();
        stop_ = true;
        return;
      }
    }
    std::map<std::string, double> alone_ms;  // workload -> N=1 per-task mean in this block
    bool server_checked = false;
    for (const RunSpec& run : block.runs) {
      if (stop_ || stop_signal().load()) break;
      const auto t0 = std::chrono::steady_clock::now();
      BeforeKillHook hook;
      if (session) {
        hook = [&session](const std::vector<pid_t>& pids) {
          try {
            for (pid_t server : session->server_pids())
              for (pid_t client : pids) session->terminate_client(server, client);
          } catch (const MpsError& e) {
            std::cerr << "bench_mps: warning: terminate_client failed: " << e.what() << "\n";
          }
        };
      }
      const PoolResult pool = run_worker_pool(make_launch(spec_, run, env_, session.get()), run.procs, limits(),
                                              stop_signal(), hook);
      if (pool.interrupted_by) {
        std::cerr << "bench_mps: " << run.run_id() << " interrupted; it is not recorded\n";
        break;
      }
      auto alone = alone_ms.find(run.workload);
      RunRecord record = make_run_record(run, pool, monitor_.take(pool.go_ns, pool.end_ns),
                                         alone == alone_ms.end() ? 0.0 : alone->second);
      check_mps_expectation(record, pool);
      if (session && !server_checked && record.summary.workers_ok > 0) {
        server_checked = true;
        verify_server(*session, block, record);
      }
      if (run.procs == 1 && record.summary.status == "ok") {
        alone_ms[run.workload] = record.summary.task_mean_ms;
        record.summary.slowdown_vs_alone = 1.0;
      }
      note_device(pool);
      writer_.append(record);
      entries_.push_back({run, record.summary});
      if (record.summary.status != "ok") ++failed_;
      print_progress(record, ++done, total,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    if (session) {
      try {
        session->quit();
      } catch (const MpsError& e) {
        std::cerr << "bench_mps: warning: " << e.what() << "\n";
      }
    }
  }

  PoolLimits limits() const {
    PoolLimits l;
    l.ready_timeout_s = spec_.ready_timeout_s;
    l.run_timeout_s = spec_.run_timeout_s;
    return l;
  }

  void verify_server(MpsSession& session, const ModeBlock& block, RunRecord& record) {
    try {
      const auto servers = session.server_pids();
      if (servers.empty()) mark_failed(record, "mode_mismatch", "the MPS daemon lists no server after a client ran");
      for (auto& m : meta_["mps"]["modes"])
        if (m["name"] == block.mode.name) m["server_pids"].push_back(servers.empty() ? 0 : servers.front());
    } catch (const MpsError& e) {
      mark_failed(record, "mps_error", e.what());
    }
  }

  void note_device(const PoolResult& pool) {
    if (meta_["gpu"].is_null()) return;
    for (const WorkerResult& w : pool.workers) {
      if (!w.ready || w.ready_info.cuda_runtime_version == 0) continue;
      if (meta_["gpu"]["sm_count"].is_null() && !w.ready_info.mps_enabled)
        meta_["gpu"]["sm_count"] = w.ready_info.sm_count_seen;
      meta_["gpu"]["cuda_runtime_version"] = w.ready_info.cuda_runtime_version;
      meta_["gpu"]["sm_clock_peak_khz"] = w.ready_info.clock_khz;
    }
  }

  void save_meta() { write_file_atomically(out_ / "meta.json", meta_.dump(2) + "\n"); }

  int finish() {
    const int sig = stop_signal().load();
    meta_["finished_utc"] = utc_timestamp();
    meta_["runs_recorded"] = entries_.size();
    meta_["runs_failed"] = failed_;
    meta_["status"] = sig ? "interrupted" : (!env_error_.empty() ? "environment_error" : (failed_ ? "failed" : "complete"));
    if (const std::string e = monitor_.error(); !e.empty()) meta_["monitor_error"] = e;
    save_meta();
    std::cout << "\n";
    print_summary_table(std::cout, entries_);
    std::cout << "\nresults: " << out_.string() << "\n";
    if (sig) {
      std::cerr << "bench_mps: stopped by " << strsignal(sig) << "; finished runs are in " << out_.string() << "\n";
      return 128 + sig;
    }
    if (!env_error_.empty()) {
      std::cerr << "bench_mps: " << env_error_ << "\n";
      return kExitEnvironment;
    }
    if (failed_) std::cerr << "bench_mps: " << failed_ << " run(s) failed; see the status column of summary.csv\n";
    return failed_ ? kExitFailed : kExitOk;
  }

  SweepSpec spec_;
  Environment env_;
  fs::path out_;
  nlohmann::json meta_;
  ResultsWriter writer_;
  Monitor monitor_;
  std::vector<SummaryEntry> entries_;
  int failed_ = 0;
  bool stop_ = false;
  std::string env_error_;
};

}  // namespace

int run_sweep(const SweepSpec& spec) {
  check_out_dir(spec);
  Environment env = preflight(spec);
  const fs::path out = choose_out_dir(spec, env);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw UsageError("--out: cannot create " + out.string() + ": " + ec.message());
  install_stop_handlers();
  Sweep sweep(spec, std::move(env), out);
  return sweep.run();
}

}  // namespace bench_mps::harness
