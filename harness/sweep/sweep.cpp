#include "harness/sweep/sweep.hpp"
#include "harness/common/json_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/signals.hpp"
#include "harness/gpu/monitor.hpp"
#include "harness/mps/compute_mode.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/results/interference_rows.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/regime_rows.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/results_writer.hpp"
#include "harness/results/slow_first_runs.hpp"
#include "harness/results/summary_table.hpp"
#include "harness/sweep/core_claims.hpp"
#include "harness/sweep/noise_target.hpp"
#include "harness/sweep/cpu_affinity.hpp"
#include "harness/sweep/exec_metric_note.hpp"
#include "harness/sweep/exec_proof.hpp"
#include "harness/sweep/exec_warmup.hpp"
#include "harness/sweep/fault_scenario.hpp"
#include "harness/sweep/gpu_profiling.hpp"
#include "harness/sweep/gpu_select.hpp"
#include "harness/sweep/interference.hpp"
#include "harness/sweep/kernel_log.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/sweep/preflight.hpp"
#include "harness/sweep/resume.hpp"
#include "harness/sweep/run_reduction.hpp"
#include "harness/sweep/worker_pool.hpp"
#include "harness/sweep/xray.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

int max_procs(const SweepSpec& spec) {
  int n = 0;
  for (int p : spec.procs) n = std::max(n, p);
  return n;
}

/// --out, or a new folder results/<date>-<gpu>[-<scenario>][-<i>], made here by one mkdir (two
/// sweeps started at once never pick the same one).
fs::path choose_out_dir(const SweepSpec& spec, const Environment& env) {
  if (!spec.out_dir.empty()) return spec.out_dir;
  std::string label = spec.demo ? std::string("demo-no-gpu") : env.gpu ? gpu_slug(env.gpu->name) : "cpu";
  if (spec.scenario != Scenario::sweep) label += "-" + std::string(scenario_name(spec.scenario));
  return make_new_results_dir(label);
}

// An exec worker kills its command itself at --timeout (and reports it); the pool's own limit, a
// little later, is the backstop for a worker that cannot.
constexpr double kExecTimeoutMargin_s = 10;

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// "0=512M": CUDA_MPS_PINNED_DEVICE_MEM_LIMIT for the client's device (ordinal 0 of what it sees).
std::string pinned_limit_value(std::uint64_t bytes) { return "0=" + std::to_string(std::max<std::uint64_t>(1, bytes >> 20)) + "M"; }

/// The workers of run `run`: processes (timeslice, mps) or one process with N instances (in-process).
int worker_processes(const RunSpec& run) { return run.mode.in_process() ? 1 : run.procs; }

/// exec as the run's workload or as its background: its copies log, and get a margin on --timeout.
bool has_user_program(const RunSpec& run) { return runs_user_program(run.workload) || runs_user_program(run.background); }

