#include "harness/advise/advise.hpp"

#include <chrono>
#include <map>
#include <iostream>

#include "harness/advise/advise_beside.hpp"
#include "harness/advise/advise_ladder.hpp"
#include "harness/advise/advise_output.hpp"
#include "harness/common/csv_table.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/json_text.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/signals.hpp"
#include "harness/conform/child_sweeps.hpp"
#include "harness/conform/tool_setup.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/workers/workload_config.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/sweep/exec_gate.hpp"
#include "harness/sweep/preflight.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// Sweep options advise sets itself: given after `--` they would contradict its plan.
constexpr const char* kOwnOptions[] = {"--procs",        "--modes",    "--repeats",   "--out",         "--device",
                                       "--gpus",         "--scenario", "--resume",    "--profile-gpu", "--cpu-stand-in",
                                       "--noise-target", "--demo",     "--workloads", "--command",     "--settle",
                                       "--exec-warmups", "--rounds"};

/// Where a limit's sweep goes: mps:auto in sweeps/limits, the doubled share in sweeps/limits-2x.
std::string limit_folder(const Mode& mode) { return mode.auto_pct ? "limits" : "limits-2x"; }

/// Where a set added to settle the verdict goes: sweeps/more-<round>-<mode>-n<N>.
std::string more_folder(int round, const std::string& mode, int n) {
  return "more-" + std::to_string(round) + "-" + mode + "-n" + std::to_string(n);
}

/// UsageError for an option after `--` that advise sets itself (it would contradict its plan).
void refuse_own_options(const std::vector<std::string>& sweep_args) {
  for (const std::string& a : sweep_args)
    for (const char* own : kOwnOptions)
      if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
        throw UsageError(std::string("advise sets ") + own + " itself; leave it out of the options after -- (" +
                         "--command or --workload name what to run)");
}

std::string subject_of(const SweepSpec& s) {
  if (runs_user_program(s.workloads.front())) return "`" + s.params.exec.command + "`";
  const std::string params = workload_params_string(s.workloads.front(), s.params);
  return s.workloads.front() + (params.empty() ? "" : " (" + params + ")");
}

struct Progress {
  int step = 0, steps = 5;
  void say(const std::string& what) const { std::cerr << "[" << step << "/" << steps << "] " << what << std::endl; }
};

/// "N=4: time-sliced 1.02x (predicted 1.00x), MPS 3.91x (predicted 4.00x)" for the screen.
std::string rung_line(const std::vector<MeasuredCell>& cells, const std::vector<PredictedCell>& predicted,
                      int n) {  // per unit
  std::string s = "N=" + std::to_string(n) + ":";
  for (const ModeKind mode : kLadderModes) {
    const MeasuredCell* m = find_measured(cells, mode, n);
    s += std::string(mode == ModeKind::timeslice ? " time-sliced " : ", MPS ");
    s += !m ? "not run" : m->ok ? fmt_times(m->throughput()) : "failed (" + m->problem + ")";
    if (const PredictedCell* p = find_predicted(predicted, mode, n))
      s += p->calibration ? std::string(" (the MPS model's calibration)")
                          : " (predicted " + fmt_times(p->throughput()) + ")";
  }
  return s + " the throughput of one copy alone";
}

/// A program profiled alone: the simulator's predictions from its trace (docs/PREDICT.md); bench_mps's own
/// workloads (no trace: their events place them) and a program whose profile cannot be replayed: the regime
/// model's (docs/REGIMES.md).
std::vector<PredictedCell> predictions(const fs::path& alone_dir, const UnitChoice& unit, double gap_us,
                                       const AloneFacts& alone, const SchedulerFacts& sched, int max_procs) {
  if (unit.exec && alone.placed() && alone.source == AloneSource::profile) {
    try {
      return simulate_ladder(alone_dir, unit.metric, gap_us, sched, max_procs);
    } catch (const UsageError&) {  // no replayable profile: the regime model places it as before
    }
  }
  return predict_ladder(alone, sched, max_procs);
}

class AdviseRun {
 public:
  AdviseRun(const AdviseSpec& spec, const SweepSpec& workload, ChildSweeps& sweeps, Advice& advice)
      : spec_(spec),
        unit_{runs_user_program(workload.workloads.front()), !workload.params.exec.metric.empty()},
        gap_us_(workload.profile_gap_us),
        args_(spec, workload),
        sweeps_(sweeps),
        a_(advice) {}

  void scheduler() {
    progress_.step = 1;
    if (!spec_.xray_from.empty()) {
      a_.scheduler = read_scheduler(spec_.xray_from);
      a_.scheduler_source = "read from " + spec_.xray_from;
    } else {
      progress_.say("the time-slice X-ray: 2 contexts that always have work, short steps beside them ...");
      const SweepOutcome o = sweeps_.run("xray", args_.xray());
      if (!o.has_runs()) throw std::runtime_error("the X-ray's sweep failed: " + o.last_error);
      a_.scheduler = read_scheduler(o.dir);
      a_.scheduler_source = "measured by sweeps/xray";
    }
    progress_.say("time slice " + fmt_sig(a_.scheduler.slice_ms) + " ms, a turn costs " +
                  fmt_sig(a_.scheduler.turn_cost_ms) + " ms beyond its work");
  }

