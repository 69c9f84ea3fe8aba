#include "harness/sweep/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/signals.hpp"
#include "harness/gpu/monitor.hpp"
#include "harness/mps/compute_mode.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/results_writer.hpp"
#include "harness/results/summary_table.hpp"
#include "harness/sweep/cpu_affinity.hpp"
#include "harness/sweep/exec_proof.hpp"
#include "harness/sweep/fault_scenario.hpp"
#include "harness/sweep/gpu_select.hpp"
#include "harness/sweep/kernel_log.hpp"
#include "harness/sweep/preflight.hpp"
#include "harness/sweep/resume.hpp"
#include "harness/sweep/run_reduction.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

int max_procs(const SweepSpec& spec) {
  int n = 0;
  for (int p : spec.procs) n = std::max(n, p);
  return n;
}

fs::path choose_out_dir(const SweepSpec& spec, const Environment& env) {
  if (!spec.out_dir.empty()) return spec.out_dir;
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  std::string base = std::string("results/") + date + "-" + (env.gpu ? gpu_slug(env.gpu->name) : "cpu");
  if (spec.scenario != "sweep") base += "-" + spec.scenario;
  fs::path dir = base;
  for (int i = 2; fs::exists(dir); ++i) dir = base + "-" + std::to_string(i);
  return dir;
}

// An exec worker kills its command itself at --timeout (and reports it); the pool's own limit, a
// little later, is the backstop for a worker that cannot.
constexpr double kExecTimeoutMargin_s = 10;

WorkerLaunch make_launch(const SweepSpec& spec, const RunSpec& run, const Environment& env, MpsSession* session,
                         const fs::path& out_dir) {
  WorkerLaunch launch;
  launch.exe = env.worker_exe;
  launch.args = workload_worker_args(run.workload, spec.params);
  if (run.workload == "exec")
    launch.args.insert(launch.args.end(), {"--exec-log-dir", (out_dir / "exec" / run.run_id()).string(),
                                           "--exec-timeout", fmt_num(spec.run_timeout_s, 9)});
  if (run.tasks > 0) {
    launch.args.insert(launch.args.end(), {"--tasks", std::to_string(run.tasks)});
  } else {
    launch.args.insert(launch.args.end(), {"--duration-s", fmt_num(run.duration_s, 9)});
  }
  launch.args.insert(launch.args.end(), {"--warmup", std::to_string(warmup_tasks(spec, run.workload))});
  launch.cpus = env.worker_cpus;
  if (run.scenario == "fault") launch.args_for_worker[run.procs - 1] = faulter_args(run, spec, run.procs - 1);
  launch.env_unset = {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY"};
  if (session) {
    launch.env_set = session->client_env();
    if (run.mode.active_thread_pct)
      launch.env_set.emplace_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(run.mode.active_thread_pct));
  } else {
    launch.env_set = {{"CUDA_MPS_PIPE_DIRECTORY", no_mps_pipe_dir(env).string()}};
  }
  // What a user's command may want to know (bench_worker adds BENCH_MPS_WORKER_INDEX).
  launch.env_set.emplace_back("BENCH_MPS_PROCS", std::to_string(run.procs));
  launch.env_set.emplace_back("BENCH_MPS_MODE", run.mode.name);
  launch.env_set.emplace_back("BENCH_MPS_RUN_ID", run.run_id());
  return launch;
}

/// Every worker that got as far as READY must have run in the mode asked for.
void check_mps_expectation(RunRecord& record, const PoolResult& pool) {
  if (record.spec.workload == "exec") return;  // no context of its own: exec_proof.hpp checks its copies
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
  if (s.status != "ok") {
    std::cerr << " (" << s.reason << ")";
  } else if (s.scenario == "fault") {
    std::cerr << "  victims survived " << s.victims_survived << "/" << s.victims;
    if (s.victims_survived) std::cerr << ", slowdown " << fmt_fixed(s.victim_slowdown, 2) << "x";
    if (!std::isnan(s.mps_recovery_s)) std::cerr << ", MPS recovery " << fmt_fixed(s.mps_recovery_s, 2) << " s";
  } else {
    std::cerr << "  per-task " << fmt_fixed(s.task_mean_ms, 3) << " ms";
    if (!std::isnan(s.slowdown_vs_alone)) std::cerr << " (" << fmt_fixed(s.slowdown_vs_alone, 2) << "x alone)";
    std::cerr << "  " << fmt_fixed(s.throughput_tasks_per_s, 1) << " tasks/s";
  }
  std::cerr << "  [" << fmt_fixed(seconds, 1) << " s]\n";
}

