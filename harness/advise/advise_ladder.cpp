#include "harness/advise/advise_ladder.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>

#include "harness/common/errors.hpp"
#include "harness/common/csv_table.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/predict/measured_units.hpp"
#include "harness/predict/not_co_run_note.hpp"
#include "harness/model/scheduler_models.hpp"
#include "harness/model/xray_scheduler.hpp"
#include "harness/results/regime_rows.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/simulate/replay.hpp"  // kMinCommonStepEnds
#include "harness/workers/workload_config.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

const SummaryRecord& alone_row(const std::vector<SummaryRecord>& rows, const fs::path& dir) {
  for (const SummaryRecord& r : rows)
    if (const auto mode = mode_in_results(r.mode); mode && is_plain(*mode, ModeKind::timeslice) && r.procs == 1)
      return r;
  throw ResultsError(dir.string() + ": no time-sliced run of one copy");
}

/// The program's regime from its copy's profile facts: bounded by host waits where the profile has
/// them (with the same program cut at its idle gaps beside it, AloneFacts::gap_point), else by idle
/// gaps of at least the profile's threshold.
void place_by_profile(const WorkerRecord& w, double gap_us, AloneFacts& a) {
  a.source = AloneSource::profile;
  a.duty = w.fact("profile_duty");
  a.footprint_basis = "blocks over what the SMs hold at the kernels' occupancy (CUPTI)";
  const double fill = w.fact("profile_fill");
  const double burst = w.fact("profile_burst_mean_ms");
  std::optional<RegimePoint> by_gaps;
  if (burst > 0 && a.duty > 0) by_gaps = RegimePoint{burst / a.duty, burst, burst, fill};
  const double waits = w.fact("profile_host_waits");
  const double wait_step = w.fact("profile_wait_step_ms"), wait_burst = w.fact("profile_wait_burst_ms"),
               wait_kernel = w.fact("profile_wait_kernel_ms");
  if (waits > 0 && wait_step > 0 && wait_burst > 0 && wait_kernel > 0) {
    a.point = {wait_step, wait_burst, std::min(wait_burst, wait_kernel), fill};
    a.burst_basis = "device work between two host waits, CUPTI; idle gaps of at least " + fmt_num(gap_us) +
                    " us give the other end of the time-sliced bracket";
    a.gap_point = by_gaps;
    return;
  }
  if (!by_gaps) {
    a.problem = w.fact("profile_processes") > 0 ? "its GPU profile holds no steady bursts"
                                                : "the command never initialised CUDA (no GPU profile)";
    return;
  }
  a.point = *by_gaps;
  a.burst_basis = "idle gaps of at least " + fmt_num(gap_us) + " us end one, CUPTI (no host waits recorded)";
}

std::vector<double> finite_only(const std::vector<double>& x) {
  std::vector<double> out;
  std::copy_if(x.begin(), x.end(), std::back_inserter(out), [](double v) { return std::isfinite(v); });
  return out;
}

/// The units.csv of a profiled child sweep (write_ladder_units), or none where the unit is not profiled.
std::vector<MeasuredUnit> ladder_units(const fs::path& dir, const UnitChoice& unit) {
  if (!unit.profiled) return {};
  std::error_code ec;
  if (!fs::is_regular_file(dir / "units.csv", ec))
    throw ResultsError((dir / "units.csv").string() +
                       " not found: a profiled ladder's sweep keeps its copies' units there (bench_mps predict "
                       "--measure " +
                       dir.string() + " writes it from its profiles)");
  return read_units(dir / "units.csv");
}

/// How a run's copies parted, from units.csv: the window in which all were steady against their steady parts
/// ("; the window in which all were steady covered 70 % of a copy's steady part, which lasted 1.36-1.93 s"), or ""
/// where units.csv has neither (written before 2026-12-02).
std::string parted_words(const std::vector<double>& steady_s, double coverage) {
  if (steady_s.empty() || !std::isfinite(coverage)) return "";
  const auto [lo, hi] = std::minmax_element(steady_s.begin(), steady_s.end());
  return "; the window in which all were steady covered " + coverage_percent(coverage, coverage) +
         " % of a copy's steady part, which lasted " + (*hi > *lo ? fmt_sig(*lo) + "-" + fmt_sig(*hi) : fmt_sig(*lo)) +
         " s";
}