  void alone() {
    progress_.step = 2;
    progress_.say(std::string("one copy alone, time-sliced") + (unit_.exec ? ", profiled (CUPTI)" : "") + " ...");
    const SweepOutcome o = sweeps_.run("alone", args_.alone());
    if (!o.has_runs()) throw std::runtime_error("one copy alone did not run: " + o.last_error);
    a_.alone = read_alone(o.dir, unit_, gap_us_, &a_.alone_window);
    if (unit_.exec) {  // the ladder's copies held where the alone run's steady part began: they run together
      std::string note;
      fs::path profiled;
      std::error_code ec;
      for (const auto& run : fs::directory_iterator(fs::path(o.dir) / "profiles", ec))
        if (fs::is_directory(run.path() / "w0", ec)) profiled = run.path() / "w0";
      args_.set_gate(resolve_gate_point("steady", profiled, note));
      progress_.say(note);
    }
    a_.basis = choose_basis(parse_basis(spec_.basis), a_.alone);
    progress_.say(
        "deciding " +
        std::string(a_.basis.basis == Basis::unit ? "per " + std::string(unit_word(a_.alone.unit)) : "per whole run") +
        ": " + a_.basis.why);
    a_.predicted = predictions(o.dir, unit_, gap_us_, a_.alone, a_.scheduler, spec_.max_procs);
    if (!a_.alone.placed()) {
      progress_.say("not placed on the map: " + a_.alone.problem + "; the ladder alone will answer");
      return;
    }
    progress_.say(
        "duty " + fmt_fixed(100 * a_.alone.duty, 1) + " %, bursts " + fmt_sig(a_.alone.point.burst_ms) + " ms every " +
        fmt_sig(a_.alone.point.step_ms) + " ms, footprint " +
        (std::isfinite(a_.alone.point.footprint) ? fmt_fixed(100 * a_.alone.point.footprint, 1) + " %" : "unknown") +
        "; predicted at N=" + std::to_string(spec_.max_procs) + ": " + predicted_at(spec_.max_procs));
  }

  void ladder() {
    progress_.step = 3;
    const std::vector<int> rungs = ladder_rungs(spec_);
    const bool explicit_rungs = !spec_.ladder.empty();
    double last_seconds = 0, last_best = NAN;
    a_.ladder_end = "every rung ran (N up to " + std::to_string(rungs.back()) + ")";
    a_.ladder_end_kind = LadderEnd::complete;
    for (std::size_t i = 0; i < rungs.size(); ++i) {
      const int n = rungs[i];
      if (stop_signal().load()) return end(LadderEnd::signal, "stopped by a signal");
      if (i > 0 && sweeps_.seconds_left() < last_seconds * n / rungs[i - 1])
        return end(LadderEnd::budget, "the time budget would not hold N=" + std::to_string(n) + " (" +
                                          fmt_fixed(sweeps_.seconds_left(), 0) + " s left)");
      progress_.say("ladder N=" + std::to_string(n) + ", time-sliced and MPS, " + std::to_string(kSetsPerRung) +
                    " worker sets each ...");
      SweepOutcome o;
      try {
        o = sweeps_.run("ladder-" + std::to_string(n), args_.rung(n));
      } catch (const BudgetSpent& e) {
        return end(LadderEnd::budget, std::string("the time budget ran out before N=") + std::to_string(n));
      }
      last_seconds = o.seconds;
      seconds_per_set_[n] = o.seconds / (2 * kSetsPerRung);
      if (!o.has_runs())
        return end(LadderEnd::sweep_failed, "N=" + std::to_string(n) + "'s sweep failed: " + o.last_error);
      if (o.exit_code == kExitEnvironment) {  // what ran is kept; the machine stopped the rest (MPS unavailable, ...)
        read_cells(o.dir, unit_, a_.ladder);
        set_losses(a_.ladder);
        a_.ladder_exit = kExitEnvironment;
        const std::string said = o.last_error.rfind("bench_mps: ", 0) == 0 ? o.last_error.substr(11) : o.last_error;
        return end(LadderEnd::sweep_stopped, "N=" + std::to_string(n) + "'s sweep stopped: " + said);
      }
      read_cells(o.dir, unit_, a_.ladder);
      set_losses(a_.ladder);
      fit_to_ladder(a_.predicted, a_.alone, a_.ladder);  // MPS: one copy alone under MPS, N=2's contention
      progress_.say(rung_line(a_.ladder, a_.predicted, n) + " (" + fmt_fixed(o.seconds, 0) + " s)");
      if (const std::string why = stop_after(n, last_best); !why.empty() && !explicit_rungs)
        return end(LadderEnd::decided, why);
      last_best = best_throughput(a_.ladder, n, a_.basis.basis);
    }
  }

