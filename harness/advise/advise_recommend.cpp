#include "harness/advise/advise_recommend.hpp"

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"

namespace bench_mps::harness {
namespace {


bool feasible(const MeasuredCell& c, double slo) {
  return c.ok && std::isfinite(c.throughput()) && (std::isnan(slo) || (std::isfinite(c.p99_ms) && c.p99_ms <= slo));
}

/// The best cell of `mode` and the knee: the smallest N within kKneeGain of the best.
std::pair<const MeasuredCell*, const MeasuredCell*> best_and_knee(const std::vector<MeasuredCell>& ladder,
                                                                  const std::string& mode, double slo) {
  const MeasuredCell* best = nullptr;
  for (const MeasuredCell& c : ladder)
    if (c.mode == mode && feasible(c, slo) && (!best || c.throughput() > best->throughput())) best = &c;
  const MeasuredCell* knee = best;
  for (const MeasuredCell& c : ladder)
    if (best && c.mode == mode && feasible(c, slo) && c.throughput() >= (1 - kKneeGain) * best->throughput() &&
        c.procs < knee->procs)
      knee = &c;
  return {best, knee};
}

std::string pct(double share) { return fmt_fixed(100 * share, 1) + " %"; }

std::string regime_words(const AloneFacts& a) {
  if (!a.placed()) return "One copy alone: " + a.problem + ", so the model could not place it.";
  std::string s = "One copy alone keeps the GPU busy " + pct(a.duty) + " of the time, in bursts of " +
                  fmt_sig(a.point.burst_ms) + " ms (" + a.burst_basis + ") every " + fmt_sig(a.point.step_ms) + " ms";
  if (std::isfinite(a.point.footprint)) s += "; its kernels fill " + pct(a.point.footprint) + " of the SMs (" + a.footprint_basis + ")";
  return s + ".";
}

std::string cell_words(const MeasuredCell& c, const std::vector<PredictedCell>& predicted, LadderMode mode,
                       const std::string& unit) {
  std::string s = std::to_string(c.procs) + (c.procs == 1 ? " copy " : " copies ") + (mode == LadderMode::timeslice ? "time-sliced" : "under MPS") +
                  " ran " + fmt_times(c.throughput()) + " the throughput of one copy alone (ideal " + std::to_string(c.procs) +
                  "x), each " + unit + " " + fmt_times(c.loss) + " the time alone";
  if (const PredictedCell* p = find_predicted(predicted, mode, c.procs); p && std::isfinite(p->prediction.loss))
    s += "; the model predicted " + fmt_times(p->throughput()) + " (" + p->prediction.why + ")";
  return s;
}

std::string limit_words(const std::string& mode, int procs) {
  return mode == "mps:auto" ? "each client limited to 100/N = " + fmt_fixed(100.0 / procs, 0) + " % of the SMs"
                            : "each client limited to " + mode.substr(mode.find(':') + 1) + " % of the SMs";
}

}  // namespace

double limit_keeps(const MeasuredCell& unlimited, const MeasuredCell& limit) {
  return limit.ok && limit.unit_ms > 0 ? unlimited.unit_ms / limit.unit_ms : NAN;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::mps: return "mps";
    case Verdict::timeslice: return "timeslice";
    case Verdict::one_copy: return "one-copy";
    case Verdict::none: break;
  }
  return "none";
}

Pick pick(const std::vector<MeasuredCell>& ladder, double slo) {
  Pick p;
  const auto [best_ts, knee_ts] = best_and_knee(ladder, ladder_mode_name(LadderMode::timeslice), slo);
  const auto [best_mps, knee_mps] = best_and_knee(ladder, ladder_mode_name(LadderMode::mps), slo);
  p.best_ts = best_ts;
  p.best_mps = best_mps;
  if (best_ts && best_mps) p.mps_gain = best_mps->throughput() / best_ts->throughput();
  if (best_mps && (!best_ts || p.mps_gain >= 1 + kKneeGain)) {
    p.verdict = knee_mps->procs > 1 ? Verdict::mps : Verdict::one_copy;
    p.cell = knee_mps;
  } else if (best_ts) {
    p.verdict = knee_ts->procs > 1 ? Verdict::timeslice : Verdict::one_copy;
    p.cell = knee_ts;
    // The same throughput, but each unit faster under MPS (a program that paces itself): MPS at that N.
    const MeasuredCell* mps = find_measured(ladder, ladder_mode_name(LadderMode::mps), knee_ts->procs);
    if (knee_ts->procs > 1 && mps && feasible(*mps, slo) && mps->unit_ms > 0) {
      p.mps_speedup = knee_ts->unit_ms / mps->unit_ms;
      if (p.mps_speedup >= 1 + kKneeGain) {
        p.verdict = Verdict::mps;
        p.cell = mps;
      }
    }
  }
  p.procs = p.cell ? p.cell->procs : 0;
  return p;
}

std::string mps_unmeasured(const std::vector<MeasuredCell>& ladder) {
  const MeasuredCell* failed = nullptr;
  for (const MeasuredCell& c : ladder) {
    if (c.mode != ladder_mode_name(LadderMode::mps) || c.procs < 2) continue;
    if (c.ok) return "";
    if (!failed) failed = &c;
  }
  return failed ? "no run under MPS beside another copy ended ok (N=" + std::to_string(failed->procs) + ": " +
                      failed->problem + ")"
                : "the ladder ran no rung under MPS beside another copy";
}

