#include "harness/advise/advise.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <iostream>

#include "harness/advise/advise_beside.hpp"
#include "harness/advise/advise_ladder.hpp"
#include "harness/advise/advise_output.hpp"
#include "harness/advise/advise_parts.hpp"
#include "harness/common/csv_table.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/json_text.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/signals.hpp"
#include "harness/tools/child_sweeps.hpp"
#include "harness/tools/tool_session.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/workers/workload_config.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/sweep/exec_gate.hpp"
#include "harness/simulate/phases.hpp"
#include "harness/sweep/preflight.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

namespace {

std::string subject_of(const SweepSpec& s) {
  if (runs_user_program(s.workloads.front())) return "`" + s.params.exec.command + "`";
  const std::string params = workload_params_string(s.workloads.front(), s.params);
  return s.workloads.front() + (params.empty() ? "" : " (" + params + ")");
}

struct Progress {
  int step = 0, steps = 5;
  void say(const std::string& what) const { std::cerr << "[" << step << "/" << steps << "] " << what << std::endl; }
};

/// "N=4: time-sliced 1.02x (predicted 1.00x), MPS 3.91x (predicted 4.00x) the throughput of one copy alone, per
/// step" for the screen (per unit, whatever basis decides).
std::string rung_line(const std::vector<MeasuredCell>& cells, const std::vector<PredictedCell>& predicted, int n,
                      LadderUnit unit) {
  std::string s = "N=" + std::to_string(n) + ":";
  for (const ModeKind mode : kLadderModes) {
    const MeasuredCell* m = find_measured(cells, mode, n);
    s += std::string(mode == ModeKind::timeslice ? " time-sliced " : ", MPS ");
    s += !m ? "not run" : m->ok ? fmt_times(m->throughput()) : "failed (" + m->problem + ")";
    if (m && m->co_run_sets() < static_cast<int>(m->sets.size()))  // a profiled unit: sets whose copies ran apart
      s += " [" + std::to_string(m->co_run_sets()) + " of " + std::to_string(m->sets.size()) + " sets co-run]";
    if (const PredictedCell* p = find_predicted(predicted, mode, n))
      s += p->calibration ? std::string(" (the MPS model's calibration)")
                          : " (predicted " + fmt_times(p->throughput()) + ")";
  }
  return s + " the throughput of one copy alone, " + basis_words(Basis::unit, unit);
}

}  // namespace

namespace {

class AdviseRun {
 public:
  AdviseRun(const AdviseSpec& spec, const SweepSpec& workload, ChildSweeps& sweeps, Advice& advice)
      : spec_(spec),
        unit_(unit_choice(workload, true)),  // profiled until one copy alone shows no step
        gap_us_(workload.profile_gap_us),
        args_(spec, workload),
        sweeps_(sweeps),
        a_(advice) {}

  /// `given`: the scheduler --xray-from holds, read before anything was written (bad input: exit 2).
  void scheduler(const std::optional<SchedulerFacts>& given) {
    progress_.step = 1;
    if (given) {
      a_.scheduler = *given;
      a_.scheduler_source = "read from " + spec_.xray_from;
    } else {
      progress_.say("the time-slice X-ray: 2 contexts that always have work, short steps beside them ...");
      const SweepOutcome o = sweeps_.run("xray", args_.xray());
      if (!o.has_runs()) {
        throw_if_signalled("the X-ray's sweep");
        left_no_runs(o);
        throw std::runtime_error("the X-ray's sweep failed: " + o.last_error);
      }
      a_.scheduler = read_scheduler(o.dir);
      a_.scheduler_source = "measured by sweeps/xray";
    }
    progress_.say("time slice " + fmt_sig(a_.scheduler.slice_ms) + " ms, a turn costs " +
                  fmt_sig(a_.scheduler.turn_cost_ms) + " ms beyond its work");
  }

  /// A child sweep that left no runs: the machine's stop (exit 3, a foreign MPS daemon found at its preflight) is
  /// advise's exit too; any other, not the budget's nor a signal's, is a step that failed (exit 1).
  void left_no_runs(const SweepOutcome& o) {
    if (o.exit_code == kExitEnvironment)
      a_.ladder_exit = kExitEnvironment;
    else if (!o.budget_spent && !stop_signal().load())
      a_.step_failed = true;
  }