  /// While MPS against time-slicing is open (its interval across the line), one more worker set for the best
  /// cell of each mode, as far as kMaxSetsPerCell and the budget go.
  void settle() {
    progress_.step = 4;
    for (int round = 1;; ++round) {
      const Pick p = pick(a_.ladder, spec_.slo_p99_ms, a_.basis.basis);
      if (!p.open()) {
        if (round > 1)
          a_.sets_end =
              "decided after " + std::to_string(round - 1) + " more worker set" + (round == 2 ? "" : "s") + " each";
        progress_.say(round > 1 ? a_.sets_end
                                : "MPS against time-slicing: " + std::string(verdict_name(p.verdict)) +
                                      (std::isfinite(p.gain.ratio) ? " at " + times_with_interval(p.gain) : ""));
        return;
      }
      if (stop_signal().load()) return settled("stopped by a signal");
      const std::vector<const MeasuredCell*> cells{p.best_ts, p.best_mps};
      double need = 0;
      for (const MeasuredCell* c : cells) need += seconds_per_set_.count(c->procs) ? seconds_per_set_.at(c->procs) : 0;
      if (const std::string why = why_no_more_sets(p, sweeps_.seconds_left(), need); !why.empty()) return settled(why);
      progress_.say("MPS " + times_with_interval(p.gain) + " the best time-sliced: across the " +
                    fmt_fixed(100 * kDecisionBand, 0) + " % line, one more worker set each ...");
      for (const MeasuredCell* c : cells) {
        const std::string mode = c->mode.name;
        const int n = c->procs;
        try {
          const SweepOutcome o = sweeps_.run(more_folder(round, mode, n), args_.more(mode, n));
          if (!o.has_runs()) return settled("a set's sweep failed: " + o.last_error);
          read_cells(o.dir, unit_, a_.ladder);  // c may move: the cells are read again from a_.ladder
          set_losses(a_.ladder);
        } catch (const BudgetSpent&) {
          return settled("the time budget ran out");
        }
      }
    }
  }

  void limits() {
    progress_.step = 4;
    progress_.step = 5;
    const Pick p = pick(a_.ladder, spec_.slo_p99_ms, a_.basis.basis);
    if (p.verdict != AdviceVerdict::mps || p.procs < 2) {
      progress_.say("thread limits: not measured (MPS is not advised)");
      return;
    }
    // mps:auto (100/N % each, the device plugin's rule), then, where it cost more than 5 %, twice that share.
    for (const Mode& limit : AdviseChildArgs::limit_modes(p.procs)) {
      const std::string& mode = limit.name;
      if (!a_.limits.empty() && (!a_.limits.back().ok || limit_keeps(*p.cell, a_.limits.back()).lo >= kLimitKeeps))
        break;
      progress_.say(mode + " at N=" + std::to_string(p.procs) + " ...");
      try {
        const SweepOutcome o = sweeps_.run(limit_folder(limit), args_.limit(mode, p.procs));
        std::vector<MeasuredCell> cells;
        if (o.has_runs()) read_cells(o.dir, unit_, cells);
        if (cells.empty()) {
          cells.emplace_back();
          cells.back().procs = p.procs;
          cells.back().mode = limit;
          cells.back().problem = "its sweep failed: " + o.last_error;
        }
        a_.limits.push_back(cells.front());
        progress_.say(mode + ": " +
                      (a_.limits.back().ok
                           ? times_with_interval(limit_keeps(*p.cell, a_.limits.back())) + " unlimited MPS's speed"
                           : a_.limits.back().problem));
      } catch (const BudgetSpent&) {
        progress_.say("thread limits: the time budget ran out");
        return;
      }
    }
  }

 private:
  std::string predicted_at(int n) const {
    std::string s;
    for (const ModeKind mode : kLadderModes)
      if (const PredictedCell* p = find_predicted(a_.predicted, mode, n))
        s += (s.empty() ? "" : ", ") + std::string(mode == ModeKind::timeslice ? "time-sliced " : "MPS ") +
             fmt_times(p->throughput());
    return s.empty() ? "-" : s + " the throughput of one copy";
  }

  /// Why the ladder ends after rung n ("" to go on).
  std::string stop_after(int n, double previous_best) const {
    bool any_ok = false, any_within_slo = false;
    for (const MeasuredCell& c : a_.ladder)
      if (c.procs == n && c.ok) {
        any_ok = true;
        any_within_slo = any_within_slo || std::isnan(spec_.slo_p99_ms) || c.p99_ms <= spec_.slo_p99_ms;
      }
    if (!any_ok)
      return "no run at N=" + std::to_string(n) + " ended ok (memory, the client limit or the program: see the table)";
    if (!any_within_slo)
      return "both modes broke the p99 target of " + fmt_sig(spec_.slo_p99_ms) + " ms at N=" + std::to_string(n);
    const double best = best_throughput(a_.ladder, n, a_.basis.basis);
    if (n > 1 && std::isfinite(previous_best) && best < (1 + kKneeGain) * previous_best)
      return "the knee: N=" + std::to_string(n) + " raised the best throughput by " +
             fmt_fixed(100 * (best / previous_best - 1), 1) + " % (under " + fmt_fixed(100 * kKneeGain, 0) + " %)";
    return "";
  }

  void settled(const std::string& why) {
    a_.sets_end = why;
    progress_.say("the verdict stays open: " + why);
  }

  void end(LadderEnd kind, const std::string& why) {
    a_.ladder_end = why;
    a_.ladder_end_kind = kind;
    progress_.say("ladder stops: " + why);
  }