/// A profiled set's unit: its copies' steps over the run's common window, where every copy ran together. For a
/// longer job (advise_job.hpp) its start-up is the rest of a copy's run outside its steady part (start-up, warm-up,
/// what follows its steps: a test pass, the exit), and its units the steps of its steady part at its unit.
void time_by_profile(const SummaryRecord& r, const std::vector<MeasuredUnit>& units, SetMeasurement& m) {
  std::vector<double> ms, rest, steady;
  double steady_steps = 0, coverage = NAN;
  int copies = 0, apart = 0;
  std::string why;
  for (const MeasuredUnit& u : units) {
    if (u.run_id != r.run_id) continue;
    ++copies;
    if (std::isfinite(u.steady_s)) steady.push_back(u.steady_s);
    if (std::isfinite(u.coverage)) coverage = u.coverage;  // the run's: every copy of it carries the same
    if (co_run(u.basis) && u.unit_ms > 0) {
      ms.push_back(u.unit_ms);
      rest.push_back(u.run_s - u.steady_s);  // NaN where either is unknown (a units.csv of before 2026-12-02)
      steady_steps += u.steady_s * 1000 / u.unit_ms;
    } else {
      ++apart;
      if (why.empty()) why = u.basis_text();
    }
  }
  m.coverage = coverage;
  m.p99_ms = NAN;  // a step's p99 is not in a profile's units
  m.startup_s = NAN;
  if (copies > 0 && apart == 0) {
    m.unit_ms = mean(ms);
    m.per_s = 0;  // steps per second of all copies over the common window
    for (const double x : ms) m.per_s += 1000 / x;
    m.startup_s = mean(rest);
    if (std::isfinite(steady_steps) && steady_steps > 0) m.units = steady_steps;
    return;
  }
  m.co_run = false;
  m.unit_ms = m.per_s = NAN;
  m.units = NAN;  // its steps are not measured: no energy per step, no part in a longer job
  m.not_co_run = copies == 0 ? std::string("no copy of the run in units.csv")
                             : std::to_string(apart) + " of " + std::to_string(copies) +
                                   " copies without a co-run unit (" + why + ")" + parted_words(steady, coverage);
}

/// Whether most of a copy's matched lines after its first came in the same read of its stdout as the one before.
bool batched_lines(const WorkerRecord& w) { return w.fact("steps_batched") > 0.5 * (w.fact("steps") - 1); }

/// A copy's requests served per second (--exec-metric-kind latency): the lines after its first over the time from its
/// first line to its last. Its latencies say how long each waited, not how many it served. NaN without the span, and
/// where most lines came in the same read as the one before (a block-buffered stdout: their arrival is not when
/// they were served).
double served_per_s(const WorkerRecord& w) {
  const double n = w.fact("steps"), span = w.fact("steps_span_s");
  if (!(n >= 2 && span > 0) || batched_lines(w)) return NAN;
  return (n - 1) / span;
}