  void alone() {
    progress_.step = 2;
    progress_.say(std::string("one copy alone, time-sliced") + (unit_.exec ? ", profiled (CUPTI)" : "") + " ...");
    const SweepOutcome o = sweeps_.run("alone", args_.alone());
    if (!o.has_runs()) {
      throw_if_signalled("one copy alone's sweep");
      left_no_runs(o);
      throw std::runtime_error("one copy alone did not run: " + o.last_error);
    }
    measured(o);
    a_.alone = read_alone(o.dir, unit_, gap_us_, &a_.alone_window);
    // The ladder runs the same command: a copy that failed alone is not run N times over (an advise of a command
    // that exits 3 ran every rung and the alone-last sets, each failing the same way).
    if (a_.alone.run_failed)
      throw std::runtime_error(a_.alone.problem + "; the ladder, which runs the same " +
                               (unit_.exec ? "command" : "workload") + ", was not started");
    unit_.profiled = unit_.profiled && a_.alone.unit == LadderUnit::step;  // else its whole run (unit_basis: why)
    args_.set_profiled(unit_.profiled);
    a_.meta["advise"]["unit_from_profiles"] = unit_.profiled;
    if (!a_.alone.unit_basis.empty())
      progress_.say("timed per " + std::string(unit_word(a_.alone.unit)) + ": " + a_.alone.unit_basis +
                    (unit_.profiled ? ", " + fmt_sig(a_.alone.unit_ms) + " ms alone; every rung profiled" : ""));
    if (unit_.exec && unit_.latency) {  // a paced program: held before its clock starts, it owes no requests
      args_.set_gate("first-kernel");
      progress_.say(
          "--exec-gate first-kernel: a program timed by its requests' latency is held at its first kernel "
          "launch, before its own clock starts (results/2026-12-03-advise-lease5)");
    } else if (unit_.exec) {  // the ladder's copies held where the alone run's steady part began: they run together
      std::string note;
      fs::path profiled;
      std::error_code ec;
      for (const auto& run : fs::directory_iterator(fs::path(o.dir) / "profiles", ec))
        if (fs::is_directory(run.path() / "w0", ec)) profiled = run.path() / "w0";
      args_.set_gate(resolve_gate_point("steady", profiled, note));
      progress_.say(note);
    }
    a_.basis = choose_basis(parse_basis(spec_.basis), a_.alone);
    progress_.say("deciding " + basis_words(a_.basis.basis, a_.alone.unit) + ": " + a_.basis.why);
    a_.predicted = predictions(o.dir, unit_, gap_us_, a_.alone, a_.scheduler, spec_.max_procs, kDefaultPhaseDraws);
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
    std::vector<std::pair<int, double>> rung_seconds;  // {N, seconds} of each rung run
    double last_best = NAN;
    a_.ladder_end = "every rung ran (N up to " + std::to_string(rungs.back()) + ")";
    a_.ladder_end_kind = LadderEnd::complete;
    for (std::size_t i = 0; i < rungs.size(); ++i) {
      const int n = rungs[i];
      if (stop_signal().load()) return end(LadderEnd::signal, "stopped by a signal");
      if (const double need = rung_seconds_estimate(rung_seconds, n); sweeps_.seconds_left() - kept() < need)
        return end(LadderEnd::budget, "the time budget would not hold N=" + std::to_string(n) + " (about " +
                                          fmt_fixed(need, 0) + " s, " + fmt_fixed(sweeps_.seconds_left(), 0) +
                                          " s left" + kept_words() + ")");
      progress_.say("ladder N=" + std::to_string(n) + ", time-sliced and MPS, " + std::to_string(kSetsPerRung) +
                    " worker sets each ...");
      SweepOutcome o;
      try {
        o = sweeps_.run("ladder-" + std::to_string(n), args_.rung(n));
      } catch (const BudgetSpent& e) {
        return end(LadderEnd::budget, std::string("the time budget ran out before N=") + std::to_string(n));
      }
      rung_seconds.emplace_back(n, o.seconds);
      seconds_per_set_[n] = o.seconds / (2 * kSetsPerRung);
      if (stop_signal().load() && !o.has_runs())  // Ctrl-C during the rung: stopped, not a failed sweep
        return end(LadderEnd::signal, "stopped by a signal (" + std::string(strsignal(stop_signal().load())) +
                                          ") during N=" + std::to_string(n) + "'s sweep");
      if (!o.has_runs()) {
        left_no_runs(o);
        return end(LadderEnd::sweep_failed, "N=" + std::to_string(n) + "'s sweep failed: " + o.last_error);
      }
      measured(o);
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
      progress_.say(rung_line(a_.ladder, a_.predicted, n, a_.alone.unit) + " (" + fmt_fixed(o.seconds, 0) + " s)");
      if (const std::string why = stop_after(n, last_best); !why.empty() && !explicit_rungs)
        return end(LadderEnd::decided, why);
      last_best = best_throughput(a_.ladder, n, a_.basis.basis);
    }
  }