  const AdviseSpec& spec_;
  UnitChoice unit_;
  double gap_us_;
  AdviseChildArgs args_;
  ChildSweeps& sweeps_;
  Advice& a_;
  Progress progress_;
  std::map<int, double> seconds_per_set_;  ///< N: one worker set of one mode, as the ladder's rung took
};

/// Everything the ladder's cells decide: losses and throughputs on the ladder's own N=1, the MPS
/// predictions anchored to one copy alone under MPS, and the recommendation.
void finish_advice(Advice& advice, double slo_p99_ms) {
  set_losses(advice.ladder);
  if (std::isfinite(advice.check_tolerance_pct))  // --check-metric: a limit's copies against one copy alone
    for (MeasuredCell& limit : advice.limits)
      limit.check_problem = check_problem(limit, advice.alone.check_value, advice.check_tolerance_pct);
  fit_to_ladder(advice.predicted, advice.alone, advice.ladder);
  if (!advice.limits.empty()) {  // their losses on the ladder's basis
    std::vector<MeasuredCell> with = advice.ladder;
    with.insert(with.end(), advice.limits.begin(), advice.limits.end());
    set_losses(with);
    std::copy(with.end() - static_cast<long>(advice.limits.size()), with.end(), advice.limits.begin());
  }
  advice.recommendation =
      recommend(advice.alone, advice.ladder, advice.predicted, advice.limits, slo_p99_ms, advice.basis.basis);
  // A ladder that stopped before its end (a signal, the budget, a sweep that failed) says so first, also when
  // its folder is redone: what did not run is not in the advice.
  if (stopped_early(advice.ladder_end_kind))
    advice.recommendation.headline =
        "The ladder stopped early (" + advice.ladder_end + "): " + advice.recommendation.headline;
  if (const std::optional<JobLength> job = asked_job_length(advice.meta))  // --job-length: that job's advice too
    advice.recommendation.headline +=
        " " + job_sentence(job_verdict(advice.ladder, advice.alone.unit, *job), advice.alone.unit);
}

void print_advice(const Advice& advice, const fs::path& out) {
  std::cout << advice.recommendation.headline << "\n";
  for (const std::string& r : advice.recommendation.reasons) std::cout << "  - " << r << "\n";
  std::cout << "advice: " << (out / "advice.md").string() << "\n" << std::flush;
}

}  // namespace

std::vector<std::string> AdviseSpec::workload_args() const {
  std::vector<std::string> args;
  if (!command.empty())
    args = {"--workloads", "exec", "--command", command};
  else if (!workload.empty())
    args = {"--workloads", workload};
  if (!check_metric.empty()) args.insert(args.end(), {"--exec-check", check_metric});
  args.insert(args.end(), sweep_args.begin(), sweep_args.end());
  return args;
}

std::string why_no_more_sets(const Pick& p, double seconds_left, double seconds_per_round) {
  if (!p.open()) return "";
  if (p.best_ts->sets.size() >= kMaxSetsPerCell && p.best_mps->sets.size() >= kMaxSetsPerCell)
    return std::to_string(kMaxSetsPerCell) + " worker sets each and the interval still crosses the line";
  if (seconds_left < 1.5 * seconds_per_round + 5)
    return "the time budget would not hold another set (" + fmt_fixed(seconds_left, 0) +
           " s left, a set of each takes about " + fmt_fixed(seconds_per_round, 0) + " s)";
  return "";
}

std::vector<int> ladder_rungs(const AdviseSpec& spec) {
  if (!spec.ladder.empty()) return spec.ladder;
  std::vector<int> rungs;
  for (int n = 1; n < spec.max_procs; n *= 2) rungs.push_back(n);
  rungs.push_back(spec.max_procs);
  return rungs;
}

SweepSpec advise_workload(const AdviseSpec& spec) {
  refuse_own_options(spec.sweep_args);
  std::vector<std::string> args = spec.workload_args();
  args.insert(args.end(), {"--procs", "1", "--modes", "timeslice"});
  SweepSpec s = parse_sweep_args(args);
  if (s.workloads.size() != 1) throw UsageError("advise takes one workload (--workload NAME or --command CMD)");
  if (spec.cpu_stand_in && workload_needs_gpu(s.workloads.front())) {  // its stand-in must exist
    args.push_back("--cpu-stand-in");
    parse_sweep_args(args);
  }
  return s;
}

std::vector<std::string> advise_common_args(const std::string& device_key) {
  std::vector<std::string> common{"--settle", "0", "--noise-target", "0"};
  if (!device_key.empty()) common.insert(common.end(), {"--device", device_key});
  return common;
}

AdviseChildArgs::AdviseChildArgs(const AdviseSpec& spec, const SweepSpec& workload)
    : workload_(spec.workload_args()),
      cpu_stand_in_(spec.cpu_stand_in),
      exec_(runs_user_program(workload.workloads.front())),
      stand_in_(spec.cpu_stand_in && workload_needs_gpu(workload.workloads.front())) {}

