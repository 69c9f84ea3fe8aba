#include "harness/sweep/sweep.hpp"
#include "harness/common/json_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>
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
#include "harness/results/meta.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/sweep/core_claims.hpp"
#include "harness/sweep/noise_target.hpp"
#include "harness/sweep/cpu_affinity.hpp"
#include "harness/sweep/exec_gate.hpp"
#include "harness/sweep/exec_proof.hpp"
#include "harness/sweep/exec_warmup.hpp"
#include "harness/sweep/gpu_profiling.hpp"
#include "harness/sweep/gpu_select.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/sweep/preflight.hpp"
#include "harness/sweep/resume.hpp"
#include "harness/sweep/worker_pool.hpp"
#include "harness/sweep/launch.hpp"
#include "harness/sweep/progress.hpp"
#include "harness/sweep/recorder.hpp"
#include "harness/sweep/scenario_hooks.hpp"
#include "harness/sweep/start_meta.hpp"

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

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

class Sweep {
 public:
  Sweep(const SweepSpec& spec, Environment env, fs::path out, std::optional<ResumeState> resumed,
        const nlohmann::json& cpus)
      : spec_(spec),
        env_(std::move(env)),
        out_(std::move(out)),
        monitor_(monitor_period_from_env().count() > 0 ? env_.nvml.get() : nullptr, monitor_period_from_env(),
                 spec_.profile_gpu),
        recorder_(spec_, env_, out_, meta_, monitor_),
        gates_(spec_, out_, env_.profiler_library),
        started_(std::chrono::steady_clock::now()) {
    if (resumed) {
      meta_ = resumed->meta;
      meta_.set_status(SweepStatus::running);
      if (!meta_.resumed_utc) meta_.resumed_utc.emplace();
      meta_.resumed_utc->push_back(utc_timestamp());
      note_resumed_limits(meta_, spec_, meta_.resumed_utc->back(), resumed->recorded_ids.size());
      recorded_ = resumed->recorded_ids;
      recorder_.resume(resumed->recorded);
      sets_started_ = recorder_.last_set();
    } else {
      meta_ = make_meta(spec, env_.gpu, env_.mps_control);
    }
    add_start_meta(meta_, spec_, env_, cpus);  // harness/sweep/start_meta
    save_meta();
  }