  /// While MPS against time-slicing is open (its interval across the line), one more worker set for the best
  /// cell of each mode, or of the one side too short of sets for an interval (cells_to_settle), as far as
  /// kMaxSetsPerCell and the budget go.
  void settle() {
    progress_.step = 4;
    const std::string kEach = "one set of each";
    std::vector<std::string> added;  // each round's sets, in words (kEach: a set of each mode)
    for (int round = 1;; ++round) {
      const Pick p = pick(a_.ladder, spec_.slo_p99_ms, a_.basis.basis);
      if (!p.open()) {
        // not open: decided, or per unit a mode's copies never co-ran (pick's unmeasured), which no set settles
        const std::string how = p.unmeasured.empty() ? std::string(kSetsEndDecided) : "stopped";
        const std::string why =
            p.unmeasured.empty() ? "" : " (per unit it cannot be decided: " + p.unmeasured.words() + ")";
        if (round > 1 && std::all_of(added.begin(), added.end(), [&](const std::string& a) { return a == kEach; }))
          a_.sets_end = how + " after " + std::to_string(round - 1) + " more worker set" + (round == 2 ? "" : "s") +
                        " each" + why;
        else if (round > 1) {
          std::string rounds;
          for (const std::string& r : added) rounds += (rounds.empty() ? "" : ", then ") + r;
          a_.sets_end = how + " after " + std::to_string(round - 1) + " more round" + (round == 2 ? "" : "s") +
                        " of worker sets: " + rounds + why;
        }
        progress_.say(round > 1 ? a_.sets_end
                      : !p.unmeasured.empty()
                          ? "MPS against time-slicing cannot be decided per unit: " + p.unmeasured.words()
                          : "MPS against time-slicing: " + std::string(verdict_name(p.verdict)) +
                                (std::isfinite(p.gain.ratio) ? " at " + times_with_interval(p.gain) : ""));
        return;
      }
      if (stop_signal().load()) return settled("stopped by a signal");
      const std::vector<const MeasuredCell*> cells = cells_to_settle(p);
      double need = 0;
      for (const MeasuredCell* c : cells) need += seconds_per_set_.count(c->procs) ? seconds_per_set_.at(c->procs) : 0;
      if (const NoMoreSets none = why_no_more_sets(p, sweeps_.seconds_left() - kept(), need); !none.empty())
        return settled(none.said(kept()));
      if (cells.size() == 1) {
        added.push_back("one set of " + settle_side(*cells.front()));
        progress_.say("MPS " + times_with_interval(p.gain) + " the best time-sliced: " + settle_side(*cells.front()) +
                      " has too few worker sets for an interval, one more of it ...");
      } else {
        added.push_back(kEach);
        progress_.say("MPS " + times_with_interval(p.gain) + " the best time-sliced: across the " +
                      fmt_fixed(100 * kDecisionBand, 0) + " % line, one more worker set each ...");
      }
      // The cells' modes and Ns first: reading a set's cells may move them (the pointers then dangle).
      std::vector<std::pair<std::string, int>> targets;
      for (const MeasuredCell* c : cells) targets.emplace_back(c->mode.name, c->procs);
      for (const auto& [mode, n] : targets) {
        try {
          const SweepOutcome o = sweeps_.run(more_folder(round, mode, n), args_.more(mode, n));
          if (!o.has_runs()) {
            left_no_runs(o);
            return settled("a set's sweep failed: " + o.last_error);
          }
          measured(o);
          read_cells(o.dir, unit_, a_.ladder);
          set_losses(a_.ladder);
        } catch (const BudgetSpent&) {
          return settled("the time budget ran out");
        }
      }
    }
  }