std::vector<std::string> AdviseChildArgs::with_workload(std::vector<std::string> args) const {
  std::vector<std::string> w = workload_;
  w.insert(w.end(), args.begin(), args.end());
  if (stand_in_) w.push_back("--cpu-stand-in");
  const bool own_gate = std::find(workload_.begin(), workload_.end(), "--exec-gate") != workload_.end();
  if (exec_ && !gate_.empty() && !own_gate) w.insert(w.end(), {"--exec-gate", gate_});
  return w;
}

std::vector<std::string> AdviseChildArgs::xray() const {
  std::vector<std::string> args{"--scenario", "xray", "--procs", "2", "--xray-busy-ms", "300", "--repeats", "1"};
  if (cpu_stand_in_) args.push_back("--cpu-stand-in");
  return args;
}

std::vector<std::string> AdviseChildArgs::alone() const {
  std::vector<std::string> args = with_workload({"--procs", "1", "--modes", "timeslice", "--repeats", "1"});
  if (exec_) args.push_back("--profile-gpu");
  return args;
}

std::vector<std::string> AdviseChildArgs::rung(int n) const {
  std::vector<std::string> args = with_workload(
      {"--procs", std::to_string(n), "--modes", "timeslice,mps", "--repeats", std::to_string(kSetsPerRung)});
  if (exec_) args.insert(args.end(), {"--exec-warmups", "0"});  // the alone run warmed the program up
  return args;
}

std::vector<std::string> AdviseChildArgs::more(const std::string& mode, int n) const {
  std::vector<std::string> args = with_workload({"--procs", std::to_string(n), "--modes", mode, "--repeats", "1"});
  if (exec_) args.insert(args.end(), {"--exec-warmups", "0"});  // as the ladder's rungs
  return args;
}

std::vector<std::string> AdviseChildArgs::limit(const std::string& mode, int n) const {
  return with_workload({"--procs", std::to_string(n), "--modes", mode, "--repeats", std::to_string(kSetsPerRung)});
}

std::vector<Mode> AdviseChildArgs::limit_modes(int n) {
  const int doubled = 2 * ((100 + n - 1) / n);
  std::vector<Mode> modes{parse_mode("mps:auto")};
  if (doubled < 100) modes.push_back(parse_mode("mps:" + std::to_string(doubled)));
  return modes;
}

std::vector<std::string> beside_args(const AdviseSpec& spec) {
  const bool exec = !spec.command.empty();
  std::vector<std::string> args{"--scenario",     "interference",
                                "--foreground",   exec ? "exec" : spec.workload,
                                "--background",   spec.beside,
                                "--procs",        "2",
                                "--modes",        kBesideModes,
                                "--repeats",      std::to_string(kBesideSets),
                                "--settle",       "0",
                                "--noise-target", "0"};
  if (exec)
    args.insert(args.end(), {"--command", spec.command});
  else
    args.insert(args.end(), {"--rounds", "1"});  // each set its own processes (exec runs once per worker anyway)
  refuse_own_options(spec.sweep_args);
  args.insert(args.end(), spec.sweep_args.begin(), spec.sweep_args.end());
  // The CPU stand-ins (tests) where a workload needs a GPU; the cpu workload is its own.
  if (spec.cpu_stand_in && ((!exec && workload_needs_gpu(spec.workload)) || workload_needs_gpu(spec.beside)))
    args.push_back("--cpu-stand-in");
  if (!spec.device.empty()) args.insert(args.end(), {"--device", spec.device});
  return args;
}

namespace {

/// beside.json (`meta` with the advice) and beside.md into `out`, and the advice on screen.
void write_beside(const fs::path& out, nlohmann::json meta, const BesideAdvice& advice) {
  meta["beside_format_version"] = kBesideFormatVersion;
  meta["beside"] = beside_json(advice);
  const std::string machine = machine_line(meta, "no GPU (CPU stand-ins: the numbers describe the CPU, not a GPU)");
  write_file_atomically(out / "beside.json", json_text(meta, 2) + "\n");
  write_file_atomically(out / "beside.md", beside_markdown(advice, machine));
  std::cout << advice.headline << "\n";
  for (const std::string& r : advice.reasons) std::cout << "  - " << r << "\n";
  std::cout << "advice: " << (out / "beside.md").string() << "\n" << std::flush;
}

/// A stored advice.json or beside.json, parsed (ResultsError naming the file where it is not JSON).
nlohmann::json read_stored_json(const fs::path& file) {
  const std::string text = read_input_file(file);  // a folder or device standing there, named as such
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw ResultsError(file.string() + ": not JSON: " + one_line(e.what()));
  }
}