WorkerLaunch make_launch(const SweepSpec& spec, const RunSpec& run, const Environment& env, MpsSession* session,
                         const fs::path& out_dir) {
  WorkerLaunch launch;
  launch.exe = env.worker_exe;
  std::vector<std::string> base;
  if (has_user_program(run))
    base.insert(base.end(), {"--exec-log-dir", (out_dir / "exec" / run.run_id()).string(),
                             "--exec-timeout", fmt_num(spec.run_timeout_s, 9)});
  if (run.tasks > 0) {
    base.insert(base.end(), {"--tasks", std::to_string(run.tasks)});
  } else {
    base.insert(base.end(), {"--duration-s", fmt_num(run.duration_s, 9)});
  }
  base.insert(base.end(), {"--warmup", std::to_string(warmup_tasks(spec, run.workload))});
  if (run.mode.in_process()) {
    base.insert(base.end(), {"--instances", std::to_string(run.procs), "--layout",
                             run.mode.kind == ModeKind::streams ? "streams" : "threads"});
    if (run.mode.kind == ModeKind::green) base.insert(base.end(), {"--green", "--green-sms", std::to_string(run.mode.green_sms)});
    launch.cores_per_worker = run.procs;  // a host thread (threads, green) per instance, each on a core
  }
  launch.args = workload_worker_args(run.workload, run_params(spec, run));
  launch.args.insert(launch.args.end(), base.begin(), base.end());
  if (spec.scenario == Scenario::interference) add_interference_args(run, spec, base, launch.args, launch.args_for_worker);
  if (run.scenario.is_xray()) add_xray_args(run, spec, base, launch.args, launch.args_for_worker);
  if (spec.cpu_stand_in) {
    launch.args.emplace_back("--cpu-stand-in");
    for (auto& [worker, args] : launch.args_for_worker) args.emplace_back("--cpu-stand-in");
  }
  launch.cpus = env.worker_cpus;
  if (run.scenario == RunKind::fault) launch.args_for_worker[run.procs - 1] = faulter_args(run, spec, run.procs - 1);
  launch.env_unset = {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY",
                      "CUDA_MPS_CLIENT_PRIORITY", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "CUDA_DEVICE_MAX_CONNECTIONS"};
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

/// Every worker that got as far as READY must have run in the mode asked for.
void check_mps_expectation(RunRecord& record, const PoolResult& pool) {
  if (runs_user_program(record.spec.workload)) return;  // no context of its own: exec_proof.hpp checks its copies
  for (const WorkerResult& w : pool.workers) {
    if (!w.ready || w.ready_info.mps_enabled == record.spec.mode.mps) continue;
    mark_failed(record, RunStatus::mode_mismatch,
                "worker " + std::to_string(w.index) +
                    (record.spec.mode.mps ? " did not run as an MPS client" : " ran as an MPS client"));
  }
}

/// Under a pinned memory limit, a worker whose allocation failed hit its limit: say so.
void name_memory_limit_failures(PoolResult& pool, const RunSpec& run) {
  for (WorkerResult& w : pool.workers) {
    const std::uint64_t limit = run.mode.client_mem_limit(w.index);
    if (!limit || w.status != RunStatus::error) continue;
    if (w.reason.find("out of memory") == std::string::npos && w.reason.find("MemoryAllocation") == std::string::npos)
      continue;
    w.status = RunStatus::mps_mem_limit;
    w.reason = "exceeded its pinned device memory limit (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=" + pinned_limit_value(limit) +
               "): " + w.reason;
  }
}

void print_progress(const RunRecord& r, int done, int total, double seconds) {
  const SummaryRow& s = r.summary;
  const RunScenario& scenario = r.spec.scenario;
  std::cerr << "[" << done << "/" << total << "] " << r.spec.run_id() << ": " << s.status;
  if (s.status != RunStatus::ok) {
    std::cerr << " (" << s.reason << ")";
  } else if (scenario == RunKind::fault) {
    std::cerr << "  victims survived " << s.victims_survived << "/" << s.victims;
    if (s.victims_survived) std::cerr << ", slowdown " << fmt_fixed(s.victim_slowdown, 2) << "x";
    if (!std::isnan(s.mps_recovery_s)) std::cerr << ", MPS recovery " << fmt_fixed(s.mps_recovery_s, 2) << " s";
  } else if (scenario == RunKind::xray_busy) {
    std::cerr << "  slice " << fmt_fixed(s.xray_slice_ms, 3) << " ms, switch " << fmt_fixed(s.xray_switch_ms, 3)
              << " ms, each context ran " << fmt_fixed(100 * s.xray_on_share, 1) << "% of the time";
  } else if (scenario == RunKind::xray_wait) {
    std::cerr << "  a short step waited " << fmt_fixed(s.xray_wait_ms, 3) << " ms (p99 " << fmt_fixed(s.xray_wait_p99_ms, 3) << ")";
  } else if (scenario == RunKind::xray_gaps) {
    std::cerr << "  an idle queue kept the GPU " << fmt_fixed(100 * s.xray_idle_kept_share, 1) << "% of the time, hold "
              << (s.xray_hold_bound > 0 ? ">= " : "") << fmt_num(s.xray_hold_us, 3) << " us";
  } else if (scenario == RunKind::xray_turns) {
    std::cerr << "  per-step " << fmt_fixed(s.task_mean_ms, 3) << " ms, a turn " << fmt_fixed(s.xray_turn_ms, 3) << " ms";
    if (!std::isnan(s.xray_turn_switch_ms)) std::cerr << " (" << fmt_fixed(s.xray_turn_switch_ms, 3) << " ms beyond its kernel)";
  } else if (scenario == RunKind::interference) {
    std::cerr << "  foreground p99 " << fmt_fixed(s.fg_latency_p99_ms, 3) << " ms";
    if (!std::isnan(s.fg_p99_vs_alone)) std::cerr << " (" << fmt_fixed(s.fg_p99_vs_alone, 2) << "x alone)";
    if (!std::isnan(s.bg_throughput_kept)) std::cerr << ", background kept " << fmt_fixed(s.bg_throughput_kept, 2);
  } else {
    std::cerr << "  per-task " << fmt_fixed(s.task_mean_ms, 3) << " ms";
    if (!std::isnan(s.slowdown_vs_alone)) std::cerr << " (" << fmt_fixed(s.slowdown_vs_alone, 2) << "x alone)";
    std::cerr << "  " << fmt_fixed(s.throughput_tasks_per_s, 1) << " tasks/s";
    if (!std::isnan(s.burst_ms))
      std::cerr << "  burst " << fmt_num(s.burst_ms, 3) << " ms, GPU busy " << fmt_fixed(100 * s.gpu_busy_share, 0) << "%";
  }
  if (s.status == RunStatus::ok && !s.reason.empty()) std::cerr << "  note: " << s.reason;  // e.g. an exec metric that read nothing
  std::cerr << "  [" << fmt_fixed(seconds, 1) << " s]\n";
}

/// The harness's own time around a run (see SummaryRow).
struct Overhead {
  double settle_s = 0, startup_s = 0, teardown_s = 0;
};

/// What a run's record needs from before and after its round besides the pool's result.
struct RunExtras {
  std::vector<pid_t> servers_before;  ///< fault under MPS: the servers before the fault
  XidLines xid_before;                ///< fault: the kernel log's Xid lines before the run
  std::optional<GpmMetrics> gpm;      ///< GPM metrics over the round
};

/// A round that has run: everything its record is made from.
struct FinishedRound {
  const ModeBlock* block = nullptr;
  RunSpec run;
  PoolResult pool;
  Overhead overhead;
  std::optional<RunExtras> extras;        ///< none for a set that never started
  const MpsClientWatch* watch = nullptr;  ///< exec under MPS: the clients the daemon saw
  MpsSession* session = nullptr;          ///< null when time-sliced
  double seconds = 0;                     ///< wall time of the round, for the progress line
};

/// NVML's sampling period during a sweep: 100 ms, or BENCH_MPS_MONITOR_MS (a diagnostic: does the
/// sampling disturb what it watches? 0 samples nothing, and the runs' NVML columns stay empty). Read
/// once; a value that is not 0-60000 ms is said on stderr and the default kept.
std::chrono::milliseconds monitor_period() {
  static const std::chrono::milliseconds period = [] {
    const char* v = std::getenv("BENCH_MPS_MONITOR_MS");
    if (!v || !*v) return std::chrono::milliseconds(100);
    char* end = nullptr;
    const long ms = std::strtol(v, &end, 10);
    if (*end == '\0' && ms >= 0 && ms <= 60000) return std::chrono::milliseconds(ms);
    std::cerr << "bench_mps: BENCH_MPS_MONITOR_MS='" << v << "' is not 0-60000 ms; sampling every 100 ms\n";
    return std::chrono::milliseconds(100);
  }();
  return period;
}

class Sweep {
 public:
  Sweep(const SweepSpec& spec, Environment env, fs::path out, std::optional<ResumeState> resumed,
        const nlohmann::json& cpus)
      : spec_(spec), env_(std::move(env)), out_(std::move(out)), writer_(out_),
        monitor_(monitor_period().count() > 0 ? env_.nvml.get() : nullptr, monitor_period(), spec_.profile_gpu),
        started_(std::chrono::steady_clock::now()) {
    if (resumed) {
      meta_ = resumed->meta;
      meta_.set_status(SweepStatus::running);
      if (!meta_.resumed_utc) meta_.resumed_utc.emplace();
      meta_.resumed_utc->push_back(utc_timestamp());
      recorded_ = resumed->recorded_ids;
      records_ = resumed->recorded;
      for (const SummaryRecord& r : records_)
        if (r.status != RunStatus::ok) ++failed_;
    } else {
      meta_ = make_meta(spec, env_.gpu, env_.mps_control);
    }
    for (const auto& [w, bytes] : env_.footprint_bytes) {
      if (!meta_.gpu) meta_.gpu.emplace();
      if (!meta_.gpu->footprint_bytes) meta_.gpu->footprint_bytes.emplace();
      (*meta_.gpu->footprint_bytes)[w] = static_cast<long>(bytes);
    }
    meta_.cpus = cpus;
    if (spec_.profile_gpu)  // docs/PROFILE.md
      meta_.gpu_profile = nlohmann::json{{"library", env_.profiler_library}, {"gap_us", spec_.profile_gap_us},
                                         {"folders", "profiles/<run_id>/w<worker>/profile-<pid>.json"}};
    add_device_meta(meta_, spec_, env_);  // --device, --cpus, --external-mps (harness/sweep/gpu_select)
    if (env_.nvml && meta_.gpu) {
      meta_.gpu->conditions_start = conditions_now();
      const std::string gpm = env_.nvml->gpm_unavailable();
      meta_.gpu->gpm = gpm.empty() ? "available" : "unavailable: " + gpm;
    }
    save_meta();
  }

  int run() {
    plan_ = plan_sweep(spec_);
    const std::vector<ModeBlock>& blocks = plan_;
    int total = 0;
    for (const auto& b : blocks)
      for (const auto& s : b.sets) total += static_cast<int>(s.runs.size());
    std::cerr << "bench_mps: " << total << " runs";
    if (!recorded_.empty()) std::cerr << " (" << recorded_.size() << " already recorded)";
    std::cerr << " -> " << out_.string() << "\n";
    done_ = static_cast<int>(recorded_.size());
    total_ = total;
    int next_index = 0;
    for (const ModeBlock& block : blocks) {
      if (stop_ || stop_signal().load()) break;
      bool pending = false;
      for (const RunSpec& r : block.runs()) {
        pending |= !recorded_.count(r.run_id());
        next_index = std::max(next_index, r.index + 1);
      }
      if (pending) run_block(block);
    }
    if (noise_target_applies(spec_)) run_to_noise_target(next_index);
    return finish();
  }

 private:
  /// --noise-target: one more repeat of every configuration still too noisy, round after round, until
  /// all meet it or reach --max-repeats, or the next set would not fit in what is left of
  /// --noise-time-cap (each set's time estimated from the configuration's runs so far).
  void run_to_noise_target(int next_index) {
    const auto start = std::chrono::steady_clock::now();
    int added = 0;
    bool capped = false;
    for (;;) {
      if (stop_ || stop_signal().load()) break;
      const double left = spec_.noise_time_cap_s - seconds_between(start, std::chrono::steady_clock::now());
      bool left_out = false;
      const std::vector<ModeBlock> more = plan_extra_repeats(config_noise(records_, plan_, spec_.noise_target_pct / 100),
                                                             spec_, next_index, left, &left_out);
      if (more.empty()) {
        capped = left_out;
        break;
      }
      for (const ModeBlock& b : more) total_ += static_cast<int>(b.sets.size());
      if (added == 0) std::cerr << "bench_mps: more repeats for configurations above the noise target (--noise-target "
                                << fmt_num(spec_.noise_target_pct) << "%)\n";
      for (const ModeBlock& b : more) {
        if (stop_ || stop_signal().load()) break;
        run_block(b);
        added += static_cast<int>(b.sets.size());
      }
    }
    const std::vector<ConfigNoise> final_noise = config_noise(records_, plan_, spec_.noise_target_pct / 100);
    meta_.noise = noise_json(final_noise, spec_, added, seconds_between(start, std::chrono::steady_clock::now()), capped);
    noise_misses_ = noise_misses(final_noise, spec_, capped);
  }

  void run_block(const ModeBlock& block) {
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
    server_checked_ = false;
    warm_up_exec(block, session.get());
    for (const WorkerSetPlan& set : block.sets) {
      if (stop_ || stop_signal().load()) break;
      std::vector<RunSpec> pending;
      for (const RunSpec& r : set.runs)
        if (!recorded_.count(r.run_id())) pending.push_back(r);
      if (!pending.empty()) run_set(block, pending, session.get());
    }
    finish_closing();  // before the block's daemon quits
    if (session) {
      try {
        session->quit();
      } catch (const MpsError& e) {
        std::cerr << "bench_mps: warning: " << e.what() << "\n";
      }
    }
  }

  /// exec: the block's untimed warm-up runs of one copy of the command (exec_warmup.hpp), into meta.json.
  void warm_up_exec(const ModeBlock& block, MpsSession* session) {
    const std::optional<RunSpec> copy = exec_warmup_run(block, recorded_);
    if (!copy || spec_.exec_warmups == 0 || stop_ || stop_signal().load()) return;
    const auto launch_for = [&](const RunSpec& warm) { return make_launch(spec_, warm, env_, session, out_); };
    if (!meta_.exec_warmup_runs) meta_.exec_warmup_runs = nlohmann::json::array();
    meta_.exec_warmup_runs->push_back(run_exec_warmups(block, *copy, spec_.exec_warmups, launch_for, limits(*copy), stop_signal()));
    save_meta();
  }

  /// The pending runs of one configuration, one GO round each, on as few sets of worker processes as
  /// they need: a set that fails is closed and the next run starts a fresh one. A set's workers exit
  /// while the next set starts (see Closing).
  void run_set(const ModeBlock& block, const std::vector<RunSpec>& pending, MpsSession* session) {
    std::size_t next = 0;
    while (next < pending.size() && !stop_ && !stop_signal().load()) {
      const RunSpec& first = pending[next];
      const bool overlap = may_overlap(first) && spec_.settle_s <= 0;  // --settle: idle after the exit
      if (!overlap) finish_closing();  // a fault or exec run starts on an idle machine
      if (stop_) return;
      const auto t0 = std::chrono::steady_clock::now();
      const double settled = settle();
      std::unique_ptr<MpsClientWatch> watch;
      WorkerLaunch launch = make_launch(spec_, first, env_, session, out_);
      if (profiled(first)) add_profiling_env(launch, first, env_.profiler_library, out_);
      auto set = std::make_unique<WorkerSet>(std::move(launch), worker_processes(first), limits(first), stop_signal(),
                                             pool_hooks(first, session, watch));
      const bool started = set->start();
      finish_closing();  // the last set has exited before this one's first round: no timed overlap
      if (stop_) return;
      const Overhead o{settled, set->overhead().startup_s, set->overhead().teardown_s};
      if (!started) {
        PoolResult failed = set->finish();
        if (failed.interrupted_by) return stop_interrupted(first);
        FinishedRound round{&block, first, std::move(failed), o, std::nullopt, nullptr, session, seconds_since(t0)};
        record(round);
        ++next;
        continue;
      }
      run_rounds(block, pending, next, std::move(set), watch, session, {t0, o, overlap});
    }
  }

  /// How a set began: when, its start-up, and whether its workers may exit while the next set starts.
  struct SetStart {
    std::chrono::steady_clock::time_point t0;
    Overhead overhead;  ///< settle and start-up, charged to the set's first round
    bool overlap = false;
  };

  /// The rounds of a started set, from pending[next], while it stays usable; its last round is
  /// recorded once its workers have exited (now, or while the next set starts: Closing).
  void run_rounds(const ModeBlock& block, const std::vector<RunSpec>& pending, std::size_t& next,
                  std::unique_ptr<WorkerSet> set, std::unique_ptr<MpsClientWatch>& watch, MpsSession* session,
                  const SetStart& start) {
    bool first_round = true;
    while (next < pending.size() && set->usable()) {
      const RunSpec& run = pending[next];
      const auto r0 = std::chrono::steady_clock::now();
      if (session && runs_user_program(run.workload)) watch = std::make_unique<MpsClientWatch>(*session);
      FinishedRound round{&block, run, {}, {}, extras_before(run, session), watch.get(), session, 0};
      const bool gpm = env_.nvml && env_.nvml->gpm_begin();
      round.pool = set->round();
      if (gpm) round.extras->gpm = env_.nvml->gpm_end();
      if (round.pool.interrupted_by) {
        set->finish();
        return stop_interrupted(run);
      }
      const bool last = next + 1 == pending.size() || !set->usable();
      if (first_round) round.overhead = {start.overhead.settle_s, start.overhead.startup_s, 0.0};
      round.seconds = seconds_since(first_round ? start.t0 : r0);
      first_round = false;
      ++next;
      if (!last) {
        record(round);
        continue;
      }
      if (start.overlap) {  // recorded once its workers have exited, while the next set starts
        set->begin_close();
        round.watch = nullptr;
        closing_ = Closing{std::move(set), std::move(round)};
        return;
      }
      round.pool = set->finish(std::move(round.pool));
      round.overhead.teardown_s = set->overhead().teardown_s;
      if (round.pool.interrupted_by) return stop_interrupted(run);
      record(round);
      return;
    }
  }

  /// --settle: the idle pause before a set; the seconds it took.
  double settle() const {
    const auto from = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(spec_.settle_s));
    return seconds_since(from);
  }

  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return seconds_between(t, std::chrono::steady_clock::now());
  }

  /// Under MPS: a client killed by the pool is first ended at the server; exec's clients are watched.
  static PoolHooks pool_hooks(const RunSpec& first, MpsSession* session, std::unique_ptr<MpsClientWatch>& watch) {
    PoolHooks hooks;
    if (!session) return hooks;
    hooks.before_kill = [session](const std::vector<pid_t>& pids) {
      try {
        for (pid_t server : session->server_pids())
          for (pid_t client : pids) session->terminate_client(server, client);
      } catch (const MpsError& e) {
        std::cerr << "bench_mps: warning: terminate_client failed: " << e.what() << "\n";
      }
    };
    if (runs_user_program(first.workload)) hooks.while_running = [&watch] { if (watch) watch->poll(); };
    return hooks;
  }

  /// What a fault run's record needs from before its round: the servers and the kernel log's Xid lines.
  RunExtras extras_before(const RunSpec& run, MpsSession* session) const {
    RunExtras extras;
    if (session && run.scenario == RunKind::fault) extras.servers_before = server_list(*session);
    if (run.scenario == RunKind::fault) extras.xid_before = read_xid_lines(fs::temp_directory_path());
    return extras;
  }

  /// A round cut short by a signal is not recorded: say so, and stop the sweep.
  void stop_interrupted(const RunSpec& run) {
    std::cerr << "bench_mps: " << run.run_id() << " interrupted; it is not recorded\n";
    stop_ = true;
  }

  /// --profile-gpu: the exec runs' copies are profiled (one run per set of workers, exec's rounds_per_set).
  bool profiled(const RunSpec& run) const { return spec_.profile_gpu && runs_user_program(run.workload); }

  /// Runs whose workers may exit while the next set starts: not the fault scenario's (its recovery is
  /// measured right after) and not exec's (its MPS proof and the user's processes want a quiet end).
  static bool may_overlap(const RunSpec& run) { return !run.scenario.is_fault() && !runs_user_program(run.workload); }

  /// Waits for the closing set's workers to exit and records its last run.
  void finish_closing() {
    if (!closing_) return;
    Closing c = std::move(*closing_);
    closing_.reset();
    c.round.pool = c.set->finish(std::move(c.round.pool));
    if (c.round.pool.interrupted_by) return stop_interrupted(c.round.run);
    c.round.overhead.teardown_s = c.set->overhead().teardown_s;
    record(c.round);
  }

  /// A finished round, reduced to its record, completed (references, proofs, scenarios) and written.
  void record(FinishedRound& round) {
    const RunSpec& run = round.run;
    name_memory_limit_failures(round.pool, run);
    const SummaryRecord* alone = run.scenario.is_plain_workload() ? reference(run, run.scenario, 1, run.workload) : nullptr;
    RunRecord record = reduce(round, alone);
    check_mps_expectation(record, round.pool);
    std::string profile_line;  // --profile-gpu: said under the run's progress line
    if (runs_user_program(run.workload)) {
      prove_exec_mode(record, round.pool, round.watch);
      note_exec_metric(record, round.pool);
      if (profiled(run))
        profile_line = record_gpu_profiles(record, out_, spec_.profile_gap_us,
                                           {env_.nvml ? "" : "no NVML: no GPU driver or GPU", monitor_.gpm_error()});
    }
    evaluate_scenario(round, record);
    SummaryRow& s = record.summary;
    if (round.session && !server_checked_ && s.workers_ok > 0 && (run.scenario.is_plain_workload() || run.scenario.is_xray())) {
      server_checked_ = true;
      verify_server(*round.session, *round.block, record);
    }
    set_coordinates(record, alone);
    note_device(round.pool);
    if (!write_record(record)) return;  // not recorded: the sweep stops (a full disk)
    tally(record, round);
    if (!profile_line.empty()) std::cerr << "  " << profile_line << "\n";
  }

  /// The pool's result reduced to the run's rows, with the harness's own time and the GPM metrics.
  RunRecord reduce(const FinishedRound& round, const SummaryRecord* alone) {
    const PoolResult& pool = round.pool;
    RunRecord record = make_run_record(round.run, pool, monitor_.take(pool.go_ns, pool.end_ns),
                                       alone ? alone->task_mean_ms : 0.0,
                                       env_.nvml ? env_.nvml->utilization_samples(pool.go_ns) : std::vector<UtilSample>{});
    record.gpm_periods = monitor_.take_gpm(pool.go_ns, pool.end_ns);
    SummaryRow& s = record.summary;
    s.settle_s = round.overhead.settle_s;
    s.startup_s = round.overhead.startup_s;
    s.teardown_s = round.overhead.teardown_s;
    if (const auto& gpm = round.extras ? round.extras->gpm : std::nullopt) {
      s.gpm_sm_util = gpm->sm_util;
      s.gpm_sm_occupancy = gpm->sm_occupancy;
      s.gpm_dram_bw_util = gpm->dram_bw_util;
    }
    return record;
  }

  /// The scenario's own columns: the fault's victims and recovery, the X-ray's, the interference's ratios.
  void evaluate_scenario(FinishedRound& round, RunRecord& record) {
    const RunSpec& run = round.run;
    if (run.scenario == RunKind::fault) {
      const SummaryRecord* base = reference(run, RunKind::fault_baseline, run.procs - 1, run.workload);
      evaluate_fault_run(record, round.pool, base ? base->task_mean_ms : 0.0);
      if (round.extras)
        record.summary.driver_messages = new_driver_messages(round.extras->xid_before, read_xid_lines(fs::temp_directory_path()));
      if (round.session)
        measure_recovery(*round.session, run, round.pool, round.extras ? round.extras->servers_before : std::vector<pid_t>{}, record);
    }
    if (run.scenario.is_xray()) evaluate_xray_run(record, round.pool, reference(run, RunKind::xray_turns, 1, "xray"));
    if (run.scenario.is_interference())
      evaluate_interference_run(record, reference(run, RunKind::interference_fg, 1, spec_.foreground),
                                reference(run, RunKind::interference_bg, run.procs - 1, spec_.background));
  }

  /// The regime's coordinates (burst and duty alone) and the slowdown of an alone run (1).
  static void set_coordinates(RunRecord& record, const SummaryRecord* alone) {
    SummaryRow& s = record.summary;
    if (record.spec.scenario.is_plain_workload() && record.spec.procs == 1 && s.status == RunStatus::ok) {
      s.slowdown_vs_alone = 1.0;
      s.burst_alone_ms = s.burst_ms;
      s.duty_alone = s.gpu_busy_share;
    } else if (alone) {
      s.burst_alone_ms = alone->burst_ms;
      s.duty_alone = alone->gpu_busy_share;
    }
  }

  /// A written run: into the sweep's list, its time into the totals, its line on the screen.
  void tally(const RunRecord& record, const FinishedRound& round) {
    const SummaryRow& s = record.summary;
    records_.push_back(summary_record(record));
    if (!std::isnan(s.makespan_s)) timing_.timed_s += s.makespan_s;
    timing_.settle_s += round.overhead.settle_s;
    timing_.startup_s += round.overhead.startup_s;
    timing_.teardown_s += round.overhead.teardown_s;
    ++timing_.runs;
    if (s.status != RunStatus::ok) ++failed_;
    print_progress(record, ++done_, total_, round.seconds);
  }

  /// The recorded ok run of `run`'s repeat and mode with this scenario, N and workload (params too
  /// where the workload is the run's own), or null.
  const SummaryRecord* reference(const RunSpec& run, const RunScenario& scenario, int procs, const std::string& workload) const {
    for (const SummaryRecord& e : records_)
      if (e.repeat == run.repeat && e.mode == run.mode.name && e.scenario == scenario && e.procs == procs &&
          e.workload == workload && e.status == RunStatus::ok &&
          (workload != run.workload || scenario.is_interference() || base_params(e.params) == base_params(run.params)))
        return &e;
    return nullptr;
  }

  /// The run's parameters without what its scenario appended (the fault's delay, the X-ray's probe).
  static std::string base_params(std::string p) {
    for (const char* appended : {";fault_delay_ms=", ";probe="})
      if (const auto at = p.find(appended); at != std::string::npos) p = p.substr(0, at);
    return p;
  }

  PoolLimits limits(const RunSpec& run) const {
    PoolLimits l;
    l.ready_timeout_s = spec_.ready_timeout_s;
    l.run_timeout_s = spec_.run_timeout_s + (has_user_program(run) ? kExecTimeoutMargin_s : 0.0);
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
    probe.scenario = RunKind::plain;
    probe.tasks = 1;
    WorkerLaunch launch = make_launch(spec_, probe, env_, &session, out_);
    PoolLimits l = limits(probe);
    l.ready_timeout_s = std::min(l.ready_timeout_s, 20.0);
    l.run_timeout_s = std::min(l.run_timeout_s, 20.0);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < give_up && !stop_signal().load()) {
      const PoolResult p = run_worker_pool(launch, 1, l, stop_signal());
      if (!p.workers.empty() && p.workers.front().status == RunStatus::ok && !p.workers.front().tasks.empty()) {
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
      if (servers.empty()) mark_failed(record, RunStatus::mode_mismatch, "the MPS daemon lists no server after a client ran");
      if (meta_.mps && meta_.mps->modes)
        for (ModeMeta& m : *meta_.mps->modes)
          if (m.name == block.mode.name) {
            if (!m.server_pids) m.server_pids.emplace();
            m.server_pids->push_back(servers.empty() ? 0 : servers.front());
          }
    } catch (const MpsError& e) {
      mark_failed(record, RunStatus::mps_error, e.what());
    }
  }

  void note_device(const PoolResult& pool) {
    if (!meta_.gpu) return;
    for (const WorkerResult& w : pool.workers) {
      if (!w.ready || w.ready_info.cuda_runtime_version == 0) continue;
      if (!meta_.gpu->sm_count && !w.ready_info.mps_enabled && w.ready_info.instances == 1)
        meta_.gpu->sm_count = w.ready_info.sm_count_seen;
      meta_.gpu->cuda_runtime_version = w.ready_info.cuda_runtime_version;
      meta_.gpu->sm_clock_peak_khz = w.ready_info.clock_khz;
    }
  }

  /// Appends a run's rows; false (and the sweep stops) when a file cannot be written.
  bool write_record(const RunRecord& record) {
    try {
      writer_.append(record);
      return true;
    } catch (const FileWriteError& e) {
      stop_on_write_error(e);
      return false;
    }
  }

  /// false (and the sweep stops) when meta.json cannot be written.
  bool save_meta() {
    try {
      write_file_atomically(out_ / "meta.json", json_text(nlohmann::json(meta_), 2) + "\n");
      return true;
    } catch (const FileWriteError& e) {
      stop_on_write_error(e);
      return false;
    }
  }

  /// A full disk (or a file size limit) ends the sweep like a signal: no new run starts, the daemon
  /// quits, meta.json says interrupted where it still can, and the message says how to go on.
  void stop_on_write_error(const FileWriteError& e) {
    if (write_error_.empty()) write_error_ = e.what();
    stop_ = true;
  }

  /// The X-ray and the regime map, from summary.csv (the runs of an earlier, resumed part too); the
  /// X-ray's medians go into meta.json beside the time-slice policy they were measured under.
  void print_regime_tables() {
    std::vector<SummaryRecord> rows;
    try {
      rows = read_summary(out_ / "summary.csv");
    } catch (const std::exception& e) {
      std::cerr << "bench_mps: warning: cannot read back " << (out_ / "summary.csv").string() << ": " << e.what() << "\n";
      return;
    }
    const std::vector<XrayCell> xray = aggregate_xray(rows);
    meta_.xray = xray_json(xray);
    save_meta();
    print_xray_table(std::cout, xray);
    print_regime_table(std::cout, aggregate_regimes(rows));
  }

  /// exec's first runs much slower than the rest (slow_first_runs.hpp), from summary.csv (the runs of an
  /// earlier, resumed part too), into meta.json; the lines the sweep prints at its end.
  std::vector<std::string> note_slow_first_runs() {
    if (std::find(spec_.workloads.begin(), spec_.workloads.end(), "exec") == spec_.workloads.end()) return {};
    std::vector<std::string> lines;
    nlohmann::json list = nlohmann::json::array();
    try {
      for (const SlowFirstRun& slow : find_slow_first_runs(read_summary(out_ / "summary.csv"))) {
        lines.push_back(describe_slow_first_run(slow) + ": its first run was much slower than the rest (cold caches?); "
                        "warm it up with --exec-warmups" + (spec_.exec_warmups ? " (more of them)" : ""));
        list.push_back(slow_first_run_json(slow));
      }
    } catch (const std::exception& e) {
      lines.push_back("cannot read back " + (out_ / "summary.csv").string() + " for exec's first runs: " + e.what());
    }
    meta_.exec_slow_first_runs = list;
    return lines;
  }

  /// Where this invocation's wall time went: inside timed windows (each run's makespan) and the harness's own.
  nlohmann::json timing_json() const {
    const double wall = seconds_between(started_, std::chrono::steady_clock::now());
    return {{"wall_s", wall},
            {"timed_s", timing_.timed_s},
            {"timed_share", wall > 0 ? timing_.timed_s / wall : 0.0},
            {"startup_s", timing_.startup_s},
            {"settle_s", timing_.settle_s},
            {"teardown_s", timing_.teardown_s},
            {"runs", timing_.runs},
            {"note", "this invocation's runs; wall_s from the end of the preflight to the last run's record"}};
  }

  /// The GPU's conditions for meta.json: NVML's, and the time-slice policy nvidia-smi lists.
  nlohmann::json conditions_now() const {
    nlohmann::json c = conditions_json(env_.nvml->conditions());
    if (const auto policy = read_timeslice_policy(find_nvidia_smi(), env_.gpu ? env_.gpu->index : -1, env_.mps_base))
      c["timeslice_policy"] = *policy;
    return c;
  }

  int finish() {
    const int sig = stop_signal().load();
    meta_.finished_utc = utc_timestamp();
    if (env_.nvml && meta_.gpu) meta_.gpu->conditions_end = conditions_now();
    meta_.runs_recorded = static_cast<long>(records_.size());
    meta_.runs_failed = failed_;
    meta_.set_status(sig || !write_error_.empty() ? SweepStatus::interrupted
                     : !env_error_.empty()        ? SweepStatus::environment_error
                     : failed_                    ? SweepStatus::failed
                                                  : SweepStatus::complete);
    if (!write_error_.empty()) meta_.stop_reason = write_error_;
    const nlohmann::json timing = timing_json();
    meta_.timing = timing;
    if (const std::string e = monitor_.error(); !e.empty()) meta_.monitor_error = e;
    const std::vector<std::string> slow_first = note_slow_first_runs();
    const bool meta_saved = save_meta();
    std::cout << "\n";
    if (spec_.scenario == Scenario::fault) {
      print_fault_table(std::cout, records_);
    } else if (spec_.scenario == Scenario::interference) {
      print_interference_table(std::cout, aggregate_interference_runs(records_));
    } else if (spec_.scenario == Scenario::xray || spec_.scenario == Scenario::regimes) {
      print_regime_tables();
    } else {
      print_summary_table(std::cout, records_);
    }
    for (const std::string& line : slow_first) std::cerr << "bench_mps: warning: " << line << "\n";
    std::cout << "\nsweep: " << fmt_fixed(timing["wall_s"].get<double>(), 1) << " s, of which "
              << fmt_fixed(timing["timed_s"].get<double>(), 1) << " s timed ("
              << fmt_fixed(100.0 * timing["timed_share"].get<double>(), 0) << "%); harness: start-up "
              << fmt_fixed(timing["startup_s"].get<double>(), 1) << " s, settle " << fmt_fixed(timing["settle_s"].get<double>(), 1)
              << " s, teardown " << fmt_fixed(timing["teardown_s"].get<double>(), 1) << " s\n";
    if (!noise_misses_.empty()) std::cout << "\n" << noise_misses_;
    std::cout << "results: " << out_.string() << "\n";
    if (!write_error_.empty() && !sig) {
      std::error_code ec;
      if (!meta_saved && !fs::exists(out_ / "meta.json", ec)) {
        std::cerr << "bench_mps: " << write_error_ << "; stopped before meta.json was written: nothing to resume\n";
        return kExitEnvironment;
      }
      std::cerr << "bench_mps: " << write_error_ << "; stopped, " << (meta_saved ? "" : "meta.json still says running; ")
                << "finished runs are in " << out_.string() << " (make room, then continue with --resume " << out_.string()
                << ")\n";
      return kExitEnvironment;
    }
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
  SweepMeta meta_;
  ResultsWriter writer_;
  Monitor monitor_;
  std::chrono::steady_clock::time_point started_;
  std::set<std::string> recorded_;
  std::vector<ModeBlock> plan_;
  std::vector<SummaryRecord> records_;  ///< every run recorded so far (a resumed sweep's earlier ones too)
  int failed_ = 0, done_ = 0, total_ = 0;
  struct {
    double timed_s = 0, startup_s = 0, settle_s = 0, teardown_s = 0;
    int runs = 0;
  } timing_;
  bool stop_ = false;
  bool server_checked_ = false;
  std::string env_error_;
  std::string write_error_;  ///< the first file that could not be written, and why
  std::string noise_misses_;  ///< --noise-target: the configurations that missed it, one line each

  /// A set whose last round has run and whose workers are exiting; its round is recorded once they have.
  struct Closing {
    std::unique_ptr<WorkerSet> set;
    FinishedRound round;
  };
  std::optional<Closing> closing_;
};

}  // namespace

