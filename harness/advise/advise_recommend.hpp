#pragma once
// What advise recommends from the ladder it ran: the mode, how many copies, and which thread limit,
// with the reasons in plain words and the numbers behind them. Only measured cells decide; the
// predictions are quoted beside them.
#include "harness/advise/wing.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "harness/advise/advise_model.hpp"
#include "harness/common/stats.hpp"

namespace bench_mps::harness {

enum class AdviceVerdict {
  mps,        ///< MPS: more throughput than time-slicing at the N advised, its interval clear of the 5 % line
  timeslice,  ///< MPS buys nothing measurable (its interval below +5 %): copies may share the GPU time-sliced
  one_copy,   ///< sharing buys nothing in either mode: one copy at a time
  undecided,  ///< MPS against time-slicing: the interval still crosses the 5 % line when the sets ran out
  none,       ///< no configuration ran (or met the SLO), or MPS never ran beside another copy
};
const char* verdict_name(AdviceVerdict v);  ///< "mps", "timeslice", "one-copy", "undecided", "none"

/// MPS is advised where its throughput's interval over time-slicing's lies above 1 + kDecisionBand, and
/// not where it lies below; otherwise the ladder cannot tell (more worker sets may).
inline constexpr double kDecisionBand = 0.05;
/// An interval across the line: the most more worker sets of each that advise.md estimates (more_samples_to_clear)
/// before it says no budget within reach decides it.
inline constexpr int kMoreSetsCap = 100;

/// "1.09x (1.03-1.15)", or "1.09x (one worker set each: no interval)".
std::string times_with_interval(const RatioInterval& r);
/// A cell's throughput in copies alone on `b` (ratio) and its ~94 % interval over the cell's worker sets and one copy
/// alone's (the ladder's time-sliced N=1, which every "x alone" divides by: issue 42's alone runs with their
/// spread); for that cell itself, the interval of its own mean (Student's t on the log, as ratio_of_means'). lo and
/// hi NaN where either side has one set.
RatioInterval interval_alone(const MeasuredCell& c, const std::vector<MeasuredCell>& ladder, Basis b);
/// interval_alone in words: "1.88x (1.86-1.90)", the bare ratio where it has no interval.
std::string times_alone(const MeasuredCell& c, const std::vector<MeasuredCell>& ladder, Basis b);
/// Where `r` lies against 1 + kDecisionBand: 1 above, -1 below, 0 across it (or without an interval).
int side_of_band(const RatioInterval& r);

/// The ladder's choice before any thread limit: per mode the best throughput on `basis` and the smallest N
/// within kKneeGain of it (the knee), over the cells that ran and met the SLO; MPS against time-slicing
/// decided from their worker sets' interval.
/// The modes whose copies never ran together at N >= 2 (never_co_run), each with the cells it has there and how far
/// their sets were from co-run, in words.
struct NeverCoRun {
  std::vector<std::string> modes;  ///< per mode: "time-sliced, no run of N >= 2 copies ran together (N=2, 4: ...)"
  bool empty() const { return modes.empty(); }
  /// The modes' words, "; " between them.
  std::string words() const;
  /// words() and what follows: ", so that mode's sharing was not measured", or with both modes named, ", so neither
  /// mode's sharing was measured".
  std::string said() const;
};

struct Pick {
  AdviceVerdict verdict = AdviceVerdict::none;
  Basis basis = Basis::unit;
  double slo = NAN;                    ///< the p99 target the cells were held to (NaN: none)
  int procs = 0;                       ///< the N advised (0: none)
  const MeasuredCell* cell = nullptr;  ///< the advised cell
  const MeasuredCell* best_ts = nullptr;
  const MeasuredCell* best_mps = nullptr;
  const MeasuredCell* knee_mps = nullptr;  ///< MPS's fewest copies within kKneeGain of its best
  RatioInterval gain{NAN, NAN, NAN};       ///< best MPS throughput over best time-sliced throughput, its interval
  double mps_gain = NAN;                   ///< gain.ratio
  /// At the N advised when throughput ties (a paced program serves its rate in either mode): the
  /// time-sliced unit time over MPS's; MPS is advised where its interval lies above 1 + kDecisionBand
  RatioInterval speedup{NAN, NAN, NAN};
  double mps_speedup = NAN;  ///< speedup.ratio (NaN: not compared)
  /// Per unit, why a mode's best is not known: its copies never ran together at N >= 2 (every ok cell of it there
  /// not co-run, a unit from the profiles), so a best over its other cells would leave its sharing out ("": known).
  /// The verdict is then undecided, and more sets of the best cells would not settle it.
  NeverCoRun unmeasured;
  /// The cells whose sets would settle an undecided verdict: the best of each mode.
  bool open() const { return verdict == AdviceVerdict::undecided && best_ts && best_mps && unmeasured.empty(); }
};
Pick pick(const std::vector<MeasuredCell>& ladder, double slo_p99_ms, Basis basis = Basis::unit);

/// Per unit, the modes whose N >= 2 copies never ran together: every ok cell of the mode at N >= 2 has worker sets
/// and none of them co-run (a unit from the profiles), in words (none where each mode has a co-run cell there, or
/// none that ran ok): a best over that mode's other cells would leave its sharing out.
NeverCoRun never_co_run(const std::vector<MeasuredCell>& ladder);

/// One copy alone under MPS against time-sliced, per unit (the ladder's N=1 cells): their speed ratio and
/// interval; NaN where either did not run ok.
RatioInterval one_copy_mode_gap(const std::vector<MeasuredCell>& ladder);

struct Recommendation {
  AdviceVerdict verdict = AdviceVerdict::none;
  std::string mode;  ///< what to pass to --modes (or set up): "timeslice", "mps", "mps:auto"; empty: none
  int procs = 0;
  std::string headline;  ///< one sentence
  std::vector<std::string> reasons;
};

/// The recommendation: `pick`'s, with the first of `limits` (the advised N under mps:auto, then under a
/// larger percentage, as far as measured) whose units ran at least 95% as fast as under unlimited MPS.
/// `basis` decides; what the other basis would say is among the reasons.
/// A latency program (--exec-metric-kind latency) whose copies were held at the start gate over 50 ms: a sentence
/// (with a leading space) saying that its p99 holds the hold, with the least-held copy's p99; "" otherwise.
std::string gate_backlog_words(const MeasuredCell& c);

Recommendation recommend(const AloneFacts& alone, const std::vector<MeasuredCell>& ladder,
                         const std::vector<PredictedCell>& predicted, const std::vector<MeasuredCell>& limits,
                         double slo_p99_ms, Basis basis = Basis::unit);

/// Units under `limit` run at this share of unlimited MPS's speed (its unit time over the limit's, over
/// their worker sets, with the interval), or NaN.
RatioInterval limit_keeps(const MeasuredCell& unlimited, const MeasuredCell& limit);
/// "its copies did not co-run in its 2 worker sets (the window in which all were steady covered 68-70 % of a
/// copy's steady part, under the 80 % a co-run set needs)": a cell none of whose sets co-ran.
std::string sets_not_co_run_words(const MeasuredCell& c);
/// Why limit_keeps has no ratio, in words ("" where it has one): none of the limit's worker sets co-ran (with how
/// much of a copy's steady part their common window covered), or none of unlimited MPS's at that N did, so there is
/// no time per `unit` to set one beside the other.
std::string limit_unmeasured_words(const MeasuredCell& unlimited, const MeasuredCell& limit, const std::string& unit);
/// A limit is advised where its units run at least this fast, the whole interval above it.
inline constexpr double kLimitKeeps = 0.95;

}  // namespace bench_mps::harness