/// The ladder an advice.json stored, checked like a results folder's numbers (issue 35): a whole N from 2 to the
/// largest advise takes as max_procs, a ladder of distinct whole N from 1 up to it.
std::vector<int> stored_ladder(const nlohmann::json& settings, const fs::path& file) {
  const nlohmann::json& max_procs = settings.at("max_procs");
  if (!max_procs.is_number_integer() || max_procs.get<long long>() < 2 || max_procs.get<long long>() > kAdviseMaxProcs)
    throw ResultsError(file.string() + ": advise.max_procs " + max_procs.dump().substr(0, 40) +
                       " is not a whole N from 2 to " + std::to_string(kAdviseMaxProcs));
  std::vector<int> rungs;
  const nlohmann::json& ladder = settings.at("ladder");
  if (!ladder.is_array() || ladder.empty() || ladder.size() > static_cast<std::size_t>(kAdviseMaxProcs))
    throw ResultsError(file.string() + ": advise.ladder is not a list of N");
  for (const nlohmann::json& n : ladder) {
    if (!n.is_number_integer() || n.get<long long>() < 1 || n.get<long long>() > kAdviseMaxProcs ||
        std::find(rungs.begin(), rungs.end(), n.get<int>()) != rungs.end())
      throw ResultsError(file.string() + ": advise.ladder holds " + n.dump().substr(0, 40) +
                         ", not a distinct whole N from 1 to " + std::to_string(kAdviseMaxProcs));
    rungs.push_back(n.get<int>());
  }
  return rungs;
}

/// The measured cells of an advise folder's child sweeps (`sweeps`): each rung, the sets added to settle the
/// verdict (in their order), the thread limits (in the order they ran: limit_folder).
void read_stored_cells(const fs::path& sweeps, const UnitChoice& unit, const std::vector<int>& rungs, Advice& advice) {
  std::error_code ec;
  for (const int n : rungs)
    if (fs::is_regular_file(sweeps / ("ladder-" + std::to_string(n)) / "summary.csv", ec))
      read_cells(sweeps / ("ladder-" + std::to_string(n)), unit, advice.ladder);
  for (int round = 1; round <= kMaxSetsPerCell; ++round)
    for (const MeasuredCell& c : std::vector<MeasuredCell>(advice.ladder))
      if (fs::is_regular_file(sweeps / more_folder(round, c.mode.name, c.procs) / "summary.csv", ec))
        read_cells(sweeps / more_folder(round, c.mode.name, c.procs), unit, advice.ladder);
  for (const std::string folder : {"limits", "limits-2x"})
    if (fs::is_regular_file(sweeps / folder / "summary.csv", ec)) {
      std::vector<MeasuredCell> cells;
      read_cells(sweeps / folder, unit, cells);
      if (!cells.empty()) advice.limits.push_back(cells.front());
    }
}

/// `--redo DIR` on a side-by-side folder: its advice again from sweeps/beside, with this build's rules.
int redo_beside(const fs::path& dir) {
  const fs::path file = dir / "beside.json";
  const nlohmann::json stored = read_stored_json(file);
  BesideAdvice advice;
  try {
    if (const int v = stored.at("beside_format_version").get<int>(); v < 1 || v > kBesideFormatVersion)
      throw ResultsError(file.string() + ": beside_format_version " + std::to_string(v) + ", this bench_mps reads " +
                         std::to_string(kBesideFormatVersion));
    const fs::path summary = dir / "sweeps" / "beside" / "summary.csv";
    std::error_code ec;
    if (!fs::is_regular_file(summary, ec))
      throw ResultsError(summary.string() + " not found: the pair's sweep never wrote it");
    advice = beside_from_rows(read_summary(summary), stored.at("beside").at("a").get<std::string>(),
                              stored.at("beside").at("b").get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(file.string() + ": " + json_value_problem(e));
  }
  write_beside(dir, stored, advice);
  // Like the ladder: a comparison that could not be made (a side that never ran ok) is a failed run.
  const auto ran = [&](bool timesliced) {
    return std::any_of(advice.modes.begin(), advice.modes.end(), [&](const BesideMode& m) {
      return m.ok && is_plain(m.mode, ModeKind::timeslice) == timesliced;
    });
  };
  return ran(true) && ran(false) ? kExitOk : kExitFailed;
}

}  // namespace