/// A recorded summary row as the table and the alone/baseline references need it.
SummaryEntry entry_of(const SummaryRecord& r, const SweepSpec& spec) {
  SummaryEntry e;
  e.spec.repeat = r.repeat;
  e.spec.workload = r.workload;
  e.spec.params = r.params;
  for (const Mode& m : spec.modes)
    if (m.name == r.mode) e.spec.mode = m;
  e.spec.procs = r.procs;
  e.spec.scenario = r.run_id.size() > 6 && r.run_id.substr(r.run_id.size() - 6) == "-fault" ? "fault"
                    : r.run_id.find("-fault_baseline") != std::string::npos ? "fault_baseline"
                                                                             : "";
  e.row.status = r.status;
  e.row.reason = r.reason;
  e.row.task_mean_ms = r.task_mean_ms;
  e.row.throughput_tasks_per_s = r.throughput_tasks_per_s;
  e.row.slowdown_vs_alone = r.slowdown_vs_alone;
  e.row.scenario = e.spec.scenario;
  return e;
}

class Sweep {
 public:
  Sweep(const SweepSpec& spec, Environment env, fs::path out, std::optional<ResumeState> resumed,
        const nlohmann::json& cpus)
      : spec_(spec), env_(std::move(env)), out_(std::move(out)), writer_(out_),
        monitor_(env_.nvml.get(), std::chrono::milliseconds(100)) {
    if (resumed) {
      meta_ = resumed->meta;
      meta_["status"] = "running";
      meta_["resumed_utc"].push_back(utc_timestamp());
      recorded_ = resumed->recorded_ids;
      for (const SummaryRecord& r : resumed->recorded) {
        entries_.push_back(entry_of(r, spec_));
        if (r.status != "ok") ++failed_;
      }
    } else {
      meta_ = make_meta(spec, env_.gpu, env_.mps_control);
    }
    for (const auto& [w, bytes] : env_.footprint_bytes) meta_["gpu"]["footprint_bytes"][w] = bytes;
    meta_["cpus"] = cpus;
    add_device_meta(meta_, spec_, env_);  // --device, --cpus, --external-mps (harness/sweep/gpu_select)
    if (env_.nvml && meta_["gpu"].is_object()) meta_["gpu"]["conditions_start"] = conditions_json(env_.nvml->conditions());
    save_meta();
  }

  int run() {
    const auto blocks = plan_sweep(spec_);
    int total = 0;
    for (const auto& b : blocks) total += static_cast<int>(b.runs.size());
    std::cerr << "bench_mps: " << total << " runs";
    if (!recorded_.empty()) std::cerr << " (" << recorded_.size() << " already recorded)";
    std::cerr << " -> " << out_.string() << "\n";
    int done = static_cast<int>(recorded_.size());
    for (const ModeBlock& block : blocks) {
      if (stop_ || stop_signal().load()) break;
      bool pending = false;
      for (const RunSpec& r : block.runs) pending |= !recorded_.count(r.run_id());
      if (pending) run_block(block, done, total);
    }
    return finish();
  }