/// A set timed by the program's metric: whether its copies printed their lines together (measured_units.hpp's
/// MetricWindow, the same rule as predict's). Not co-run: no unit and no rate per unit (left out of every per-unit
/// mean and interval); per whole run it counts. Unchecked where runs.csv has no span of the lines (before 2026-12-03).
void metric_co_run(const SummaryRecord& r, const std::vector<WorkerRecord>& workers, SetMeasurement& m) {
  std::vector<const WorkerRecord*> copies;
  for (const WorkerRecord& w : workers)
    if (w.run_id == r.run_id) copies.push_back(&w);
  const MetricWindow lines = metric_window(copies);
  if (!lines.checked()) return;
  m.coverage = lines.coverage;
  if (lines.co_run()) return;
  m.co_run = false;
  m.unit_ms = m.per_s = m.served_ms = NAN;
  const auto [lo, hi] = std::minmax_element(lines.span_s.begin(), lines.span_s.end());
  const std::string spans = *hi > *lo ? fmt_sig(*lo) + "-" + fmt_sig(*hi) : fmt_sig(*lo);
  if (lines.coverage < kMinCoRunCoverage)  // the copies printed apart
    m.not_co_run = "the window in which all printed covered " + coverage_percent(lines.coverage, lines.coverage) +
                   " % of a copy's lines (their span " + spans + " s), under the " +
                   coverage_percent(kMinCoRunCoverage, kMinCoRunCoverage) + " % a co-run set needs";
  else  // together, but too few lines inside the window to time a step by
    m.not_co_run = "the window in which all printed held " + fmt_sig(lines.least_lines) +
                   " lines of one copy (their span " + spans + " s), under the " + std::to_string(kMinCommonStepEnds) +
                   " a co-run set needs";
}

/// One run of a cell's sweep: one worker set (advise runs one round per set).
SetMeasurement read_set(const SummaryRecord& r, const UnitChoice& unit, const std::vector<WorkerRecord>& workers,
                        const std::vector<MeasuredUnit>& units) {
  SetMeasurement m;
  m.ok = r.status == RunStatus::ok;
  if (!m.ok) m.problem = to_string(r.status) + (r.reason.empty() ? "" : ": " + r.reason);
  m.unit_ms = r.task_mean_ms;
  m.p99_ms = r.task_p99_ms;
  m.per_s = r.throughput_tasks_per_s;
  m.units = static_cast<double>(r.tasks_total);
  m.energy_j = r.energy_j;
  if (!unit.exec) {  // bench_mps's workloads: the worker set's start-up (spawn to READY), then its timed tasks
    m.startup_s = r.startup_s;
    m.run_s = r.startup_s + r.makespan_s;
    m.run_per_s = m.run_s > 0 ? m.units / m.run_s : NAN;
    return m;
  }
  // A program: each copy's run is its task, from its start to its exit (its start-up inside).
  m.run_s = r.task_mean_ms / 1000;
  m.run_per_s = r.makespan_s > 0 ? m.units / r.makespan_s : NAN;
  for (const WorkerRecord& w : workers)  // --check-metric: each copy's last value (NaN where it printed none); a
    // failed copy's (its facts are kept since 2026-12-05) is no value of a finished run
    if (w.run_id == r.run_id && w.status == RunStatus::ok && std::isfinite(w.fact("check_matches")))
      m.check_values.push_back(w.fact("check_value"));
  if (unit.profiled) time_by_profile(r, units, m);
  if (!unit.metric) return m;
  std::vector<double> means, p99s, startups, steps, served;  // the copies' steps: mean, the worst p99, rate served
  double before = 0;  // lines printed before the start gate released the copies: not their shared steps
  for (const WorkerRecord& w : workers)
    if (w.run_id == r.run_id) {
      if (w.fact("steps_before_release") > 0) before += w.fact("steps_before_release");
      means.push_back(w.fact("step_mean_ms"));
      p99s.push_back(w.fact("step_p99_ms"));
      startups.push_back(w.fact("startup_s"));
      steps.push_back(w.fact("steps"));
      if (unit.latency) {
        served.push_back(served_per_s(w));
        m.holds.add(w.fact("gate_held_s"), w.fact("step_p99_ms"));
      }
    }
  const std::vector<double> mm = finite_only(means), p = finite_only(p99s);
  m.unit_ms = mm.size() == means.size() ? mean(mm) : NAN;  // a copy without steps: no step time for the run
  m.p99_ms = p.empty() ? NAN : *std::max_element(p.begin(), p.end());
  m.per_s = 0;         // steps per second while the copies step, all together
  if (unit.latency) {  // requests served: a paced server's latency is not its rate
    for (const double x : served) m.per_s += x;
    m.served_ms = 1000 * static_cast<double>(served.size()) / m.per_s;
  } else
    for (const double ms : mm) m.per_s += 1000 / ms;
  m.startup_s = mean(startups);
  m.units = 0;
  for (const double n : steps) m.units += n;
  m.run_per_s = r.makespan_s > 0 && m.units > 0 ? m.units / r.makespan_s : NAN;
  if (m.ok && !(m.unit_ms > 0)) {
    m.ok = false;
    m.problem = before > 0 ? "its copies printed no step time for --exec-metric after the start gate released them (" +
                                 fmt_sig(before) +
                                 " lines before it): hold them before their steps (--exec-gate first-kernel, or "
                                 "wait:K with a smaller K)"
                           : "its copies printed no step time for --exec-metric";
  } else if (m.ok && !(m.per_s > 0)) {  // (a rate is NaN where a copy lacks it)
    m.ok = false;
    const bool batched = std::any_of(workers.begin(), workers.end(),
                                     [&r](const WorkerRecord& w) { return w.run_id == r.run_id && batched_lines(w); });
    m.problem = batched ? "--exec-metric-kind latency: a copy's lines came in batches (most in the same read of its "
                          "stdout as the one before: is it block-buffered? run python3 -u, or print with flush=True), "
                          "so when they came does not say when its requests were served"
                        : "--exec-metric-kind latency: a copy printed fewer than 2 requests, or its runs.csv has no "
                          "steps_span_s (a sweep of before 2026-12-03): no rate served";
  }
  if (m.ok) metric_co_run(r, workers, m);
  return m;
}