  /// One copy alone again, one worker set per mode, after the ladder and the sets that settled it: the N=1 cells'
  /// last draw, and how far the anchor drifted from its first sets (issue 42 item 4).
  void alone_last() {
    progress_.step = 4;
    const auto skip = [this](const std::string& why) {
      a_.alone_last_skipped = why;
      progress_.say("one copy alone again after the ladder: not run (" + why + ")");
    };
    if (!find_measured(a_.ladder, ModeKind::timeslice, 1) || !seconds_per_set_.count(1))
      return skip("the ladder ran no N=1");
    if (const double need = 2 * seconds_per_set_.at(1); sweeps_.seconds_left() < kept())
      return skip("the time budget would not hold it: " + fmt_fixed(sweeps_.seconds_left(), 0) + " s left, about " +
                  fmt_fixed(need, 0) + " s and the margin a sweep is given (1.5x and 5 s): " + fmt_fixed(kept(), 0) +
                  " s");
    progress_.say("one copy alone again, time-sliced and MPS, one worker set each: the alone anchor's last draw ...");
    try {
      const SweepOutcome o = sweeps_.run(kAloneLastFolder, args_.alone_last());
      if (!o.has_runs()) {
        left_no_runs(o);
        return skip("its sweep failed: " + o.last_error);
      }
      measured(o);
      a_.alone_last_ran = true;
      a_.alone_last_skipped = add_alone_last(o.dir, unit_, a_.ladder);
      set_losses(a_.ladder);
    } catch (const BudgetSpent&) {
      return skip("the time budget ran out");
    }
    progress_.say(alone_last_words(a_));
  }

  void limits() {
    progress_.step = 5;
    const Pick p = pick(a_.ladder, spec_.slo_p99_ms, a_.basis.basis);
    if (p.verdict != AdviceVerdict::mps || p.procs < 2) {
      progress_.say("thread limits: not measured (MPS is not advised)");
      return;
    }
    // mps:auto (100/N % each, the device plugin's rule), then, where it cost more than 5 %, twice that share.
    // Each started only where the budget holds what the one before took (the first: its sets at the ladder's pace).
    double need = seconds_per_set_.count(p.procs) ? kSetsPerRung * seconds_per_set_.at(p.procs) : NAN;
    for (const Mode& limit : AdviseChildArgs::limit_modes(p.procs)) {
      const std::string& mode = limit.name;
      if (!a_.limits.empty() && (!a_.limits.back().ok || limit_keeps(*p.cell, a_.limits.back()).lo >= kLimitKeeps))
        break;
      if (const std::string why = why_no_limit(sweeps_.seconds_left(), need); !why.empty()) {
        a_.limits.push_back(unmeasured_limit(limit, p.procs, why));
        progress_.say(mode + " at N=" + std::to_string(p.procs) + ": not run (" + why + ")");
        return;
      }
      progress_.say(mode + " at N=" + std::to_string(p.procs) + " ...");
      try {
        const SweepOutcome o = sweeps_.run(limit_folder(limit), args_.limit(mode, p.procs));
        need = o.seconds;
        std::vector<MeasuredCell> cells;
        if (o.has_runs()) {
          measured(o);
          read_cells(o.dir, unit_, cells);
        } else {
          left_no_runs(o);
        }
        a_.limits.push_back(cells.empty() ? unmeasured_limit(limit, p.procs, "its sweep failed: " + o.last_error)
                                          : cells.front());
        const std::string unmeasured = limit_unmeasured_words(*p.cell, a_.limits.back(), unit_word(a_.alone.unit));
        progress_.say(mode + ": " +
                      (!a_.limits.back().ok ? a_.limits.back().problem
                       : unmeasured.empty()
                           ? times_with_interval(limit_keeps(*p.cell, a_.limits.back())) + " unlimited MPS's speed"
                           : unmeasured));
      } catch (const BudgetSpent&) {
        progress_.say("thread limits: the time budget ran out");
        return;
      }
    }
  }

 private:
  /// A thread limit at `procs` that measured nothing, and why (advice.md: "<mode> at N=<procs> did not run: why").
  static MeasuredCell unmeasured_limit(const Mode& limit, int procs, const std::string& why) {
    MeasuredCell c;
    c.procs = procs;
    c.mode = limit;
    c.problem = why;
    return c;
  }

  /// A profiled sweep's units, measured from its copies' profiles into its units.csv (what read_cells reads).
  void measured(const SweepOutcome& o) const {
    if (unit_.profiled && o.has_runs()) write_ladder_units(o.dir, gap_us_);
  }

