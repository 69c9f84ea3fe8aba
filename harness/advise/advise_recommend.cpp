#include "harness/advise/advise_recommend.hpp"
#include "harness/advise/advise_spec.hpp"

#include <algorithm>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/predict/measured_units.hpp"
#include "harness/predict/not_co_run_note.hpp"

namespace bench_mps::harness {
namespace {

bool feasible(const MeasuredCell& c, double slo, Basis basis) {
  return c.ok && std::isfinite(c.throughput(basis)) &&
         (std::isnan(slo) || (std::isfinite(c.p99_ms) && c.p99_ms <= slo));
}

/// The feasible cell of `mode` with `min_procs` copies or more whose throughput is highest (null: none).
const MeasuredCell* best_feasible(const std::vector<MeasuredCell>& ladder, ModeKind mode, double slo, Basis b,
                                  int min_procs) {
  const MeasuredCell* best = nullptr;
  for (const MeasuredCell& c : ladder)
    if (c.is(mode) && c.procs >= min_procs && feasible(c, slo, b) && (!best || c.throughput(b) > best->throughput(b)))
      best = &c;
  return best;
}

/// The best cell of `mode` and the knee: the smallest N within kKneeGain of the best.
std::pair<const MeasuredCell*, const MeasuredCell*> best_and_knee(const std::vector<MeasuredCell>& ladder,
                                                                  ModeKind mode, double slo, Basis b) {
  const MeasuredCell* best = best_feasible(ladder, mode, slo, b, 1);
  const MeasuredCell* knee = best;
  for (const MeasuredCell& c : ladder)
    if (best && c.is(mode) && feasible(c, slo, b) && within_knee_gain(c.throughput(b), best->throughput(b)) &&
        c.procs < knee->procs)
      knee = &c;
  return {best, knee};
}

/// What sharing the GPU bought in `mode`: its best rung of two copies or more over one copy in that mode, with the
/// interval over their worker sets (no cell: no such rung, or no one copy, ran ok).
struct SharingGain {
  const MeasuredCell* cell = nullptr;
  RatioInterval over_one{NAN, NAN, NAN};
};
SharingGain sharing_gain(const std::vector<MeasuredCell>& ladder, ModeKind mode, double slo, Basis b) {
  SharingGain g;
  const MeasuredCell* one = find_measured(ladder, mode, 1);
  if (!one || !feasible(*one, slo, b)) return g;
  g.cell = best_feasible(ladder, mode, slo, b, 2);
  if (g.cell) g.over_one = ratio_of_means(g.cell->set_rates(b), one->set_rates(b));
  return g;
}

/// "per step" or "per whole run, start-up included".
std::string basis_words(Basis b, const std::string& unit) {
  return b == Basis::unit ? "per " + unit : "per whole run (start-up included)";
}

std::string pct(double share) { return fmt_fixed(100 * share, 1) + " %"; }

/// What sharing the GPU bought in `modes`, for a one-copy headline, each mode's best rung of two copies or more over
/// one copy in that mode: "bought less than 5.0 % throughput per step (N=2 at best: 1.01x (0.99-1.03) one copy's)"
/// where every interval lies below the +kKneeGain line; else "was within 5.0 % of one copy's throughput by the means
/// per step (...), an interval reaching past the +5.0 % line" (the knee is taken from the means). `per` may be "".
std::string sharing_words(const std::vector<MeasuredCell>& ladder, const std::vector<ModeKind>& modes, double slo,
                          Basis b, const std::string& per) {
  bool below = true, unmeasured = false;
  std::string each;
  for (const ModeKind mode : modes) {
    const SharingGain g = sharing_gain(ladder, mode, slo, b);
    const std::string name = modes.size() == 1 ? "" : mode == ModeKind::timeslice ? " time-sliced" : " under MPS";
    if (!each.empty()) each += ", ";
    if (!g.cell) {
      each += (name.empty() ? "" : name.substr(1) + ": ") + "no rung of two copies or more ran ok beside one copy";
      continue;
    }
    if (!g.over_one.has_interval())
      unmeasured = true;
    else if (!(g.over_one.hi < 1 + kKneeGain))
      below = false;
    const std::string n = "N=" + std::to_string(g.cell->procs);
    each += modes.size() == 1 ? n + " at best: " + times_with_interval(g.over_one) + " one copy's"
                              : times_with_interval(g.over_one) + name + " at " + n;
  }
  const std::string of = (per.empty() ? "" : " " + per) + " (" +
                         (modes.size() == 1 ? each : "at best, over one copy in the same mode: " + each) + ")";
  if (below && !unmeasured) return "bought less than " + pct(kKneeGain) + " throughput" + of;
  return "was within " + pct(kKneeGain) + " of one copy's throughput by the means" + of +
         (below ? ", without an interval for every mode"
                : ", an interval reaching past the +" + pct(kKneeGain) + " line");
}

std::string regime_words(const AloneFacts& a) {
  if (!a.placed()) return "One copy alone: " + a.problem + ", so the model could not place it.";
  if (!std::isfinite(a.duty) || !(a.point.step_ms > 0))  // its sweep never gave a run to read (advise.cpp's alone())
    return "One copy alone was not measured, so the model could not place it.";
  std::string s = "One copy alone keeps the GPU busy " + pct(a.duty) + " of the time, in bursts of " +
                  fmt_sig(a.point.burst_ms) + " ms (" + a.burst_basis + ") every " + fmt_sig(a.point.step_ms) + " ms";
  // A burst spans its first kernel's start to its last one's end: where its kernels run less of it, say how much,
  // which is what the busy share counts (busy = kernels / step).
  if (a.point.kernel_ms > 0 && fmt_sig(a.point.kernel_ms) != fmt_sig(a.point.burst_ms))
    s += ", its kernels running " + fmt_sig(a.point.kernel_ms) + " ms of each";
  if (std::isfinite(a.point.footprint))
    s += "; its kernels fill " + pct(a.point.footprint) + " of the SMs (" + a.footprint_basis + ")";
  return s + ".";
}

std::string cell_words(const MeasuredCell& c, const std::vector<MeasuredCell>& ladder,
                       const std::vector<PredictedCell>& predicted, ModeKind mode, const std::string& unit, Basis b) {
  std::string s = std::to_string(c.procs) + (c.procs == 1 ? " copy " : " copies ") +
                  (mode == ModeKind::timeslice ? "time-sliced" : "under MPS") + " ran " + times_alone(c, ladder, b) +
                  " the throughput of one copy alone " + basis_words(b, unit) + " (ideal " + std::to_string(c.procs) +
                  "x; " + std::to_string(c.sets.size()) + " worker set" + (c.sets.size() == 1 ? "" : "s") + "), each " +
                  unit + " " + fmt_times(c.loss) + " the time alone";
  // The model predicts per unit only: on the whole-run basis its number says its own basis.
  if (const PredictedCell* p = find_predicted(predicted, mode, c.procs); p && std::isfinite(p->prediction.loss))
    s += "; the model predicted " + fmt_times(p->throughput()) +
         (b == Basis::unit ? "" : " " + basis_words(Basis::unit, unit) + ", the only basis it predicts") + " (" +
         p->prediction.why + ")";
  return s;
}

std::string limit_words(const Mode& mode, int procs) {
  return mode.auto_pct ? "each client limited to 100/N = " + fmt_fixed(100.0 / procs, 0) + " % of the SMs"
                       : "each client limited to " + std::to_string(mode.active_thread_pct) + " % of the SMs";
}

}  // namespace

/// A latency program's copies held at the start gate longer than kBacklogHoldS: a paced program owes the requests
/// that fell due while it was held, so their latency holds the hold; said with the copy held least ("" otherwise).
std::string gate_backlog_words(const MeasuredCell& c) {
  constexpr double kBacklogHoldS = 0.05;
  GateHolds holds;
  for (const SetMeasurement& s : c.sets) holds.add(s.holds);
  const double held_max = holds.max_s, least = holds.least_s, least_p99 = holds.least_p99_ms;
  if (!(held_max > kBacklogHoldS)) return "";
  const std::string least_words = std::isfinite(least_p99) ? " The copy held least (" + fmt_sig(1000 * least) +
                                                                 " ms) had a p99 of " + fmt_sig(least_p99) + " ms."
                                                           : std::string();
  return " Its copies were held at the start gate for up to " + fmt_sig(held_max) +
         " s, and a paced program owes the requests that fell due while it was held, so that p99 includes up to "
         "that long a wait." +
         least_words +
         " For a program with its own clock, gate it before the clock starts (--exec-gate wait:K) or not at all "
         "(--exec-gate off): docs/ADVISE.md.";
}

/// The least and largest coverage over the sets of `cells` (least > most where none has one).
std::pair<double, double> coverage_range(const std::vector<const MeasuredCell*>& cells) {
  double least = INFINITY, most = -INFINITY;
  for (const MeasuredCell* c : cells)
    for (const SetMeasurement& s : c->sets)
      if (std::isfinite(s.coverage)) {
        least = std::min(least, s.coverage);
        most = std::max(most, s.coverage);
      }
  return {least, most};
}

/// "68-70 % of a copy's steady part, under the 80 % a co-run set needs" ("" where no set has a coverage).
std::string coverage_under_line(const std::vector<const MeasuredCell*>& cells) {
  const auto [least, most] = coverage_range(cells);
  if (most < least) return "";
  return coverage_percent(least, most) + " % of a copy's steady part, under the " +
         fmt_fixed(100 * kMinCoRunCoverage, 0) + " % a co-run set needs";
}

NeverCoRun never_co_run(const std::vector<MeasuredCell>& ladder) {
  NeverCoRun out;
  for (const ModeKind mode : kLadderModes) {
    std::string at;
    bool together = false;
    std::vector<const MeasuredCell*> cells;
    for (const MeasuredCell& c : ladder)
      if (c.is(mode) && c.procs >= 2 && c.ok && !c.sets.empty()) {
        if (c.co_run_sets() > 0) together = true;
        at += (at.empty() ? "N=" : ", ") + std::to_string(c.procs);
        cells.push_back(&c);
      }
    if (together || at.empty()) continue;
    const std::string under = coverage_under_line(cells);
    const std::string covered =
        under.empty() ? std::string() : "; the window in which all copies were steady covered " + under;
    out.modes.push_back(std::string(mode == ModeKind::timeslice ? "time-sliced" : "under MPS") +
                        ", no run of N >= 2 copies ran together (" + at + ": not co-run" + covered + ")");
  }
  return out;
}

std::string NeverCoRun::words() const {
  std::string s;
  for (const std::string& m : modes) s += (s.empty() ? "" : "; ") + m;
  return s;
}

std::string NeverCoRun::said() const {
  return words() +
         (modes.size() > 1 ? ", so neither mode's sharing was measured" : ", so that mode's sharing was not measured");
}

RatioInterval limit_keeps(const MeasuredCell& unlimited, const MeasuredCell& limit) {
  if (!limit.ok || !(limit.unit_ms > 0) || !(unlimited.unit_ms > 0)) return {NAN, NAN, NAN};
  return ratio_of_means(unlimited.set_unit_ms(), limit.set_unit_ms());
}

std::string sets_not_co_run_words(const MeasuredCell& c) {
  const std::string under = coverage_under_line({&c});
  const std::string sets = std::to_string(c.sets.size()) + " worker set" + (c.sets.size() == 1 ? "" : "s");
  return "its copies did not co-run in its " + sets +
         (under.empty() ? std::string() : " (the window in which all were steady covered " + under + ")");
}

std::string limit_unmeasured_words(const MeasuredCell& unlimited, const MeasuredCell& limit, const std::string& unit) {
  if (!limit.ok || std::isfinite(limit_keeps(unlimited, limit).ratio)) return "";
  const std::string none = "no time per " + unit + " to set beside ";
  if (limit.sets.empty() || limit.co_run_sets() > 0 || limit.unit_ms > 0)
    return "unlimited MPS at N=" + std::to_string(unlimited.procs) + " has no co-run worker set: " + none +
           "the limit's";
  return sets_not_co_run_words(limit) + ": " + none + "unlimited MPS's";
}

std::string times_with_interval(const RatioInterval& r) {
  return fmt_times_interval(r, " (no interval: a side has under two worker sets that count)");
}

RatioInterval interval_alone(const MeasuredCell& c, const std::vector<MeasuredCell>& ladder, Basis b) {
  const double x = c.throughput(b);
  RatioInterval r{x, NAN, NAN};
  const MeasuredCell* alone = find_measured(ladder, ModeKind::timeslice, 1);
  if (!std::isfinite(x) || !alone || !alone->ok) return r;
  if (alone != &c) {
    const RatioInterval of_means = ratio_of_means(c.set_rates(b), alone->set_rates(b));
    r.lo = of_means.lo;
    r.hi = of_means.hi;
    return r;
  }
  // One copy alone itself: its own mean's interval, on the log scale as ratio_of_means' (never below 0).
  const std::vector<double> rates = c.set_rates(b);
  if (rates.size() < 2) return r;
  const double n = static_cast<double>(rates.size()), m = mean(rates);
  if (!(m > 0)) return r;
  const double half =
      student_t_quantile((1 + kMedianCiCoverage) / 2, n - 1) * std::sqrt(sample_variance(rates) / (n * m * m));
  r.lo = x * std::exp(-half);
  r.hi = x * std::exp(half);
  return r;
}

std::string times_alone(const MeasuredCell& c, const std::vector<MeasuredCell>& ladder, Basis b) {
  return fmt_times_interval(interval_alone(c, ladder, b));
}

int side_of_band(const RatioInterval& r) {
  if (!r.has_interval()) return 0;
  if (r.lo >= 1 + kDecisionBand) return 1;
  if (r.hi < 1 + kDecisionBand) return -1;
  return 0;
}

const char* verdict_name(AdviceVerdict v) {
  switch (v) {
    case AdviceVerdict::mps:
      return "mps";
    case AdviceVerdict::timeslice:
      return "timeslice";
    case AdviceVerdict::one_copy:
      return "one-copy";
    case AdviceVerdict::undecided:
      return "undecided";
    case AdviceVerdict::none:
      break;
  }
  return "none";
}

RatioInterval one_copy_mode_gap(const std::vector<MeasuredCell>& ladder) {
  const MeasuredCell* ts = find_measured(ladder, ModeKind::timeslice, 1);
  const MeasuredCell* mps = find_measured(ladder, ModeKind::mps, 1);
  if (!ts || !mps || !ts->ok || !mps->ok) return {NAN, NAN, NAN};
  return ratio_of_means(ts->set_unit_ms(), mps->set_unit_ms());
}

Pick pick(const std::vector<MeasuredCell>& ladder, double slo, Basis basis) {
  Pick p;
  p.basis = basis;
  p.slo = slo;
  const auto [best_ts, knee_ts] = best_and_knee(ladder, ModeKind::timeslice, slo, basis);
  const auto [best_mps, knee_mps] = best_and_knee(ladder, ModeKind::mps, slo, basis);
  p.best_ts = best_ts;
  p.best_mps = best_mps;
  p.knee_mps = knee_mps;
  if (best_ts && best_mps) {
    p.gain = ratio_of_means(best_mps->set_rates(basis), best_ts->set_rates(basis));
    p.mps_gain = p.gain.ratio;
  }
  // Time-slicing never ran ok: MPS is all there is; MPS never did: no verdict about it (recommend says why).
  const int side = !best_ts ? 1 : !best_mps ? -1 : side_of_band(p.gain);
  if (best_mps && side > 0) {
    p.verdict = knee_mps->procs > 1 ? AdviceVerdict::mps : AdviceVerdict::one_copy;
    p.cell = knee_mps;
  } else if (best_ts) {
    p.verdict =
        side < 0 ? (knee_ts->procs > 1 ? AdviceVerdict::timeslice : AdviceVerdict::one_copy) : AdviceVerdict::undecided;
    p.cell = side < 0 ? knee_ts : nullptr;
    // The same throughput per unit, but each unit faster under MPS (a program that paces itself: its units per
    // second are its rate in either mode): MPS at that N. A program whose units run faster but whose throughput
    // per unit rose too is not paced, and on the whole-run basis its faster units did not pay.
    const MeasuredCell* mps = find_measured(ladder, ModeKind::mps, knee_ts->procs);
    const bool paced = mps && mps->ok &&
                       side_of_band(ratio_of_means(mps->set_rates(Basis::unit), knee_ts->set_rates(Basis::unit))) < 0;
    if (knee_ts->procs > 1 && paced && feasible(*mps, slo, basis) && mps->unit_ms > 0) {
      p.speedup = ratio_of_means(knee_ts->set_unit_ms(), mps->set_unit_ms());
      p.mps_speedup = p.speedup.ratio;
      // (unless MPS served clearly less: its throughput's interval wholly below 1 - kDecisionBand)
      if (side_of_band(p.speedup) > 0 && !(p.gain.has_interval() && p.gain.hi < 1 - kDecisionBand)) {
        p.verdict = AdviceVerdict::mps;
        p.cell = mps;
      }
    }
  }
  // A best over the cells that ran together leaves out a mode's sharing where none of its N >= 2 cells did.
  if (basis == Basis::unit && p.verdict != AdviceVerdict::none) p.unmeasured = never_co_run(ladder);
  if (!p.unmeasured.empty()) {
    p.verdict = AdviceVerdict::undecided;
    p.cell = nullptr;
  }
  p.procs = p.cell ? p.cell->procs : 0;
  return p;
}

namespace {

std::string mps_unmeasured(const std::vector<MeasuredCell>& ladder) {
  const MeasuredCell* failed = nullptr;
  for (const MeasuredCell& c : ladder) {
    if (!c.is(ModeKind::mps) || c.procs < 2) continue;
    if (c.ok) return "";
    if (!failed) failed = &c;
  }
  return failed ? "no run under MPS beside another copy ended ok (N=" + std::to_string(failed->procs) + ": " +
                      failed->problem + ")"
                : "the ladder ran no rung under MPS beside another copy";
}

/// What a pick says, in a few words: "MPS at N=4", "time-sliced at N=2", "one copy", "can't tell", "no verdict".
std::string verdict_words(const Pick& q) {
  switch (q.verdict) {
    case AdviceVerdict::mps:
      return "MPS at N=" + std::to_string(q.procs);
    case AdviceVerdict::timeslice:
      return "time-sliced at N=" + std::to_string(q.procs) + ", MPS buys under " + pct(kDecisionBand);
    case AdviceVerdict::one_copy:
      return q.cell && q.cell->is(ModeKind::mps) ? "one copy at a time, under MPS" : "one copy at a time";
    case AdviceVerdict::undecided:
      return "can't tell";
    case AdviceVerdict::none:
      break;
  }
  return "no verdict";
}

/// No verdict where MPS never ran beside another copy (`why`): what time-slicing did, only as far as it ran.
void headline_without_mps(const Pick& p, const std::vector<MeasuredCell>& ladder,
                          const std::vector<PredictedCell>& predicted, const std::string& unit, Basis basis,
                          const std::string& why, Recommendation& r) {
  const std::string per = basis_words(basis, unit);
  r.verdict = AdviceVerdict::none;
  // No word on sharing without two copies that ran together.
  const bool ts_shared = std::any_of(ladder.begin(), ladder.end(), [](const MeasuredCell& c) {
    return c.is(ModeKind::timeslice) && c.procs > 1 && c.ok;
  });
  r.headline = "Can't say whether MPS helps: " + why + ". Time-sliced, " +
               (p.best_ts && p.best_ts->procs > 1
                    ? std::to_string(p.best_ts->procs) + " copies ran best: " + times_alone(*p.best_ts, ladder, basis) +
                          " the throughput of one copy alone " + per + "."
                : ts_shared ? "sharing the GPU " + sharing_words(ladder, {ModeKind::timeslice}, p.slo, basis, per) + "."
                            : std::string("no rung of two copies or more ended ok, so nothing is said about sharing."));
  if (p.best_ts)
    r.reasons.push_back("Time-sliced: " + cell_words(*p.best_ts, ladder, predicted, ModeKind::timeslice, unit, basis) +
                        " (its best rung).");
}

/// How many worker sets each side's best cell had, and (per unit) how many of them co-ran: what an interval rests on.
std::string sets_words(const Pick& p, Basis basis) {
  const auto one = [basis](const std::string& side, const MeasuredCell* c) {
    if (!c) return side + ": none";
    const int sets = static_cast<int>(c->sets.size()), co_run = c->co_run_sets();
    return side + " at N=" + std::to_string(c->procs) + ": " + std::to_string(sets) + " set" + (sets == 1 ? "" : "s") +
           (basis == Basis::unit && co_run < sets ? ", " + std::to_string(co_run) + " of them co-run" : "");
  };
  return one("MPS's best", p.best_mps) + "; time-sliced's best" + one("", p.best_ts);
}

/// An interval across the line, what more worker sets would do: k more of each best cell would put it on one side,
/// were they to spread as these did (more_samples_to_clear; -1: even kMoreSetsCap more would not), and whether that
/// takes either cell past the kMaxSetsPerCell sets advise runs one (so that no larger --budget runs them).
struct MoreSets {
  int k = 0;
  bool capped = false;
};
MoreSets more_sets(const Pick& p, Basis basis) {
  MoreSets m;
  m.k =
      more_samples_to_clear(p.best_mps->set_rates(basis), p.best_ts->set_rates(basis), 1 + kDecisionBand, kMoreSetsCap);
  // "k more of each" adds k to both cells, so either may pass the cap
  m.capped = m.k > 0 && (static_cast<int>(p.best_mps->sets.size()) + m.k > kMaxSetsPerCell ||
                         static_cast<int>(p.best_ts->sets.size()) + m.k > kMaxSetsPerCell);
  return m;
}

/// The last sentence of an undecided headline with an interval: what runs more sets, where more sets could decide
/// it (more_sets_words gives the reason at length).
std::string more_sets_headline(const Pick& p, Basis basis) {
  const MoreSets m = more_sets(p, basis);
  if (m.k < 0) return "No budget within reach decides it: the two modes are that close.";
  if (m.capped)
    return "Deciding it takes more sets than the " + std::to_string(kMaxSetsPerCell) +
           " a cell advise runs: a sweep of those cells (--repeats) runs them.";
  return "A larger --budget runs more sets.";
}

/// The worker sets an interval of MPS's best against time-sliced's rests on: "4 and 4 worker sets", or per unit where
/// some did not co-run, "2 and 4 worker sets that co-ran" (a set whose copies ran apart has no rate per unit).
std::string interval_sets_words(const Pick& p, Basis basis) {
  const auto counted = [basis](const MeasuredCell* c) {
    return basis == Basis::unit ? c->co_run_sets() : static_cast<int>(c->sets.size());
  };
  const bool parted = counted(p.best_mps) < static_cast<int>(p.best_mps->sets.size()) ||
                      counted(p.best_ts) < static_cast<int>(p.best_ts->sets.size());  // per unit only
  return std::to_string(counted(p.best_mps)) + " and " + std::to_string(counted(p.best_ts)) + " worker sets" +
         (parted ? " that co-ran" : "");
}

/// Whether each side's best cell ran one worker set: "from one worker set of each" is then the whole story.
bool one_set_each(const Pick& p) {
  for (const MeasuredCell* c : {p.best_mps, p.best_ts})
    if (!c || c->sets.size() != 1) return false;
  return true;
}

/// The headline of a verdict (and the mode it advises, r.mode); false for no verdict (nothing else to say).
bool verdict_headline(const Pick& p, const std::vector<MeasuredCell>& ladder, const std::string& unit, Basis basis,
                      const std::string& slo_words, Recommendation& r) {
  const std::string per = basis_words(basis, unit);
  const std::string against = p.best_ts ? " the best time-sliced (" + fmt_times(p.best_ts->throughput(basis)) +
                                              " at N=" + std::to_string(p.best_ts->procs) + ")"
                                        : std::string();
  switch (p.verdict) {
    case AdviceVerdict::none: {
      // Every throughput is divided by one copy alone, time-sliced: without it nothing can be picked, however
      // many cells ran.
      const MeasuredCell* alone = find_measured(ladder, ModeKind::timeslice, 1);
      if (ladder.empty()) {  // stopped before its first rung (one copy alone failed): its end says why
        r.headline = "No advice: no rung of the ladder ran.";
        return false;
      }
      r.headline = alone && alone->ok ? "No advice: no configuration of the ladder ran" + slo_words + "."
                                      : std::string("No advice: one copy alone, time-sliced, ") +
                                            (alone ? "did not finish" : "is not in the ladder") +
                                            ", and every throughput is divided by it" + slo_words + ".";
      return false;
    }
    case AdviceVerdict::undecided:
      if (!p.unmeasured.empty()) {
        r.headline = "Can't tell whether MPS helps " + per + ": " + p.unmeasured.said() +
                     (std::isfinite(p.gain.ratio)
                          ? " (over the cells that did: MPS's best " + times_with_interval(p.gain) + against + ")"
                          : std::string()) +
                     ". The whole runs count every run; --basis run decides on them.";
        return true;
      }
      r.headline = p.gain.has_interval()
                       ? "Can't tell within the budget whether MPS helps: its best throughput was " +
                             times_with_interval(p.gain) + against + " " + per + ", an interval across the +" +
                             pct(kDecisionBand) + " line (" + interval_sets_words(p, basis) + "). " +
                             more_sets_headline(p, basis)
                       : "Can't tell whether MPS helps: its best throughput was " + fmt_times(p.gain.ratio) + against +
                             " " + per +
                             (one_set_each(p)
                                  ? ", from one worker set of each: no interval, so no verdict (advise runs at least "
                                    "two per mode; this ladder ran one)."
                                  : ", from too few worker sets for an interval (" + sets_words(p, basis) +
                                        "), so no verdict: an interval needs two on each side.");
      return true;
    case AdviceVerdict::one_copy: {
      const bool under_mps = p.cell && p.cell->is(ModeKind::mps);
      r.mode = mode_kind_word(under_mps ? ModeKind::mps : ModeKind::timeslice);
      const std::string mps_best =
          "MPS's best" +
          (p.best_mps && p.best_mps->procs > 1 ? ", at N=" + std::to_string(p.best_mps->procs) + "," : "");
      if (under_mps)  // one copy under MPS beat every time-sliced rung: the one-copy gap below says by how much
        r.headline = "Run one copy at a time, under MPS: " + mps_best + " was " + times_with_interval(p.gain) +
                     against + " " + per + ", and sharing the GPU under MPS " +
                     sharing_words(ladder, {ModeKind::mps}, p.slo, basis, "") + ".";
      else if (!p.knee_mps || p.knee_mps->procs == 1)
        r.headline = "Run one copy at a time: in either mode sharing the GPU " +
                     sharing_words(ladder, {ModeKind::timeslice, ModeKind::mps}, p.slo, basis, per) +
                     (std::isfinite(p.gain.ratio) ? "; MPS's best " + times_with_interval(p.gain) + against : "") + ".";
      else  // MPS's sharing bought something, but not enough to clear time-slicing's one copy by the line
        r.headline = "Run one copy at a time: time-sliced, sharing the GPU " +
                     sharing_words(ladder, {ModeKind::timeslice}, p.slo, basis, per) + "; " + mps_best + " was " +
                     times_with_interval(p.gain) + against + ", below the +" + pct(kDecisionBand) + " line.";
      return true;
    }
    case AdviceVerdict::timeslice:
      r.mode = mode_kind_word(ModeKind::timeslice);
      r.headline = "No, MPS buys under " + pct(kDecisionBand) + " here: run " + std::to_string(p.procs) +
                   " copies time-sliced; MPS's best throughput was " + times_with_interval(p.gain) +
                   " time-slicing's " + per + ".";
      return true;
    case AdviceVerdict::mps:
      r.mode = mode_kind_word(ModeKind::mps);
      if (std::isfinite(p.mps_speedup) && p.cell->procs == p.procs && side_of_band(p.gain) <= 0) {
        const MeasuredCell* ts = find_measured(ladder, ModeKind::timeslice, p.procs);
        r.headline = "Yes: run " + std::to_string(p.procs) + " copies under MPS: the same throughput as time-sliced (" +
                     times_alone(*p.cell, ladder, basis) + " one copy alone " + per + "), each " + unit + " " +
                     times_with_interval(p.speedup) + " faster (" + fmt_sig(p.cell->unit_ms) + " ms against " +
                     fmt_sig(ts->unit_ms) + " ms).";
        return true;
      }
      // p.gain is MPS's best against time-sliced's best: where the knee advised is not MPS's best, say whose it is
      r.headline = "Yes: run " + std::to_string(p.procs) + " copies under MPS, " + times_alone(*p.cell, ladder, basis) +
                   " the throughput of one copy alone " + per +
                   (!p.best_ts             ? std::string()
                    : p.cell == p.best_mps ? ", " + times_with_interval(p.gain) + against
                                           : "; MPS's best, at N=" + std::to_string(p.best_mps->procs) + ", was " +
                                                 times_with_interval(p.gain) + against) +
                   ".";
      return true;
  }
  return true;
}

/// One copy alone run again after the ladder (alone_drift) where it drifted beyond the decision band in a mode: its
/// rate against its first sets, flagged ("" where it did not drift so far, or did not run again).
std::string drift_words(const std::vector<MeasuredCell>& ladder, Basis basis, const std::string& per) {
  std::string modes;
  bool beyond = false;
  for (const ModeKind mode : kLadderModes) {
    const double d = alone_drift(ladder, mode, basis);
    if (!std::isfinite(d)) continue;
    beyond = beyond || d > 1 + kDecisionBand || d < 1 / (1 + kDecisionBand);
    modes +=
        (modes.empty() ? "" : " and ") + fmt_times(d) + (mode == ModeKind::timeslice ? " time-sliced" : " under MPS");
  }
  if (!beyond) return "";
  return "One copy alone, run again after the ladder, ran " + modes + " the rate of its first worker sets " + per +
         ": it drifted by more than " + pct(kDecisionBand) +
         " (flagged), and every ratio to one copy alone carries that spread in its interval.";
}

/// An interval across the line: how many more worker sets of each best cell would put it on one side, were they to
/// spread as these did (more_sets), or that even kMoreSetsCap more would not; "" where it is decided.
std::string more_sets_words(const Pick& p, Basis basis) {
  if (p.verdict != AdviceVerdict::undecided || !p.gain.has_interval() || !p.best_mps || !p.best_ts) return "";
  const std::string line = "the +" + pct(kDecisionBand) + " line";
  const auto [k, capped] = more_sets(p, basis);
  if (k > 0)
    return "Were more worker sets to spread as these did, about " + std::to_string(k) +
           " more of each (MPS at N=" + std::to_string(p.best_mps->procs) +
           ", time-sliced at N=" + std::to_string(p.best_ts->procs) +
           ") would put that interval wholly on one side of " + line +
           (capped ? ": more than the " + std::to_string(kMaxSetsPerCell) +
                         " a cell advise runs, so run those cells as a sweep of their own (--repeats)"
                   : ": a larger --budget runs them") +
           ".";
  if (k < 0)
    return "MPS's best lies " + fmt_fixed(100 * std::abs(p.gain.ratio - (1 + kDecisionBand)), 1) + " points from " +
           line + ": were more worker sets to spread as these did, even " + std::to_string(kMoreSetsCap) +
           " more of each would leave that interval across it, so no budget within reach decides it: for this "
           "program the two modes are that close.";
  return "";
}

/// Why the ladder's worker sets at N >= 2 that did not co-run did not (not_co_run_note's line, over their sets):
/// how far apart their copies' steady parts lay and how busy their CPUs were; "" where every set co-ran.
std::string not_co_run_reason(const std::vector<MeasuredCell>& ladder) {
  NotCoRunNote note;
  for (const MeasuredCell& c : ladder)
    if (c.procs >= 2)
      for (const SetMeasurement& s : c.sets)
        if (!s.co_run) {
          ++note.runs;
          if (std::isfinite(s.parting)) note.parting.push_back(s.parting);
          if (std::isfinite(s.cpu_share)) note.cpu_share.push_back(s.cpu_share);
        }
  std::string line = not_co_run_line(note, "worker set");
  if (line.empty()) return "";
  line[0] = 'N';  // "not co-run (N >= 2): ..."
  return line + ".";
}

/// The reasons behind a verdict: each mode's best rung, MPS over time-slicing, the other basis, one copy's two
/// modes, the knee, the p99.
void verdict_reasons(const Pick& p, const AloneFacts& alone, const std::vector<MeasuredCell>& ladder,
                     const std::vector<PredictedCell>& predicted, double slo, Basis basis, const std::string& slo_words,
                     Recommendation& r) {
  const std::string unit = unit_word(alone.unit);
  const std::string per = basis_words(basis, unit);
  if (p.best_ts)
    r.reasons.push_back("Time-sliced: " + cell_words(*p.best_ts, ladder, predicted, ModeKind::timeslice, unit, basis) +
                        " (its best rung).");
  if (p.best_mps)
    r.reasons.push_back("MPS: " + cell_words(*p.best_mps, ladder, predicted, ModeKind::mps, unit, basis) +
                        " (its best rung).");
  if (p.verdict == AdviceVerdict::mps || p.verdict == AdviceVerdict::timeslice || p.verdict == AdviceVerdict::undecided)
    r.reasons.push_back(
        "MPS over time-slicing, best against best " + per + ": " + times_with_interval(p.gain) +
        " (~94 % interval over the worker sets, Welch). MPS is advised where the interval lies above +" +
        pct(kDecisionBand) + ", not where it lies below; across it the ladder cannot tell.");
  if (const std::string more = more_sets_words(p, basis); !more.empty()) r.reasons.push_back(more);
  if (alone.unit != LadderUnit::run) {  // a program timed by its whole run has one basis only
    const Basis other = basis == Basis::unit ? Basis::run : Basis::unit;
    const Pick q = pick(ladder, slo, other);
    r.reasons.push_back("Decided " + per + "; " + basis_words(other, unit) + " the ladder says: " + verdict_words(q) +
                        (std::isfinite(q.gain.ratio)
                             ? " (MPS's best " + times_with_interval(q.gain) + " the best time-sliced)"
                             : std::string()) +
                        ".");
  }
  if (const RatioInterval gap = one_copy_mode_gap(ladder); std::isfinite(gap.ratio)) {
    const bool beyond = gap.has_interval() && (gap.lo > 1 || gap.hi < 1);
    const bool large = beyond && (gap.lo >= 1 + kDecisionBand || gap.hi <= 1 / (1 + kDecisionBand));
    r.reasons.push_back(
        "One copy alone ran each " + unit + " " + times_with_interval(gap) + " as fast under MPS as time-sliced" +
        (large ? ": beyond the noise and over " + pct(kDecisionBand) +
                     " (flagged): every MPS cell carries "
                     "this one-copy difference (a program's host calls can cost differently as an MPS client)."
         : beyond ? ": beyond the noise, but not shown beyond " + pct(kDecisionBand) +
                        " either way (its interval reaches inside that band)."
         : gap.has_interval() ? ": within the noise."
                              : ": without an interval, no telling whether that is noise."));
  }
  if (const std::string drift = drift_words(ladder, basis, per); !drift.empty()) r.reasons.push_back(drift);
  if (const std::string parted = not_co_run_reason(ladder); !parted.empty()) r.reasons.push_back(parted);
  if (p.cell && p.cell != p.best_ts && p.cell != p.best_mps)
    r.reasons.push_back("N=" + std::to_string(p.procs) + " is the knee: within " + pct(kKneeGain) +
                        " of the best throughput with fewer copies.");
  if (p.cell && std::isfinite(p.cell->p99_ms))
    r.reasons.push_back("At N=" + std::to_string(p.procs) + " a " + unit + " took " + fmt_sig(p.cell->unit_ms) +
                        " ms on average, p99 " + fmt_sig(p.cell->p99_ms) + " ms (alone " + fmt_sig(alone.unit_ms) +
                        " ms)" + slo_words + "." + gate_backlog_words(*p.cell));
}

/// MPS advised at p.procs: the first thread limit measured to keep kLimitKeeps of unlimited MPS's speed (with
/// its output checked, where --check-metric asked) becomes r.mode; each limit tried is a reason.
void choose_limit(const Pick& p, const std::vector<MeasuredCell>& limits, const std::string& unit, Recommendation& r) {
  if (limits.empty()) {
    r.reasons.push_back(
        "Thread limits were not measured (the time budget ran out first): the advice is unlimited MPS.");
    return;
  }
  for (const MeasuredCell& limit : limits) {
    const std::string at = " at N=" + std::to_string(limit.procs > 0 ? limit.procs : p.procs);
    if (limit.procs > 0 && limit.procs != p.procs) {  // a redo that advises another N than advise ran the limit at
      r.reasons.push_back(limit.mode.name + at + " was tried where MPS was advised when advise ran; at N=" +
                          std::to_string(p.procs) + " no limit was measured.");
      continue;
    }
    if (!limit.ok) {
      r.reasons.push_back(limit.mode.name + at + " did not run: " + limit.problem + ".");
      continue;
    }
    if (const std::string why = limit_unmeasured_words(*p.cell, limit, unit); !why.empty()) {
      r.reasons.push_back(limit.mode.name + " (" + limit_words(limit.mode, p.procs) + ")" + at + ": " + why +
                          ", so it is not shown to keep it.");
      continue;
    }
    const RatioInterval keeps = limit_keeps(*p.cell, limit);
    const std::string ran = limit.mode.name + " (" + limit_words(limit.mode, p.procs) + ") ran each " + unit + " at " +
                            times_with_interval(keeps) + " unlimited MPS's speed" + at;
    if (!limit.check_problem.empty()) {  // --check-metric: its output no longer what one copy alone gives
      r.reasons.push_back(ran + ", but its output failed the check: " + limit.check_problem + ".");
      continue;
    }
    if (keeps.has_interval() && keeps.lo >= kLimitKeeps) {
      r.mode = limit.mode.name;
      r.reasons.push_back(ran + ": take the limit, it stops one copy from taking every SM.");
      return;
    }
    r.reasons.push_back(ran +
                        (keeps.has_interval() && keeps.hi >= kLimitKeeps
                             ? " (its interval reaches below " + fmt_fixed(kLimitKeeps, 2) + "x: not shown to keep it)."
                             : "."));
  }
  r.reasons.push_back("No limit tried was shown to keep " + pct(kLimitKeeps) +
                      " of unlimited MPS's speed: leave the thread percentage unlimited.");
}

/// `r` with the drift of one copy alone run again flagged, and why sets did not co-run, where the verdict's reasons
/// (which say both) were not given: a ladder that stopped or measured no MPS still says its anchor moved.
Recommendation with_drift(Recommendation& r, const std::vector<MeasuredCell>& ladder, Basis basis,
                          const std::string& unit) {
  if (const std::string drift = drift_words(ladder, basis, basis_words(basis, unit)); !drift.empty())
    r.reasons.push_back(drift);
  if (const std::string parted = not_co_run_reason(ladder); !parted.empty()) r.reasons.push_back(parted);
  return r;
}

}  // namespace

Recommendation recommend(const AloneFacts& alone, const std::vector<MeasuredCell>& ladder,
                         const std::vector<PredictedCell>& predicted, const std::vector<MeasuredCell>& limits,
                         double slo, Basis basis) {
  const Pick p = pick(ladder, slo, basis);
  const std::string unit = unit_word(alone.unit);  // "step", "task", "run": the prose's word
  Recommendation r;
  r.verdict = p.verdict;
  r.procs = p.procs;
  r.reasons.push_back(regime_words(alone));
  const std::string slo_words = std::isnan(slo) ? "" : " and met the p99 target of " + fmt_sig(slo) + " ms";
  // Nothing is concluded about MPS from runs that never happened: without an MPS run beside another copy
  // there is no verdict (what time-slicing did is said, and advise exits as a sweep whose runs failed).
  if (p.verdict == AdviceVerdict::timeslice || p.verdict == AdviceVerdict::one_copy ||
      p.verdict == AdviceVerdict::undecided)
    if (const std::string why = mps_unmeasured(ladder); !why.empty()) {
      headline_without_mps(p, ladder, predicted, unit, basis, why, r);
      return with_drift(r, ladder, basis, unit);
    }
  if (!verdict_headline(p, ladder, unit, basis, slo_words, r)) return with_drift(r, ladder, basis, unit);
  verdict_reasons(p, alone, ladder, predicted, slo, basis, slo_words, r);
  if (p.verdict == AdviceVerdict::mps) choose_limit(p, limits, unit, r);
  return r;
}

}  // namespace bench_mps::harness