/// A set whose N >= 2 copies did not co-run: how far apart their steady parts lay and how busy their CPUs were
/// (not_co_run_note's two facts, over this one run).
void note_parting(const SummaryRecord& r, const std::vector<WorkerRecord>& workers,
                  const std::vector<MeasuredUnit>& units, SetMeasurement& m) {
  if (m.co_run || r.procs < 2) return;
  std::vector<double> steady;
  for (const MeasuredUnit& u : units)
    if (u.run_id == r.run_id) steady.push_back(u.steady_s);
  std::vector<const WorkerRecord*> copies;
  for (const WorkerRecord& w : workers)
    if (w.run_id == r.run_id) copies.push_back(&w);
  const RunParting run = run_parting(steady, copies);
  m.parting = run.parting;
  m.cpu_share = run.cpu_share;
}

}  // namespace

UnitChoice unit_choice(const SweepSpec& workload, bool profiled) {
  const bool exec = runs_user_program(workload.workloads.front()), metric = !workload.params.exec.metric.empty();
  return {exec, metric, exec && !metric && profiled, metric && workload.params.exec.metric_is_latency};
}

void write_ladder_units(const fs::path& dir, double gap_us) {
  write_units(dir / "units.csv", measure_units(dir, gap_us));
}

AloneFacts read_alone(const fs::path& dir, const UnitChoice& unit, double gap_us,
                      std::optional<ProfileWindow>* window) {
  const std::vector<SummaryRecord> rows = read_summary(dir / "summary.csv");
  const SummaryRecord& row = alone_row(rows, dir);
  AloneFacts a;
  a.unit = unit.exec ? (unit.metric || unit.profiled ? LadderUnit::step : LadderUnit::run) : LadderUnit::task;
  if (unit.exec) a.source = AloneSource::profile;  // a program's, even where its run failed: not bench_mps's own
  if (row.status != RunStatus::ok) {
    a.run_failed = true;
    a.problem = "one copy alone failed (" + to_string(row.status) + (row.reason.empty() ? "" : ": " + row.reason) + ")";
    return a;
  }
  a.unit_ms = row.task_mean_ms;
  const std::vector<WorkerRecord> workers = unit.exec ? read_runs(dir / "runs.csv") : std::vector<WorkerRecord>{};
  {
    const SetMeasurement set = read_set(row, unit, workers, ladder_units(dir, unit));
    if (unit.profiled && set.co_run) {
      a.unit_ms = set.unit_ms;
      a.unit_basis = "a step between host waits, from its GPU profile (CUPTI), over the copies' common window";
    } else if (unit.profiled) {
      a.unit = LadderUnit::run;
      a.unit_ms = row.task_mean_ms;
      a.unit_basis = "its whole run: its GPU profile gives no step (" + set.not_co_run + ")";
    }
    a.run_s = set.run_s;
    a.startup_s = set.startup_s;
    if (!set.check_values.empty()) a.check_value = set.check_values.front();
  }
  if (!unit.exec) {
    a.source = AloneSource::events;
    a.duty = row.gpu_busy_share;
    a.point = regime_point(row.burst_ms, row.gpu_busy_share, row.gpu_util_mean, row.gpm_sm_util);
    a.burst_basis = "CUDA events around each synchronising step";
    a.footprint_basis = "GPM SM activity over the busy share";
    if (!(row.burst_ms > 0)) a.problem = "it records no GPU burst (not a GPU workload)";
    return a;
  }
  const auto w =
      std::find_if(workers.begin(), workers.end(), [&](const WorkerRecord& x) { return x.run_id == row.run_id; });
  if (w == workers.end()) throw ResultsError((dir / "runs.csv").string() + ": no copy of run " + row.run_id);
  if (unit.metric) a.unit_ms = w->fact("step_mean_ms");
  if (!(a.unit_ms > 0)) {  // (a whole run is > 0)
    const double rejected = w->fact("metric_rejected");
    a.problem = rejected > 0 ? "its copy's " + fmt_sig(rejected) +
                                   " lines --exec-metric matched held no number in 0..1e12 (nan, inf, a sign, not a "
                                   "number): no step time"
                             : "its copy printed no step time for --exec-metric";
  }
  if (a.problem.empty()) place_by_profile(*w, gap_us, a);
  if (window && std::isfinite(w->fact("profile_nvml_samples")))
    *window = window_from_facts([&w](const std::string& key) { return w->fact(key); });
  return a;
}

