#pragma once
// advise's arithmetic, apart from any process or file: where one copy alone sits on the regime map,
// what the model (model/regime_model.hpp) predicts for N copies in each mode, what the ladder measured,
// and how far apart the two are. Every ratio is on the seeds' basis: one copy alone, time-sliced.
#include "harness/advise/wing.hpp"

#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/plan/mode_names.hpp"
#include "harness/model/regime_model.hpp"

namespace bench_mps::harness {

/// Where advise's facts of one copy alone come from: CUDA events, NVML and GPM (bench_mps's workloads), or
/// the CUPTI profile of a program.
enum class AloneSource { events, profile };
const char* alone_source_word(AloneSource s);  ///< "events", "profile" (advice.json)

/// What the ladder times: a task (bench_mps's workloads), a step (a program's --exec-metric) or a whole run
/// (a program's completion).
enum class LadderUnit { task, step, run };
const char* unit_word(LadderUnit u);  ///< "task", "step", "run" (advice.json, and the prose: "per step")

/// One copy alone (time-sliced, N=1) as advise read it.
struct AloneFacts {
  AloneSource source = AloneSource::events;
  LadderUnit unit = LadderUnit::task;
  double unit_ms = NAN;  ///< one unit's time alone
  /// How a unit is timed ("" for the usual: a task's events, a program's --exec-metric, its whole run without
  /// one): a step from the GPU profile, or why a program without --exec-metric is timed by its whole run.
  std::string unit_basis;
  RegimePoint point;  ///< the model's input (its step: the synchronising step)
  /// A program whose profile has host waits: the same program cut at its idle gaps instead. Time-sliced,
  /// a copy waiting for the GPU keeps launching, so its kernels up to the next host wait share one turn
  /// (`point`); a copy that finds the GPU idle runs each burst as it comes, a turn per idle gap. The
  /// prediction is the bracket between the two.
  std::optional<RegimePoint> gap_point;
  double duty = NAN;            ///< busy share alone (as measured; point.duty() is the burst's share)
  std::string burst_basis;      ///< how the burst was bounded: "events", "host waits", "idle gaps of >= X us"
  std::string footprint_basis;  ///< "GPM SM activity / duty" or "blocks / what the SMs hold (CUPTI)"
  double run_s = NAN;           ///< its whole run, start-up included
  double startup_s = NAN;       ///< its start-up before the first unit (NaN where not known)
  double check_value = NAN;     ///< --check-metric: the last value its copy printed (NaN: none, or no check)
  std::string problem;          ///< why the model cannot place it (no burst measured, ...); empty: placed
  bool run_failed = false;      ///< its run ended other than ok (problem says how): nothing of it was measured
  bool placed() const { return problem.empty(); }
};

/// The model's answer for N copies in one mode.
struct PredictedCell {
  int procs = 0;
  ModeKind mode = ModeKind::timeslice;
  Prediction prediction;  ///< loss (per-unit time over alone in this mode) and, time-sliced, the convoy's upper end
  /// One copy alone in this mode against one copy alone time-sliced, in throughput (1 time-sliced; MPS:
  /// the ladder's N=1 under MPS, where it ran: a program's host calls can cost differently as a client)
  double speed = 1;
  /// MPS at N=2: the ladder's own cell set the model's contention (fit_to_ladder), so it is a
  /// calibration, not a prediction, and is held against nothing.
  bool calibration = false;
  /// By the simulator (docs/PREDICT.md) from the program's profile alone and the X-ray: nothing of the
  /// ladder feeds it (fit_to_ladder leaves it as it is).
  bool simulated = false;
  /// The simulator's interval on the loss: its phase draws' least and largest (copies out of phase, docs/PREDICT.md),
  /// each over the alone runs' spread where there are two or more; NaN without phase draws.
  double loss_low = NAN, loss_high = NAN;
  double throughput() const { return speed * procs / prediction.loss; }  ///< in copies alone (time-sliced)
  double throughput_low() const;  ///< with the upper end of a bracket (= throughput() without one)
  /// The interval in throughput (the most loss gives the least), {NaN, NaN} without one.
  std::pair<double, double> throughput_interval() const;
};

/// Predictions for N = 2 .. max_procs, time-sliced then MPS for each N.
std::vector<PredictedCell> predict_ladder(const AloneFacts& alone, const SchedulerFacts& sched, int max_procs);
struct MeasuredCell;

/// Under MPS, copies side by side also slow each other's device work (memory bandwidth, caches, the SMs'
/// issue slots), which one copy alone cannot show: the ladder's N=2 under MPS does. Its time per unit over
/// one copy alone under MPS, less 1, is the loss a second copy adds. A copy busy a share d of its time is
/// delayed by another's device work only while both are busy, at most d x d (the other copy's work wholly
/// in the way of its own); a larger measured loss is host contention or noise and is not carried to
/// larger N. Each further copy adds the same: loss(N) = 1 + (N - 1) x per_copy.
struct MpsContention {
  double measured = NAN;  ///< N=2's time per unit over N=1's, under MPS, less 1 (NaN: either did not run ok)
  double cap = NAN;       ///< d x d, with d the busy share alone
  double per_copy = NAN;  ///< what the model adds per copy: measured within [0, cap] (NaN: not calibrated)
};
MpsContention mps_contention(const AloneFacts& alone, const std::vector<MeasuredCell>& ladder);

/// The simulator's predictions for a program profiled alone (the time-sliced N=1 run of the sweep in
/// `alone_dir`), N = 2 .. max_procs, both modes, on the ladder's unit (`per_step`: a step, the program's
/// --exec-metric or from its profile; else the whole run) over that run's, over `phases` phase draws
/// (predict_cells). UsageError where the run has no profile to replay.
std::vector<PredictedCell> simulate_ladder(const std::filesystem::path& alone_dir, bool per_step, double gap_us,
                                           const SchedulerFacts& sched, int max_procs, int phases);

/// Fits the MPS predictions to the ladder's rungs so far: their speed to one copy alone under MPS (the
/// ladder's N=1; 1 where it did not run ok) and their loss to the contention of N=2 (mps_contention;
/// the N=2 cell becomes a calibration). Without those rungs, the model's own MPS prediction stands.
void fit_to_ladder(std::vector<PredictedCell>& predicted, const AloneFacts& alone,
                   const std::vector<MeasuredCell>& ladder);
const PredictedCell* find_predicted(const std::vector<PredictedCell>& cells, ModeKind mode, int procs);

/// Which throughput decides the advice: per unit (a step or task) while the copies work, or per whole run, the
/// start-up a user pays for included (docs/ADVISE.md "Two bases").
enum class Basis { unit, run };
const char* basis_name(Basis b);  ///< "unit", "run"
/// The basis in prose: "per step" (per `unit`'s word), "per whole run".
std::string basis_words(Basis b, LadderUnit unit);

/// --basis auto: the whole run decides where one run alone, start-up included, is shorter than this (a few
/// minutes: what users pay for is the run); longer runs are decided by their steady units.
inline constexpr double kRunBasisBelowS = 300;

/// --basis as given: one of the two, or auto (nullopt). Nullopt for any other word too: check is_basis_word.
std::optional<Basis> parse_basis(const std::string& word);
/// Whether `word` is what --basis takes: auto, unit or run.
bool is_basis_word(const std::string& word);

/// The basis that decides and why: `asked` (unit, run; nullopt: auto: a program's whole run where it is
/// shorter than kRunBasisBelowS, bench_mps's own workloads' units, whose run length is a benchmark setting); a
/// program timed by its whole run (no --exec-metric) has only that one.
struct BasisChoice {
  Basis basis = Basis::unit;
  std::string why;
};
BasisChoice choose_basis(std::optional<Basis> asked, const AloneFacts& alone);

/// One worker set of a cell: one run of the child sweep (advise's sweeps run one round per set).
/// Copies of a latency program held at the start gate: the longest hold of any copy, and the copy held least with its
/// p99. A paced program owes the requests that fell due while it was held, so a held copy's latency holds its hold
/// (results/2026-12-03-advise-lease4); NaN where no copy recorded a hold.
struct GateHolds {
  double max_s = NAN, least_s = NAN, least_p99_ms = NAN;
  void add(double held_s, double p99_ms);  ///< one copy (a NaN hold: none recorded, left out)
  void add(const GateHolds& other);        ///< another set's copies
};

struct SetMeasurement {
  bool ok = false;
  std::string problem;  ///< not ok: the status and reason of the run, or why nothing was read
  double unit_ms = NAN, p99_ms = NAN;
  double per_s = NAN;                ///< unit basis: units finished per second while the copies work, all together
  double run_per_s = NAN;            ///< run basis: the same units over the whole runs, start-up included
  double run_s = NAN;                ///< a copy's whole run, start-up included (mean over its copies)
  double startup_s = NAN;            ///< a copy's start-up before its first unit (NaN where not known)
  double energy_j = NAN;             ///< the board's energy over the run (NaN without NVML's counter)
  std::vector<double> check_values;  ///< --check-metric: each copy's last value (NaN: it printed none)
  double units = NAN;                ///< units all copies finished
  /// --exec-metric-kind latency: a copy's time per request served (its copies over per_s, in ms), which a longer job
  /// takes per unit; its unit_ms is a request's latency. NaN for every other unit (a job takes unit_ms per unit).
  double served_ms = NAN;
  /// --exec-metric-kind latency: its copies' holds at the start gate (GateHolds).
  GateHolds holds;
  /// Per unit, whether its N copies ran together: always where the unit is a task; where it is the program's
  /// metric, where its copies' lines met (MetricWindow; unchecked, so co-run, in a sweep of before 2026-12-03); a
  /// ladder timed from its profiles (UnitChoice::profiled) only where every copy's unit is had over the run's
  /// common window (harness/predict/measured_units.hpp). A set that is not co-run has no unit_ms nor per_s and
  /// is left out of every per-unit mean and interval; per whole run it counts.
  bool co_run = true;
  std::string not_co_run;  ///< not co-run: why ("2 of 4 copies not co-run", ...)
  /// A ladder timed from its profiles: the share of its copies' steady parts the window in which all were steady
  /// covered (units.csv's coverage; a set is co-run from 0.8); NaN where units.csv has none. Timed by the metric:
  /// the share of its copies' lines' spans the window in which all printed covered (NaN: unchecked).
  double coverage = NAN;
  /// Not co-run at N >= 2 (harness/predict/not_co_run_note): its longest copy steady part over its shortest (NaN
  /// where not timed from the profiles), and its median copy's CPU busy share of its run (NaN without the facts).
  double parting = NAN, cpu_share = NAN;
  /// One copy alone again after the ladder (kAloneLastFolder): the anchor's last draw (alone_drift).
  bool after_ladder = false;
};

/// Coverage shares in whole percent, rounded down (0.795 is not 80 %, the co-run line): "70" for one share, "70-79"
/// for a range.
std::string coverage_percent(double least, double most);

/// What one mode at one N of the ladder measured, over its worker sets: the unit's time, averaged over
/// its copies and sets, and the units all copies finished per second. A program that paces itself
/// (mlp-infer's requests at a set rate) finishes as many units in either mode as long as it keeps up,
/// however long each takes: its throughput is what was served, not N over the loss.
struct MeasuredCell {
  int procs = 0;
  Mode mode;            ///< timeslice, mps or a limited MPS mode (mps:auto), as its sweep ran it
  bool ok = false;      ///< every set ran ok
  std::string problem;  ///< not ok: the first failed set's status and reason, or why nothing was read
  std::vector<SetMeasurement> sets;
  double unit_ms = NAN, p99_ms = NAN;  ///< means over the (co-run) sets (p99: the worst set's)
  double per_s = NAN, run_per_s = NAN, run_s = NAN, startup_s = NAN;  ///< means over the sets
  double energy_per_unit_j = NAN;    ///< the sets' energy over their units (NaN where a set has none)
  std::vector<double> check_values;  ///< --check-metric: every copy's last value over the sets
  std::string check_problem;         ///< --check-metric: why its copies' output failed the check ("": it held)
  double loss = NAN;                 ///< unit_ms over the ladder's own time-sliced N=1
  double relative = NAN;             ///< per unit: per_s over the ladder's own time-sliced N=1, in copies alone
  double relative_run = NAN;         ///< per whole run: run_per_s over the same N=1's
  double throughput() const { return relative; }  ///< per unit (what the predictions are on)
  double throughput(Basis b) const { return b == Basis::unit ? relative : relative_run; }
  /// Each set's units per second on `b`: the independent values every interval is over (per unit the co-run
  /// sets only). A cell built without sets (tests) gives its one mean.
  std::vector<double> set_rates(Basis b) const;
  std::vector<double> set_unit_ms() const;  ///< each co-run set's unit
  /// The sets whose copies ran together (SetMeasurement::co_run): the ones the per-unit means are over.
  int co_run_sets() const;
  /// Adds one set and sets the means again (ok and problem from every set).
  void add(const SetMeasurement& s);
  /// Whether this is the plain `kind` a ladder runs (timeslice, mps; not a limited or optioned MPS mode).
  bool is(ModeKind kind) const { return is_plain(mode, kind); }
};
/// One copy alone again after the ladder (kAloneLastFolder): its last set's units per second on `b` over the mean of
/// its first `first_sets` (the ladder's N=1); 1 is no drift. NaN where either is not measured (a set not ok, not
/// co-run, fewer than first_sets + 1 sets, or a last set that is not SetMeasurement::after_ladder).
double alone_drift(const MeasuredCell& c, Basis b, std::size_t first_sets);
/// alone_drift of the ladder's plain N=1 cell of `mode`, its first sets the first rung's (kSetsPerRung); NaN where
/// the ladder has no such cell or it did not run again.
double alone_drift(const std::vector<MeasuredCell>& ladder, ModeKind mode, Basis b);

/// The ladder's cell of the plain `kind` at `procs`, or null.
const MeasuredCell* find_measured(const std::vector<MeasuredCell>& cells, ModeKind kind, int procs);
/// The cell of exactly `mode` (a limited one too) at `procs`, or null.
const MeasuredCell* find_measured(const std::vector<MeasuredCell>& cells, const Mode& mode, int procs);

/// The cell of `mode` at `procs` in `cells`, made where there is none.
MeasuredCell& cell_for(std::vector<MeasuredCell>& cells, const Mode& mode, int procs);

/// --check-metric: why `c`'s copies fail the check against one copy alone's `reference` value, each within
/// `tolerance_pct` percent of it; "" where every copy printed a value that holds.
std::string check_problem(const MeasuredCell& c, double reference, double tolerance_pct);

/// Fills every cell's loss and throughput from the time-sliced N=1 cell (NaN where it is missing).
void set_losses(std::vector<MeasuredCell>& cells);

/// A prediction held against its rung.
struct Check {
  int procs = 0;
  ModeKind mode = ModeKind::timeslice;
  double predicted = NAN, predicted_low = NAN, measured = NAN;  ///< throughput, copies alone
  double interval_low = NAN, interval_high = NAN;               ///< the prediction's interval in throughput (NaN: none)
  /// predicted / measured - 1, or 0 where a bracket [low, predicted] holds the measurement
  double error() const;
  /// Whether the measurement lies inside the prediction's interval: 1 inside, 0 outside, -1 without an interval.
  int inside() const;
};
/// "k of m": the checks whose measurement lies inside their prediction's interval, of those with an interval; ""
/// where none has one.
std::string coverage_words(const std::vector<Check>& checks);
std::vector<Check> check_predictions(const std::vector<PredictedCell>& predicted,
                                     const std::vector<MeasuredCell>& measured);

/// Knee: going from the previous rung to this one raised the best throughput by less than this.
inline constexpr double kKneeGain = 0.05;
/// Whether a cell's `rate` is within kKneeGain of the best rate (`best`): the knee advised is the fewest copies that
/// are (advise's pick, and the advice for a job of a given length).
inline bool within_knee_gain(double rate, double best) { return rate >= (1 - kKneeGain) * best; }
/// The best throughput on `basis` of the ok time-sliced or MPS cells at N (NaN: none).
double best_throughput(const std::vector<MeasuredCell>& cells, int procs, Basis basis = Basis::unit);
/// The seconds the ladder's rung of N copies should take, from the rungs run so far ({N, seconds}, in order): none,
/// 0 (run it); one, in proportion to N; two or more, on the line through the last two, never below the last
/// (a rung's time is mostly its copies' start-up, which N copies spend at once: 29, 30, 35, 35, 38 s for N = 1,
/// 2, 4, 8, 10 of zoo paced-infer on an H200, results/2026-12-03-advise-lease4; a GPU-bound program's time-sliced
/// sets grow with N, which the line follows too).
double rung_seconds_estimate(const std::vector<std::pair<int, double>>& done, int n);
/// Whether the ladder ends at rung n > 1 for its knee: its best throughput on `basis` rose less than kKneeGain over
/// `previous_best` (the rung before's), said in words ("the knee: ..."); "" where it rose more, or where the knee
/// cannot be judged: no previous best, or an ok cell of n with no throughput on `basis` (a mode whose copies did not
/// run together: its best is unknown, and the other mode's alone would end the ladder on half a rung).
std::string knee_reason(const std::vector<MeasuredCell>& cells, int n, double previous_best, Basis basis,
                        LadderUnit unit);

}  // namespace bench_mps::harness