int run_sweep(const SweepSpec& spec) {
  check_out_dir(spec);
  if (spec.resume) check_same_sweep(spec, read_sweep_meta(spec.out_dir));
  Environment env = preflight(spec);  // before any repair: a machine that cannot run it changes nothing
  const fs::path out = choose_out_dir(spec, env);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw UsageError("--out: cannot create " + out.string() + ": " + ec.message());
  const OutDirClaim claim(out);  // one sweep per folder, from here until we return
  if (!spec.resume) check_fresh_out_dir(out);  // again, now that no one else can write there
  std::optional<ResumeState> resumed;
  if (spec.resume) resumed = prepare_resume(spec.out_dir);  // repairs only after every check passed
  if (env.lock) env.lock->record_out_dir(out);  // a second sweep of this GPU names it
  if (resumed)
    for (const std::string& line : resumed->repairs) std::cerr << "bench_mps: resume: " << line << "\n";
  install_stop_handlers();
  // Cores claimed against other bench_mps sweeps on this host; held until this function returns.
  PinnedCpus pinned;
  if (spec.pin_cpus) pinned = pin_cpus(default_core_claims_dir(), allowed_cpus(), max_procs(spec), env.device.describe());
  for (const std::string& w : pinned.warnings) std::cerr << "bench_mps: warning: " << w << "\n";
  const CpuPlan& cpus = pinned.plan;
  const std::string confined = confine_process(cpus.harness);  // before the monitor and any daemon start
  if (!confined.empty()) std::cerr << "bench_mps: warning: harness left unpinned: " << confined << "\n";
  env.worker_cpus = cpus.workers;
  nlohmann::json cpus_json = pinned.meta;
  cpus_json["workers"] = cpus.workers;
  cpus_json["harness"] = confined.empty() ? cpus.harness : std::vector<int>{};
  try {
    Sweep sweep(spec, std::move(env), out, std::move(resumed), cpus_json);
    return sweep.run();
  } catch (const FileWriteError& e) {  // the CSV headers, before any run
    throw EnvironmentError(std::string(e.what()) + "; nothing was measured");
  }
}

}  // namespace bench_mps::harness