void read_cells(const fs::path& dir, const UnitChoice& unit, std::vector<MeasuredCell>& cells) {
  const std::vector<SummaryRecord> rows = read_summary(dir / "summary.csv");
  std::vector<WorkerRecord> workers;
  if (unit.exec) workers = read_runs(dir / "runs.csv");
  const std::vector<MeasuredUnit> units = ladder_units(dir, unit);
  for (const SummaryRecord& r : rows) {
    const std::optional<Mode> mode = mode_in_results(r.mode);
    if (!mode)
      throw ResultsError((dir / "summary.csv").string() + ": run " + r.run_id + " has a mode no ladder runs: '" +
                         r.mode + "'");
    SetMeasurement m = read_set(r, unit, workers, units);
    note_parting(r, workers, units, m);
    cell_for(cells, *mode, r.procs).add(m);
  }
}

std::string add_alone_last(const fs::path& dir, const UnitChoice& unit, std::vector<MeasuredCell>& ladder) {
  std::vector<MeasuredCell> last;
  read_cells(dir, unit, last);
  std::string left_out;
  for (const MeasuredCell& c : last) {
    const std::string what = std::string(c.is(ModeKind::timeslice) ? "time-sliced" : "MPS");
    if (c.procs != 1 || !find_measured(ladder, c.mode, 1)) {
      left_out += (left_out.empty() ? "" : "; ") + what + " at N=" + std::to_string(c.procs) + ": no such cell alone";
      continue;
    }
    for (SetMeasurement s : c.sets)
      if (s.ok) {
        s.after_ladder = true;
        cell_for(ladder, c.mode, 1).add(s);
      } else
        left_out += (left_out.empty() ? "" : "; ") + what + ": " + s.problem;
  }
  return left_out;
}

}  // namespace bench_mps::harness