int redo_advice(const std::string& dir_text, const std::string& basis, const std::string& job_length) {
  const fs::path dir = dir_text;
  const fs::path file = dir / kAdviceJsonFile;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec) && fs::is_regular_file(dir / "beside.json", ec)) {
    if (!basis.empty())
      throw UsageError("--basis: a side-by-side advice has no basis to choose (" + dir.string() + ")");
    if (!job_length.empty())
      throw UsageError("--job-length: a side-by-side advice has no ladder to compose a job from (" + dir.string() +
                       ")");
    return redo_beside(dir);
  }
  if (!fs::exists(file, ec)) throw UsageError("--redo: " + file.string() + " not found (not an advise folder)");
  const nlohmann::json stored = read_stored_json(file);
  Advice advice;
  try {
    if (const int v = stored.at("advice_format_version").get<int>(); v < 1 || v > kAdviceFormatVersion)
      throw ResultsError(file.string() + ": advice_format_version " + stored.at("advice_format_version").dump() +
                         ", this bench_mps reads " + std::to_string(kAdviceFormatVersion));
    advice.meta = advice_meta(stored);
    const nlohmann::json& settings = stored.at("advise");
    const SweepSpec workload = parse_sweep_args(settings.at("workload_args").get<std::vector<std::string>>());
    const UnitChoice unit{runs_user_program(workload.workloads.front()), !workload.params.exec.metric.empty()};
    advice.subject = stored.at("subject").get<std::string>();
    const nlohmann::json& sched = stored.at("scheduler");
    const auto number = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : NAN; };
    advice.scheduler = {number(sched.at("slice_ms")), number(sched.at("switch_ms")), number(sched.at("turn_cost_ms"))};
    advice.scheduler.hold_us = sched.contains("hold_us") ? number(sched.at("hold_us")) : NAN;  // since the gaps probe
    advice.scheduler_source = sched.at("source").get<std::string>();
    advice.ladder_end = stored.at("ladder_end").get<std::string>();
    if (!stored.contains("ladder_end_kind")) {  // stored before the kind was: from its words, once
      advice.ladder_end_kind = ladder_end_of_stored_words(advice.ladder_end);
    } else if (const auto kind = parse_ladder_end(stored.at("ladder_end_kind").get<std::string>())) {
      advice.ladder_end_kind = *kind;
    } else {
      throw ResultsError(file.string() + ": ladder_end_kind '" +
                         stored.at("ladder_end_kind").get<std::string>().substr(0, 40) + "' is no way a ladder ends");
    }
    advice.seconds = stored.at("seconds").get<double>();
    advice.alone = read_alone(dir / "sweeps" / "alone", unit, workload.profile_gap_us, &advice.alone_window);
    // The basis as asked then (format 2 and older: auto), unless --basis asks again (and is stored).
    if (!basis.empty()) advice.meta["advise"]["basis"] = basis;
    if (!job_length.empty()) advice.meta["advise"]["job_length"] = job_length;
    const std::string asked = settings.contains("basis") && settings.at("basis").is_string()
                                  ? settings.at("basis").get<std::string>()
                                  : "auto";
    if (basis.empty() && !is_basis_word(asked))
      throw ResultsError(file.string() + ": advise.basis '" + asked.substr(0, 40) + "' is not auto, unit or run");
    advice.basis = choose_basis(parse_basis(basis.empty() ? asked : basis), advice.alone);
    advice.sets_end = stored.value("sets_end", std::string());
    if (!workload.params.exec.check.empty()) {  // --check-metric: its tolerance as stored (1 % by default)
      const nlohmann::json& tol =
          settings.contains("check_tolerance_pct") ? settings.at("check_tolerance_pct") : nlohmann::json(1.0);
      if (!tol.is_number() || !(tol.get<double>() >= 0 && tol.get<double>() <= 100))
        throw ResultsError(file.string() + ": advise.check_tolerance_pct " + tol.dump().substr(0, 40) +
                           " is not a percentage");
      advice.check_tolerance_pct = tol.get<double>();
    }
    const nlohmann::json& max_procs = settings.at("max_procs");
    const std::vector<int> rungs = stored_ladder(settings, file);
    advice.predicted = predictions(dir / "sweeps" / "alone", unit, workload.profile_gap_us, advice.alone,
                                   advice.scheduler, max_procs.get<int>());
    read_stored_cells(dir / "sweeps", unit, rungs, advice);
    const double slo = number(settings.at("slo_p99_ms"));  // null (none) or a target --slo-p99-ms would take
    if (!settings.at("slo_p99_ms").is_null() && !(slo >= 0.001 && slo <= 1e7))
      throw ResultsError(file.string() + ": advise.slo_p99_ms " + settings.at("slo_p99_ms").dump().substr(0, 40) +
                         " is not a p99 target in ms (0.001 to 1e7, or null)");
    finish_advice(advice, slo);
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(file.string() + ": " + json_value_problem(e));
  }
  write_advice(dir, advice);
  print_advice(advice, dir);
  return advice.recommendation.verdict == AdviceVerdict::none ? kExitFailed : kExitOk;
}

namespace {

/// `--beside B`: the subject and one copy of B side by side (harness/advise/advise_beside.hpp).
int run_beside(const AdviseSpec& spec) {
  const bool exec = !spec.command.empty();
  const std::vector<std::string> args = beside_args(spec);
  SweepSpec checked = parse_sweep_args(args);  // what the child sweep would refuse, refused here (exit 2)
  checked.device = spec.device;
  preflight(checked);
  const std::optional<GpuStaticInfo> gpu = read_tool_gpu(spec.cpu_stand_in, "advise");
  const std::string mps_control = require_mps_control("advise");
  const std::string a = exec ? "`" + spec.command + "`" : spec.workload;
  const ToolOutDir tool_out =
      make_tool_out_dir(spec.out_dir, gpu, "beside-" + (exec ? std::string("exec") : spec.workload) + "-" + spec.beside,
                        "beside.json", "a side-by-side advice", {"beside.md", "sweeps"});
  const fs::path& out = tool_out.path;
  const OutDirClaim claim(out, tool_out.made);
  install_stop_handlers();
  std::cerr << "bench_mps advise: " << a << " beside " << spec.beside << ", " << kBesideSets
            << " worker sets per mode (" << kBesideModes << ") -> " << out.string() << std::endl;
  ChildSweeps sweeps(out / "sweeps", {}, spec.budget_s);
  SweepOutcome o;
  try {
    o = sweeps.run("beside", args);
  } catch (const BudgetSpent& e) {
    throw std::runtime_error(std::string("the pair's sweep did not start: ") + e.what());
  }
  BesideAdvice advice;
  if (o.has_runs())
    advice = beside_from_rows(read_summary(o.dir / "summary.csv"), a, spec.beside);
  else
    advice.headline = "No advice: the pair's sweep failed (" + o.last_error + ").";
  nlohmann::json j = make_machine_meta(spec.argv, gpu, mps_control);
  j["status"] = stop_signal().load() ? "interrupted" : "complete";
  write_beside(out, j, advice);
  if (const int sig = stop_signal().load()) return 128 + sig;
  if (o.exit_code == kExitEnvironment) return kExitEnvironment;
  // Like the ladder: a comparison that could not be made (a side that never ran ok) is a failed run.
  const auto ran = [&](bool timesliced) {
    return std::any_of(advice.modes.begin(), advice.modes.end(), [&](const BesideMode& m) {
      return m.ok && is_plain(m.mode, ModeKind::timeslice) == timesliced;
    });
  };
  return ran(true) && ran(false) ? kExitOk : kExitFailed;
}

}  // namespace