Recommendation recommend(const AloneFacts& alone, const std::vector<MeasuredCell>& ladder,
                         const std::vector<PredictedCell>& predicted, const std::vector<MeasuredCell>& limits,
                         double slo) {
  const Pick p = pick(ladder, slo);
  Recommendation r;
  r.verdict = p.verdict;
  r.procs = p.procs;
  r.reasons.push_back(regime_words(alone));
  const std::string slo_words = std::isnan(slo) ? "" : " and met the p99 target of " + fmt_sig(slo) + " ms";
  // Nothing is concluded about MPS from runs that never happened: without an MPS run beside another copy
  // there is no verdict (what time-slicing did is said, and advise exits as a sweep whose runs failed).
  if (p.verdict == Verdict::timeslice || p.verdict == Verdict::one_copy) {
    if (const std::string why = mps_unmeasured(ladder); !why.empty()) {
      r.verdict = Verdict::none;
      r.headline = "Can't say whether MPS helps: " + why + ". Time-sliced, " +
                   (p.verdict == Verdict::timeslice
                        ? std::to_string(p.procs) + " copies ran best: " + fmt_times(p.cell->throughput()) +
                              " the throughput of one copy alone."
                        : "sharing the GPU bought less than " + pct(kKneeGain) + " throughput.");
      if (p.best_ts)
        r.reasons.push_back("Time-sliced: " + cell_words(*p.best_ts, predicted, LadderMode::timeslice, alone.unit) +
                            " (its best rung).");
      return r;
    }
  }
  switch (p.verdict) {
    case Verdict::none:
      r.headline = "No advice: no configuration of the ladder ran" + slo_words + ".";
      return r;
    case Verdict::one_copy:
      r.mode = ladder_mode_name(LadderMode::timeslice);
      r.headline = "Run one copy at a time: sharing the GPU bought less than " + pct(kKneeGain) + " throughput in either mode.";
      break;
    case Verdict::timeslice:
      r.mode = ladder_mode_name(LadderMode::timeslice);
      r.headline = "No, MPS buys nothing here: run " + std::to_string(p.procs) +
                   " copies time-sliced; MPS's best throughput was " + fmt_times(p.mps_gain) + " time-slicing's.";
      break;
    case Verdict::mps:
      r.mode = ladder_mode_name(LadderMode::mps);
      if (std::isfinite(p.mps_speedup)) {
        r.headline = "Yes: run " + std::to_string(p.procs) + " copies under MPS: the same throughput as time-sliced (" +
                     fmt_times(p.cell->throughput()) + " one copy alone), each " + alone.unit + " " + fmt_times(p.mps_speedup) +
                     " faster (" + fmt_sig(p.cell->unit_ms) + " ms against " +
                     fmt_sig(find_measured(ladder, ladder_mode_name(LadderMode::timeslice), p.procs)->unit_ms) + " ms).";
        break;
      }
      r.headline = "Yes: run " + std::to_string(p.procs) + " copies under MPS, " + fmt_times(p.cell->throughput()) +
                   " the throughput of one copy alone" +
                   (p.best_ts ? ", " + fmt_times(p.mps_gain) + " the best time-sliced (" + fmt_times(p.best_ts->throughput()) + " at N=" +
                                    std::to_string(p.best_ts->procs) + ")"
                              : std::string()) +
                   ".";
      break;
  }
  if (p.best_ts) r.reasons.push_back("Time-sliced: " + cell_words(*p.best_ts, predicted, LadderMode::timeslice, alone.unit) + " (its best rung).");
  if (p.best_mps) r.reasons.push_back("MPS: " + cell_words(*p.best_mps, predicted, LadderMode::mps, alone.unit) + " (its best rung).");
  if (p.cell && p.cell != p.best_ts && p.cell != p.best_mps)
    r.reasons.push_back("N=" + std::to_string(p.procs) + " is the knee: within " + pct(kKneeGain) +
                        " of the best throughput with fewer copies.");
  if (p.cell && std::isfinite(p.cell->p99_ms))
    r.reasons.push_back("At N=" + std::to_string(p.procs) + " a " + alone.unit + " took " +
                        fmt_sig(p.cell->unit_ms) + " ms on average, p99 " + fmt_sig(p.cell->p99_ms) + " ms (alone " +
                        fmt_sig(alone.unit_ms) + " ms)" + slo_words + ".");
  if (p.verdict != Verdict::mps) return r;
  if (limits.empty()) {
    r.reasons.push_back("Thread limits were not measured (the time budget ran out first): the advice is unlimited MPS.");
    return r;
  }
  for (const MeasuredCell& limit : limits) {
    const std::string at = " at N=" + std::to_string(p.procs);
    if (!limit.ok) {
      r.reasons.push_back(limit.mode + at + " did not run: " + limit.problem + ".");
      continue;
    }
    const double keeps = limit_keeps(*p.cell, limit);
    if (keeps >= kLimitKeeps) {
      r.mode = limit.mode;
      r.reasons.push_back(limit.mode + " (" + limit_words(limit.mode, p.procs) + ") ran each " + alone.unit + " at " +
                          pct(keeps) + " of unlimited MPS's speed" + at +
                          ": take the limit, it stops one copy from taking every SM.");
      return r;
    }
    r.reasons.push_back(limit.mode + " (" + limit_words(limit.mode, p.procs) + ") ran each " + alone.unit + " at " +
                        pct(keeps) + " of unlimited MPS's speed" + at + ".");
  }
  r.reasons.push_back("No limit tried kept " + pct(kLimitKeeps) + " of unlimited MPS's speed: leave the thread percentage unlimited.");
  return r;
}

}  // namespace bench_mps::harness