 private:
  void run_block(const ModeBlock& block, int& done, int total) {
    std::unique_ptr<ExclusiveComputeMode> exclusive;
    std::unique_ptr<MpsSession> session;
    if (block.mode.mps) {
      try {
        if (spec_.set_exclusive)
          exclusive = std::make_unique<ExclusiveComputeMode>(env_.nvidia_smi, env_.gpu ? env_.gpu->uuid : "0", env_.mps_base);
        MpsSessionOptions options;
        options.control_exe = env_.mps_control;
        options.base_dir = env_.mps_base;
        options.external_pipe_dir = spec_.external.pipe_dir;  // --external-mps: the site's daemon, never ours
        if (block.mode.active_thread_pct) options.default_active_thread_pct = block.mode.active_thread_pct;
        session = std::make_unique<MpsSession>(options);
      } catch (const std::exception& e) {  // MpsError, EnvironmentError from the compute mode
        env_error_ = std::string("MPS unavailable: ") + e.what();
        stop_ = true;
        return;
      }
    }
    // References within the block: N=1 per-task time ("alone") and the victims' baseline.
    std::map<std::string, double> alone_ms, baseline_ms;
    for (const SummaryEntry& e : entries_) {
      if (e.spec.repeat != block.repeat || e.spec.mode.name != block.mode.name || e.row.status != "ok") continue;
      if (e.spec.scenario.empty() && e.spec.procs == 1) alone_ms[e.spec.workload] = e.row.task_mean_ms;
      if (e.spec.scenario == "fault_baseline")
        baseline_ms[e.spec.workload + "/" + std::to_string(e.spec.procs + 1)] = e.row.task_mean_ms;
    }
    bool server_checked = false;
    for (const RunSpec& run : block.runs) {
      if (stop_ || stop_signal().load()) break;
      if (recorded_.count(run.run_id())) continue;
      std::this_thread::sleep_for(std::chrono::duration<double>(spec_.settle_s));
      const auto t0 = std::chrono::steady_clock::now();
      PoolHooks hooks;
      if (session) {
        hooks.before_kill = [&session](const std::vector<pid_t>& pids) {
          try {
            for (pid_t server : session->server_pids())
              for (pid_t client : pids) session->terminate_client(server, client);
          } catch (const MpsError& e) {
            std::cerr << "bench_mps: warning: terminate_client failed: " << e.what() << "\n";
          }
        };
      }
      std::vector<pid_t> servers_before;
      if (session && run.scenario == "fault") servers_before = server_list(*session);
      XidLines xid_before;
      if (run.scenario == "fault") xid_before = read_xid_lines(fs::temp_directory_path());
      std::unique_ptr<MpsClientWatch> watch;
      if (session && run.workload == "exec") {
        watch = std::make_unique<MpsClientWatch>(*session);
        hooks.while_running = [&watch] { watch->poll(); };
      }
      const PoolResult pool = run_worker_pool(make_launch(spec_, run, env_, session.get(), out_), run.procs,
                                              limits(run.workload), stop_signal(), hooks);
      if (pool.interrupted_by) {
        std::cerr << "bench_mps: " << run.run_id() << " interrupted; it is not recorded\n";
        break;
      }
      auto alone = alone_ms.find(run.workload);
      RunRecord record = make_run_record(run, pool, monitor_.take(pool.go_ns, pool.end_ns),
                                         alone == alone_ms.end() || !run.scenario.empty() ? 0.0 : alone->second,
                                         env_.nvml ? env_.nvml->utilization_samples(pool.go_ns) : std::vector<UtilSample>{});
      check_mps_expectation(record, pool);
      if (run.workload == "exec") prove_exec_mode(record, pool, watch.get());
      if (run.scenario == "fault") {
        const auto base = baseline_ms.find(run.workload + "/" + std::to_string(run.procs));
        evaluate_fault_run(record, pool, base == baseline_ms.end() ? 0.0 : base->second);
        record.summary.driver_messages = new_driver_messages(xid_before, read_xid_lines(fs::temp_directory_path()));
        if (session) measure_recovery(*session, run, pool, servers_before, record);
      }
      if (session && !server_checked && record.summary.workers_ok > 0 && run.scenario.empty()) {
        server_checked = true;
        verify_server(*session, block, record);
      }
      if (run.scenario.empty() && run.procs == 1 && record.summary.status == "ok") {
        alone_ms[run.workload] = record.summary.task_mean_ms;
        record.summary.slowdown_vs_alone = 1.0;
      }
      if (run.scenario == "fault_baseline" && record.summary.status == "ok")
        baseline_ms[run.workload + "/" + std::to_string(run.procs + 1)] = record.summary.task_mean_ms;
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

  PoolLimits limits(const std::string& workload = "") const {
    PoolLimits l;
    l.ready_timeout_s = spec_.ready_timeout_s;
    l.run_timeout_s = spec_.run_timeout_s + (workload == "exec" ? kExecTimeoutMargin_s : 0.0);
    return l;
  }

  static std::vector<pid_t> server_list(MpsSession& session) {
    try {
      return session.server_pids();
    } catch (const MpsError&) {
      return {};
    }
  }

  /// After a fault under MPS: what became of the server, and how long until a new client finishes a
  /// task (probed every 100 ms for up to 60 s, counted from the faulting worker's death).
  void measure_recovery(MpsSession& session, const RunSpec& run, const PoolResult& fault_pool,
                        const std::vector<pid_t>& servers_before, RunRecord& record) {
    SummaryRow& s = record.summary;
    const std::vector<pid_t> after = server_list(session);
    const pid_t before = servers_before.empty() ? 0 : servers_before.front();
    if (after.empty()) {
      s.mps_server_state = before ? "exited (was pid " + std::to_string(before) + ")" : "none";
    } else if (std::find(after.begin(), after.end(), before) != after.end() && process_alive(before)) {
      s.mps_server_state = "survived (pid " + std::to_string(before) + ")";
    } else {
      s.mps_server_state = "replaced (pid " + std::to_string(after.front()) + ")";
    }
    std::int64_t fault_ns = 0;
    for (const WorkerResult& w : fault_pool.workers)
      if (w.index == run.procs - 1) fault_ns = w.ended_ns;
    RunSpec probe = run;
    probe.scenario.clear();
    probe.tasks = 1;
    WorkerLaunch launch = make_launch(spec_, probe, env_, &session, out_);
    PoolLimits l = limits();
    l.ready_timeout_s = std::min(l.ready_timeout_s, 20.0);
    l.run_timeout_s = std::min(l.run_timeout_s, 20.0);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < give_up && !stop_signal().load()) {
      const PoolResult p = run_worker_pool(launch, 1, l, stop_signal());
      if (!p.workers.empty() && p.workers.front().status == "ok" && !p.workers.front().tasks.empty()) {
        s.mps_recovery_s = static_cast<double>(p.workers.front().tasks.back().end_ns - fault_ns) * 1e-9;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    s.mps_server_state += "; no new client ran within 60 s";
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
    if (env_.nvml && meta_["gpu"].is_object()) meta_["gpu"]["conditions_end"] = conditions_json(env_.nvml->conditions());
    meta_["runs_recorded"] = entries_.size();
    meta_["runs_failed"] = failed_;
    meta_["status"] = sig ? "interrupted" : (!env_error_.empty() ? "environment_error" : (failed_ ? "failed" : "complete"));
    if (const std::string e = monitor_.error(); !e.empty()) meta_["monitor_error"] = e;
    save_meta();
    std::cout << "\n";
    if (spec_.scenario == "fault") {
      print_fault_table(std::cout, entries_);
    } else {
      print_summary_table(std::cout, entries_);
    }
    std::cout << "\nresults: " << out_.string() << "\n";
    if (sig) {
      std::cerr << "bench_mps: stopped by " << strsignal(sig) << "; finished runs are in " << out_.string()
                << " (continue with --resume " << out_.string() << ")\n";
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
  std::set<std::string> recorded_;
  std::vector<SummaryEntry> entries_;
  int failed_ = 0;
  bool stop_ = false;
  std::string env_error_;
};

}  // namespace

int run_sweep(const SweepSpec& spec) {
  check_out_dir(spec);
  if (spec.resume) check_same_sweep(spec, read_meta(spec.out_dir));
  Environment env = preflight(spec);  // before any repair: a machine that cannot run it changes nothing
  std::optional<ResumeState> resumed;
  if (spec.resume) resumed = prepare_resume(spec.out_dir);  // repairs only after every check passed
  const fs::path out = choose_out_dir(spec, env);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw UsageError("--out: cannot create " + out.string() + ": " + ec.message());
  if (env.lock) env.lock->record_out_dir(out);  // a second sweep of this GPU names it
  if (resumed)
    for (const std::string& line : resumed->repairs) std::cerr << "bench_mps: resume: " << line << "\n";
  install_stop_handlers();
  const CpuPlan cpus = spec.pin_cpus ? plan_cpus(allowed_cpus(), max_procs(spec)) : CpuPlan{};
  const std::string confined = confine_process(cpus.harness);  // before the monitor and any daemon start
  if (!confined.empty()) std::cerr << "bench_mps: warning: harness left unpinned: " << confined << "\n";
  env.worker_cpus = cpus.workers;
  const nlohmann::json cpus_json{{"workers", cpus.workers},
                                 {"harness", confined.empty() ? cpus.harness : std::vector<int>{}}};
  Sweep sweep(spec, std::move(env), out, std::move(resumed), cpus_json);
  return sweep.run();
}

}  // namespace bench_mps::harness