int run_advise(const AdviseSpec& spec) {
  if (!spec.redo_dir.empty()) return redo_advice(spec.redo_dir, spec.basis, spec.job_length);
  if (!spec.beside.empty()) return run_beside(spec);
  const SweepSpec workload = advise_workload(spec);
  {  // the machine, checked as the largest rung's sweep will check it (exit 3 before anything is written)
    SweepSpec largest = workload;
    largest.procs = {spec.max_procs};
    largest.modes = parse_modes("timeslice,mps");
    largest.device = spec.device;
    largest.cpu_stand_in = spec.cpu_stand_in && workload_needs_gpu(workload.workloads.front());
    preflight(largest);  // its GPU lock is let go at once: each child sweep takes it in turn
  }
  const DeviceChoice device = choose_tool_device(spec.device, spec.cpu_stand_in);
  const std::optional<GpuStaticInfo> gpu = read_tool_gpu(spec.cpu_stand_in, "advise");
  const std::string mps_control = require_mps_control("advise");
  const ToolOutDir tool_out = make_tool_out_dir(spec.out_dir, gpu, "advise-" + workload.workloads.front(),
                                                kAdviceJsonFile, "advice", {"advice.md", "plots", "sweeps"});
  const fs::path& out = tool_out.path;
  const OutDirClaim claim(out, tool_out.made);
  install_stop_handlers();
  const auto start = std::chrono::steady_clock::now();

  Advice advice;
  advice.subject = subject_of(workload);
  if (!spec.check_metric.empty()) advice.check_tolerance_pct = spec.check_tolerance_pct;
  advice.meta = make_machine_meta(spec.argv, gpu, mps_control);
  advice.meta["advise"] = {
      {"budget_s", spec.budget_s},
      {"max_procs", spec.max_procs},
      {"ladder", ladder_rungs(spec)},
      {"ladder_given", !spec.ladder.empty()},
      {"slo_p99_ms", std::isnan(spec.slo_p99_ms) ? nlohmann::json(nullptr) : nlohmann::json(spec.slo_p99_ms)},
      {"workload_args", spec.workload_args()},
      {"device", device.id.key},
      {"basis", spec.basis.empty() ? "auto" : spec.basis},
      {"job_length", spec.job_length.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.job_length)},
      {"check_tolerance_pct",
       spec.check_metric.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.check_tolerance_pct)},
      {"cpu_stand_in", spec.cpu_stand_in}};
  ChildSweeps sweeps(out / "sweeps", advise_common_args(spec.device.empty() ? "" : device.id.key), spec.budget_s);
  std::cerr << "bench_mps advise: " << advice.subject << " on " << device.describe() << ", at most "
            << fmt_num(spec.budget_s) << " s -> " << out.string() << std::endl;

  AdviseRun run(spec, workload, sweeps, advice);
  int status = kExitOk;
  try {
    run.scheduler();
    run.alone();
    run.ladder();
    if (!stop_signal().load()) run.settle();
    if (!stop_signal().load()) run.limits();
  } catch (const BudgetSpent& e) {
    advice.ladder_end = std::string("the time budget ran out: ") + e.what();
    advice.ladder_end_kind = LadderEnd::budget;
  } catch (const std::runtime_error& e) {
    advice.ladder_end = one_line(e.what());
    advice.ladder_end_kind = LadderEnd::error;
    status = kExitFailed;
  }
  finish_advice(advice, spec.slo_p99_ms);
  advice.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const fs::path base = default_mps_base_dir();  // a child killed at the budget's end cannot quit its daemon
  for (const std::string& line : stop_stale_sessions(base, mps_control)) std::cerr << "bench_mps: " << line << "\n";
  advice.meta["finished_utc"] = utc_timestamp();
  advice.meta["status"] = stop_signal().load() ? "interrupted" : "complete";
  write_advice(out, advice);
  print_advice(advice, out);
  if (const int sig = stop_signal().load()) return 128 + sig;
  if (advice.ladder_exit == kExitEnvironment) return kExitEnvironment;  // as the sweep that stopped exits
  return advice.recommendation.verdict == AdviceVerdict::none ? kExitFailed : status;
}

}  // namespace bench_mps::harness