  /// The seconds kept for one copy alone after the ladder (alone_last), with the margin a set added to settle the
  /// verdict gets (why_no_more_sets); 0 before the ladder's N=1 ran.
  double kept() const { return seconds_per_set_.count(1) ? with_set_margin(2 * seconds_per_set_.at(1)) : 0; }
  std::string kept_words() const {
    if (!(kept() > 0)) return "";
    if (kept() >= sweeps_.seconds_left())  // not "14 s of them" where 12 s are left
      return ", all of them kept for one copy alone after the ladder (about " + fmt_fixed(kept(), 0) +
             " s with its margin)";
    return ", " + fmt_fixed(kept(), 0) + " s of them kept for one copy alone after the ladder";
  }

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
    if (!any_within_slo) {  // a paced program's p99 may be its hold at the gate: said, where it is
      std::string why =
          "both modes broke the p99 target of " + fmt_sig(spec_.slo_p99_ms) + " ms at N=" + std::to_string(n);
      for (const MeasuredCell& c : a_.ladder)
        if (c.procs == n && c.ok)
          if (const std::string held = gate_backlog_words(c); !held.empty()) return why + "." + held;
      return why;
    }
    return knee_reason(a_.ladder, n, previous_best, a_.basis.basis, a_.alone.unit);
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

/// The scheduler --xray-from holds (none without it), read before anything is written: a folder that holds no
/// X-ray is bad input.
std::optional<SchedulerFacts> scheduler_given(const std::string& xray_from) {
  if (xray_from.empty()) return std::nullopt;
  try {
    return read_scheduler(xray_from);
  } catch (const ResultsError& e) {
    throw UsageError("--xray-from: " + one_line(e.what()));
  }
}

}  // namespace

int run_advise(const AdviseSpec& spec) {
  if (!spec.redo_dir.empty()) return redo_advice(spec.redo_dir, spec.basis, spec.job_length);
  if (!spec.beside.empty()) return run_beside(spec);
  const SweepSpec workload = advise_workload(spec);
  const ToolSessionSpec session_spec{"advise",          spec.argv,    spec.device,
                                     spec.cpu_stand_in, spec.out_dir, "advise-" + workload.workloads.front(),
                                     kAdviceJsonFile,   "advice",     {"advice.md", "plots", "sweeps"}};
  check_session_out_dir(session_spec);  // a folder that cannot be used: exit 2 on any machine
  const std::optional<SchedulerFacts> given_scheduler = scheduler_given(spec.xray_from);
  {  // the machine, checked as the largest rung's sweep will check it (exit 3 before anything is written)
    SweepSpec largest = workload;
    largest.procs = {spec.max_procs};
    largest.modes = parse_modes("timeslice,mps");
    largest.device = spec.device;
    largest.cpu_stand_in = spec.cpu_stand_in && workload_needs_gpu(workload.workloads.front());
    preflight(largest);  // its GPU lock is let go at once: each child sweep takes it in turn
  }
  ToolSession session(session_spec);
  const fs::path& out = session.out();
  const DeviceChoice& device = session.device();
  const auto start = std::chrono::steady_clock::now();

  Advice advice;
  advice.subject = subject_of(workload);
  if (!spec.check_metric.empty()) advice.check_tolerance_pct = spec.check_tolerance_pct;
  advice.meta = session.meta();
  advice.meta["advise"] = {
      {"budget_s", spec.budget_s},
      {"max_procs", spec.max_procs},
      {"phase_draws", kDefaultPhaseDraws},
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
  ChildSweeps sweeps(out / "sweeps", advise_common_args(session.device_key()), spec.budget_s);
  std::cerr << "bench_mps advise: " << advice.subject << " on " << device.describe() << ", at most "
            << fmt_num(spec.budget_s) << " s -> " << out.string() << std::endl;

  AdviseRun run(spec, workload, sweeps, advice);
  int status = kExitOk;
  try {
    run.scheduler(given_scheduler);
    run.alone();
    run.ladder();
    if (!stop_signal().load()) run.settle();
    if (!stop_signal().load()) run.alone_last();
    if (!stop_signal().load()) run.limits();
  } catch (const BudgetSpent& e) {
    advice.ladder_end = std::string("the time budget ran out: ") + e.what();
    advice.ladder_end_kind = LadderEnd::budget;
  } catch (const StoppedBySignal& e) {  // Ctrl-C before the ladder: stopped, not a failed step
    advice.ladder_end = e.what();
    advice.ladder_end_kind = LadderEnd::signal;
  } catch (const std::runtime_error& e) {
    advice.ladder_end = one_line(e.what());
    advice.ladder_end_kind = LadderEnd::error;
    status = kExitFailed;
  }
  finish_advice(advice, spec.slo_p99_ms);
  advice.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  session.finish();
  advice.meta["finished_utc"] = session.meta()["finished_utc"];
  advice.meta["status"] = session.meta()["status"];
  write_advice(out, advice);
  print_advice(advice, out);
  if (const int exit = ToolSession::signal_exit()) return exit;
  if (advice.ladder_exit == kExitEnvironment) return kExitEnvironment;  // as the sweep that stopped exits
  if (advice.step_failed) return kExitFailed;
  return advice.recommendation.verdict == AdviceVerdict::none ? kExitFailed : status;
}

}  // namespace bench_mps::harness