  int run() {
    plan_ = plan_sweep(spec_);
    const std::vector<ModeBlock>& blocks = plan_;
    int total = 0;
    for (const auto& b : blocks)
      for (const auto& s : b.sets) total += static_cast<int>(s.runs.size());
    // A resumed --noise-target sweep: the repeats it added before are runs of no plan, counted in the total.
    const int added_before = recorded_beyond_plan();
    total += added_before;
    std::cerr << "bench_mps: " << total << " runs";
    if (!recorded_.empty()) {
      std::cerr << " (" << recorded_.size() << " already recorded";
      if (added_before > 0) std::cerr << ", " << added_before << " of them repeats --noise-target added";
      std::cerr << ")";
    }
    std::cerr << " -> " << out_.string() << "\n";
    recorder_.add_to_total(total);
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
  /// A resumed sweep counts what the invocations before it added: their runs (those of no plan) and their time
  /// (meta.json's noise, saved after every added block), which --noise-time-cap covers as well.
  void run_to_noise_target(int next_index) {
    const auto start = std::chrono::steady_clock::now();
    const double earlier_s = meta_.noise ? meta_.noise->value("added_s", 0.0) : 0.0;
    const auto spent = [&] { return earlier_s + seconds_between(start, std::chrono::steady_clock::now()); };
    bool capped = false, said_more = false;
    // What a round of added sets took over what it was estimated to take (start-up and a round each, the daemon's
    // start): the harness's own time between sets is in the first, not the second, so later rounds are planned
    // that much longer and the cap holds. The first round's: this invocation's planned runs', the same way.
    const SweepTiming so_far = recorder_.timing(seconds_between(started_, std::chrono::steady_clock::now()));
    double overrun = so_far.timed_s + so_far.startup_s > 0
                         ? std::max(1.0, so_far.wall_s / (so_far.timed_s + so_far.startup_s))
                         : 1.0;
    for (;;) {
      if (stop_ || stop_signal().load()) break;
      const double left = (spec_.noise_time_cap_s - spent()) / overrun;
      bool left_out = false;
      const std::vector<ConfigNoise> noise = config_noise(recorder_.records(), plan_, spec_.noise_target_pct / 100);
      const std::vector<ModeBlock> more = plan_extra_repeats(noise, spec_, next_index, left, &left_out);
      if (more.empty()) {
        capped = left_out;
        break;
      }
      for (const ModeBlock& b : more) recorder_.add_to_total(static_cast<int>(b.sets.size()));
      if (!said_more) {
        std::cerr << "bench_mps: more repeats for configurations above the noise target (--noise-target "
                  << fmt_num(spec_.noise_target_pct) << "%)\n";
        said_more = true;
      }
      const double round_start = spent();
      for (const ModeBlock& b : more) {
        if (stop_ || stop_signal().load()) break;
        run_block(b);
        note_noise(spent(), false);  // a sweep killed from here on resumes with this time spent
        save_meta();
      }
      if (const double estimated = planned_seconds(more, noise); estimated > 0)
        overrun = std::max(overrun, (spent() - round_start) / estimated);
    }
    noise_misses_ = noise_misses(note_noise(spent(), capped), spec_, capped);
  }

  /// meta.json's noise as the records stand: every repeat added so far (a resume's earlier ones too) and its time.
  std::vector<ConfigNoise> note_noise(double added_s, bool capped) {
    std::vector<ConfigNoise> noise = config_noise(recorder_.records(), plan_, spec_.noise_target_pct / 100);
    meta_.noise = noise_json(noise, spec_, recorded_beyond_plan(), added_s, capped);
    return noise;
  }

  /// The recorded runs the plan does not hold: the repeats --noise-target added.
  int recorded_beyond_plan() const {
    std::set<std::string> planned;
    for (const ModeBlock& b : plan_)
      for (const RunSpec& r : b.runs()) planned.insert(r.run_id());
    int beyond = 0;
    for (const SummaryRecord& r : recorder_.records()) beyond += planned.count(r.run_id) ? 0 : 1;
    return beyond;
  }

  /// nvidia-smi -i of the device measured: its UUID, else the key --device chose (never another GPU's index).
  std::string exclusive_target() const {
    if (env_.gpu && !env_.gpu->uuid.empty()) return env_.gpu->uuid;
    return env_.device.id.key.empty() ? "0" : env_.device.id.key;
  }

  void run_block(const ModeBlock& block) {
    std::unique_ptr<ExclusiveComputeMode> exclusive;
    std::unique_ptr<MpsSession> session;
    if (block.mode.mps) {
      try {
        if (spec_.set_exclusive)
          exclusive = std::make_unique<ExclusiveComputeMode>(env_.nvidia_smi, exclusive_target(), env_.mps_base);
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
    recorder_.new_block();
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
    const auto launch_for = [&](const RunSpec& warm) {
      WorkerLaunch launch = make_launch(spec_, warm, env_, session, out_);
      gates_.add_warmup_profiling(launch, warm);  // --exec-gate steady: where its steady part begins
      return launch;
    };
    if (!meta_.exec_warmup_runs) meta_.exec_warmup_runs = nlohmann::json::array();
    meta_.exec_warmup_runs->push_back(
        run_exec_warmups(block, *copy, spec_.exec_warmups, launch_for, limits(*copy), stop_signal()));
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
      if (!overlap) finish_closing();                                  // a fault or exec run starts on an idle machine
      if (stop_) return;
      const auto t0 = std::chrono::steady_clock::now();
      const double settled = settle();
      std::unique_ptr<MpsClientWatch> watch;
      WorkerLaunch launch = make_launch(spec_, first, env_, session, out_);
      if (profiled(first)) add_profiling_env(launch, first, env_.profiler_library, out_, spec_.exec_unit_range);
      const std::unique_ptr<ExecGate> gate = gates_.for_set(first, launch, recorder_.records());
      auto set = std::make_unique<WorkerSet>(std::move(launch), worker_processes(first), limits(first), stop_signal(),
                                             pool_hooks(first, session, watch));
      const int set_number = ++sets_started_;
      const bool started = set->start();
      const auto c0 = std::chrono::steady_clock::now();
      finish_closing();  // the last set has exited before this one's first round: no timed overlap
      const double closing_s = seconds_since(c0);  // the last set's recording (its server check): not this set's time
      if (stop_) return;
      const Overhead o{settled, set->overhead().startup_s, set->overhead().teardown_s};
      if (!started) {
        PoolResult failed = set->finish();
        if (failed.interrupted_by) return stop_interrupted(first);
        FinishedRound round{&block,       first,   std::move(failed), o,
                            std::nullopt, nullptr, session,           seconds_since(t0) - closing_s,
                            set_number,   1};
        record(round);
        ++next;
        continue;
      }
      run_rounds(block, pending, next, std::move(set), watch, session,
                 {t0, closing_s, o, overlap, set_number, gate.get()});
    }
  }

  /// How a set began: when, its start-up, and whether its workers may exit while the next set starts.
  struct SetStart {
    std::chrono::steady_clock::time_point t0;
    double closing_s = 0;  ///< seconds after t0 spent recording the set before (left out of this one's time)
    Overhead overhead;     ///< settle and start-up, charged to the set's first round
    bool overlap = false;
    int set = 0;                     ///< its number in the sweep (summary.csv's `set`)
    const ExecGate* gate = nullptr;  ///< exec: its start gate (exec_gate.hpp)
  };

  /// The rounds of a started set, from pending[next], while it stays usable; its last round is
  /// recorded once its workers have exited (now, or while the next set starts: Closing).
  void run_rounds(const ModeBlock& block, const std::vector<RunSpec>& pending, std::size_t& next,
                  std::unique_ptr<WorkerSet> set, std::unique_ptr<MpsClientWatch>& watch, MpsSession* session,
                  const SetStart& start) {
    bool first_round = true;
    int round_number = 0;
    while (next < pending.size() && set->usable()) {
      const RunSpec& run = pending[next];
      const auto r0 = std::chrono::steady_clock::now();
      if (session && runs_user_program(run.workload)) watch = std::make_unique<MpsClientWatch>(*session);
      FinishedRound round{&block,      run,     {}, {},        extras_before(run, session),
                          watch.get(), session, 0,  start.set, ++round_number};
      const bool gpm = env_.nvml && env_.nvml->gpm_begin();
      round.pool = set->round();
      if (gpm) round.extras->gpm = env_.nvml->gpm_end();
      if (start.gate) round.extras->gate = start.gate->read(), round.extras->gate_point = start.gate->point();
      if (round.pool.interrupted_by) {
        set->finish();
        return stop_interrupted(run);
      }
      const bool last = next + 1 == pending.size() || !set->usable();
      if (first_round) round.overhead = {start.overhead.settle_s, start.overhead.startup_s, 0.0};
      round.seconds = first_round ? seconds_since(start.t0) - start.closing_s : seconds_since(r0);
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
    if (runs_user_program(first.workload))
      hooks.while_running = [&watch] {
        if (watch) watch->poll();
      };
    return hooks;
  }

  /// What the run's scenario notes before its round (the fault's servers and kernel log).
  static RunExtras extras_before(const RunSpec& run, MpsSession* session) {
    RunExtras extras;
    if (const auto before = run_hooks(run.scenario).before_round) before(run, session, extras);
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

  /// The round's record written (recorder.hpp); a file that cannot be written stops the sweep.
  void record(FinishedRound& round) {
    try {
      recorder_.record(round);
    } catch (const FileWriteError& e) {
      stop_on_write_error(e);
    }
  }

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

  PoolLimits limits(const RunSpec& run) const { return run_limits(spec_, run); }

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

  int finish() {
    const int sig = stop_signal().load();
    meta_.finished_utc = utc_timestamp();
    if (env_.nvml && meta_.gpu) meta_.gpu->conditions_end = gpu_conditions_now(env_);
    const int failed = recorder_.failed();
    meta_.runs_recorded = static_cast<long>(recorder_.records().size());
    meta_.runs_failed = failed;
    meta_.set_status(sig || !write_error_.empty() ? SweepStatus::interrupted
                     : !env_error_.empty()        ? SweepStatus::environment_error
                     : failed                     ? SweepStatus::failed
                                                  : SweepStatus::complete);
    // Why it stopped before its plan's end (a resume that finishes clears an earlier invocation's).
    meta_.stop_reason = !write_error_.empty() ? std::optional<std::string>(write_error_)
                        : !env_error_.empty() ? std::optional<std::string>(env_error_)
                                              : std::nullopt;
    SweepTiming timing = recorder_.timing(seconds_between(started_, std::chrono::steady_clock::now()));
    if (meta_.timing) timing.add_earlier(*meta_.timing);  // resumed: the invocations before this one
    meta_.timing = timing.json();
    if (const std::string e = monitor_.error(); !e.empty()) meta_.monitor_error = e;
    const std::vector<std::string> slow_first = note_slow_first_runs(spec_, out_, meta_);
    const bool meta_saved = save_meta();
    if (!meta_saved && !spec_.resume && recorder_.records().empty() && !fs::exists(out_ / "meta.json")) {
      // Not one file of results could be started (a full disk, a file size limit): what was written goes again,
      // so the same --out can be given again once there is room.
      std::error_code ec;
      for (const char* name : {"summary.csv", "runs.csv", "tasks.csv", "timeline.csv", "meta.json.tmp"})
        fs::remove(out_ / name, ec);
      std::cerr << "bench_mps: " << write_error_ << "; stopped before meta.json was written: nothing was measured, "
                << "and the files begun in " << out_.string() << " were removed\n";
      return kExitEnvironment;
    }
    std::cout << "\n";
    ClosingInput closing{recorder_.records(), out_, meta_};
    if (closing_tables(spec_.scenario)(std::cout, closing)) save_meta();
    for (const std::string& line : slow_first) std::cerr << "bench_mps: warning: " << line << "\n";
    std::cout << "\n" << timing.line() << "\n";
    if (!noise_misses_.empty()) std::cout << "\n" << noise_misses_;
    std::cout << "results: " << out_.string() << "\n";
    if (!write_error_.empty() && !sig) {
      std::error_code ec;
      if (!meta_saved && !fs::exists(out_ / "meta.json", ec)) {
        std::cerr << "bench_mps: " << write_error_ << "; stopped before meta.json was written: nothing to resume\n";
        return kExitEnvironment;
      }
      std::cerr << "bench_mps: " << write_error_ << "; stopped, "
                << (meta_saved ? "" : "meta.json still says running; ") << "finished runs are in " << out_.string()
                << " (make room, then continue with --resume " << out_.string() << ")\n";
      return kExitEnvironment;
    }
    if (sig) {
      std::cerr << "bench_mps: stopped by " << strsignal(sig) << "; finished runs are in " << out_.string()
                << " (continue with --resume " << out_.string() << ")\n";
      return 128 + sig;
    }
    if (!env_error_.empty()) {  // the runs it stopped are in no file: --resume runs them once the machine allows
      // The hint is a line of its own, unprefixed: the "bench_mps:" line stays the last, the one advise quotes.
      std::cerr << "  the runs from there on did not start; finished runs are in " << out_.string()
                << " (once that is mended, continue with --resume " << out_.string() << ")\n"
                << "bench_mps: " << env_error_ << "\n";
      return kExitEnvironment;
    }
    if (failed) std::cerr << "bench_mps: " << failed << " run(s) failed; see the status column of summary.csv\n";
    return failed ? kExitFailed : kExitOk;
  }

  SweepSpec spec_;
  Environment env_;
  fs::path out_;
  SweepMeta meta_;
  Monitor monitor_;
  RunRecorder recorder_;
  ExecGates gates_;
  std::chrono::steady_clock::time_point started_;
  std::set<std::string> recorded_;
  std::vector<ModeBlock> plan_;
  bool stop_ = false;
  int sets_started_ = 0;  ///< worker sets started so far (a resumed sweep's earlier ones included)
  std::string env_error_;
  std::string write_error_;   ///< the first file that could not be written, and why
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
  const fs::path made = spec.out_dir.empty() ? out : first_missing_folder(out);  // results/<date>-...: made above
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw UsageError("--out: cannot create " + out.string() + ": " + ec.message());
  OutDirClaim claim(out, made, spec.resume ? "--resume" : "--out");  // one sweep per folder, until we return
  if (!spec.resume) check_fresh_out_dir(out);                        // again, now that no one else can write there
  std::optional<ResumeState> resumed;
  if (spec.resume) resumed = prepare_resume(spec.out_dir, &spec);  // repairs only after every check passed
  if (env.lock) env.lock->record_out_dir(out);                     // a second sweep of this GPU names it
  if (resumed)
    for (const std::string& line : resumed->repairs) std::cerr << "bench_mps: resume: " << line << "\n";
  install_stop_handlers();
  // Cores claimed against other bench_mps sweeps on this host; held until this function returns.
  PinnedCpus pinned;
  if (spec.pin_cpus)
    pinned = pin_cpus(default_core_claims_dir(), allowed_cpus(), max_procs(spec), env.device.describe(),
                      spec.cores_per_worker);
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
    const int rc = sweep.run();
    if (!spec.resume && !fs::exists(out / "meta.json", ec)) claim.remove_made_folders_on_release();  // wrote nothing
    return rc;
  } catch (const FileWriteError& e) {  // the CSV headers, before any run
    throw EnvironmentError(std::string(e.what()) + "; nothing was measured");
  }
}

}  // namespace bench_mps::harness
