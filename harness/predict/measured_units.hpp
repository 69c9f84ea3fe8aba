#pragma once
// What each copy of a sweep's runs measured, on the two bases a prediction is scored on: its whole run
// (the command's completion, start-up included) and its unit. A unit is the program's own step where it
// prints one (--exec-metric), else a step between two host waits that count, from the copy's GPU profile,
// over the window in which every copy of the run was in its steady part (docs/PREDICT.md "Measured"). A run
// whose common window covers less than kMinCoRunCoverage of some copy's steady part, or holds fewer than
// kMinCommonStepEnds step ends, did not run its N copies together: its copies are "not co-run", without a unit.
// `bench_mps predict --measure DIR` writes them to DIR/units.csv, so that the profiles may go.
#include "harness/predict/wing.hpp"

#include "harness/common/run_status.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/results/co_run.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace bench_mps::harness {

/// How a copy's unit was had: the program's own metric, the run's common window, none because the copies'
/// steady parts did not overlap enough (`not co-run`: left out of every score), or none for another reason
/// (MeasuredUnit::why: no GPU profile, no host waits recorded, ...).
enum class UnitBasis { metric, common_window, not_co_run, other_phase, none };
/// units.csv's word: "metric", "common window", "not co-run", "other phase"; for none the reason is written instead.
/// other_phase: a copy of N >= 2 that kept the part of its steps its sweep's runs alone left out (mark_other_phase).
const char* unit_basis_word(UnitBasis b);
/// Whether the unit counts as N copies at once (metric, common window): a metric's run is not co-run where its
/// copies' lines did not overlap (MetricWindow), unchecked where runs.csv has no span of them.
inline bool co_run(UnitBasis b) { return b == UnitBasis::metric || b == UnitBasis::common_window; }

struct MeasuredUnit {
  std::string run_id;
  Mode mode;
  int procs = 0, repeat = 0, worker = 0;
  RunStatus status = RunStatus::ok;  ///< the copy's status in runs.csv
  double run_s = 0;                  ///< the command's completion (exec's completion_s), NaN where unknown
  double unit_ms = 0;                ///< its unit, NaN where none could be measured
  UnitBasis basis = UnitBasis::none;
  std::string why;  ///< basis none: why there is no unit
  /// units.csv's unit_basis cell: the basis's word, or why there is none.
  std::string basis_text() const { return basis == UnitBasis::none ? why : unit_basis_word(basis); }
  long steps = 0;  ///< the steps (waits) the unit is the mean of
  /// its steady part (from its release where gated, the kept phase), s; a metric's: its lines' span (MetricWindow)
  double steady_s = NAN;
  double coverage = NAN;  ///< the common window's share of it (the run is co-run where every copy's >= 0.8)
  /// The run's steps per second, all its copies together, over the common window: the sum of 1 / unit over its
  /// copies (NaN where some copy of the run has no co-run unit, and in a units.csv written before 2026-12-02).
  double run_steps_per_s = NAN;
  /// The steps of one kind its unit follows (StepPhase::words; "" where it has no profiled unit or was read
  /// from a units.csv written before, harness/results/step_phase.hpp).
  std::string phase;
};

/// Where a unit is the program's metric (--exec-metric), whether its copies printed it together: each copy's lines
/// span its first matched line to its last (runs.csv's steps_first_mono_ns, steps_last_mono_ns, CLOCK_MONOTONIC), and
/// the window is where every copy's span lies. A run whose window covers less than kMinCoRunCoverage of some copy's
/// span, or holds fewer than kMinCommonStepEnds of some copy's lines (its lines times its share: lines read evenly
/// over its span), did not run its N copies together. Unchecked (coverage NaN) where a copy has no span: fewer than 2
/// lines, or a sweep of before 2026-12-03, whose metric units stand as they were read.
struct MetricWindow {
  double coverage = NAN;       ///< the least share of a copy's span inside the window (0 where they do not meet)
  double least_lines = NAN;    ///< the fewest lines of one copy inside the window
  std::vector<double> span_s;  ///< each copy's span, s
  bool checked() const { return std::isfinite(coverage); }
  /// Unchecked, or its window covers kMinCoRunCoverage of every copy's span and holds kMinCommonStepEnds lines of each.
  bool co_run() const;
};
/// The metric window of one run's copies (each a runs.csv row of the run).
MetricWindow metric_window(const std::vector<const WorkerRecord*>& copies);

/// Every copy of every run of the exec sweep in `dir` (its runs.csv, and profiles/ where it was profiled).
/// ResultsError where runs.csv cannot be read. Each copy keeps the parts of its steps that the runs alone kept, and
/// at least half as large a share of them (ladder_follow): its own runs of one copy, and an advise folder's ladder
/// N=1 beside it (alone_sweeps_beside).
/// Where the profile kept only a head and a tail of its spans, a copy's part that counts begins in the tail.
std::vector<MeasuredUnit> measure_units(const std::filesystem::path& dir, double gap_us);

/// The copies of N >= 2 whose kept steps are the part the runs alone among `units` left out: where most of those runs
/// left out a head alone (or a tail alone; a tie: the earliest run's), a copy that left out a tail alone (a head alone)
/// kept the other kind of step. measure_units never keeps it (each copy follows its runs alone, ladder_follow); a
/// units.csv measured before it did can hold one (results/2026-12-02-study/mnist-ff: at N=10, 0.69 ms host waits of the
/// head where the runs alone kept steps of about 20 ms). Each is marked other_phase (not the unit the runs alone give,
/// left out of every score as not co-run cells are); how many were.
int mark_other_phase(std::vector<MeasuredUnit>& units);

/// An advise folder's ladder N=1 (`sweeps/ladder-1`: one copy, held at the start gate every rung is held at) where
/// `dir` is another of its child sweeps (`sweeps/ladder-4`, `sweeps/more-1-mps-n4`): the runs alone its units
/// follow; none for any other folder.
std::vector<std::filesystem::path> alone_sweeps_beside(const std::filesystem::path& dir);

/// units.csv's columns (harness/results/results_schema.hpp's Column): written and read through it.
const std::vector<Column<MeasuredUnit, MeasuredUnit>>& units_csv_schema();

/// units.csv: written (replacing any) and read back (ResultsError where damaged).
void write_units(const std::filesystem::path& file, const std::vector<MeasuredUnit>& units);
std::vector<MeasuredUnit> read_units(const std::filesystem::path& file);

}  // namespace bench_mps::harness
