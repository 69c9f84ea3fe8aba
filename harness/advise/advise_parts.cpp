// What the files of `bench_mps advise` share: see advise_parts.hpp.
#include "harness/advise/advise_parts.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "harness/advise/advise.hpp"
#include "harness/advise/advise_job.hpp"
#include "harness/advise/advise_ladder.hpp"
#include "harness/advise/advise_recommend.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

std::string more_folder(int round, const std::string& mode, int n) {
  return "more-" + std::to_string(round) + "-" + mode + "-n" + std::to_string(n);
}

std::string limit_folder(const Mode& mode) { return mode.auto_pct ? "limits" : "limits-2x"; }

std::vector<PredictedCell> predictions(const fs::path& alone_dir, const UnitChoice& unit, double gap_us,
                                       const AloneFacts& alone, const SchedulerFacts& sched, int max_procs,
                                       int phases) {
  if (unit.exec && alone.placed() && alone.source == AloneSource::profile) {
    try {
      return simulate_ladder(alone_dir, unit.metric || unit.profiled, gap_us, sched, max_procs, phases);
    } catch (const UsageError&) {  // no replayable profile: the regime model places it as before
    }
  }
  return predict_ladder(alone, sched, max_procs);
}

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
        " " + job_sentence(job_verdict(advice.ladder, advice.alone.unit, *job, slo_p99_ms), advice.alone.unit);
}

void print_advice(const Advice& advice, const fs::path& out) {
  std::cout << advice.recommendation.headline << "\n";
  for (const std::string& r : advice.recommendation.reasons) std::cout << "  - " << r << "\n";
  std::cout << "advice: " << (out / "advice.md").string() << "\n" << std::flush;
}

std::vector<const MeasuredCell*> cells_to_settle(const Pick& p) {
  if (!p.open()) return {};
  // The sets an interval rests on: per unit the co-run ones (a set whose copies ran apart has no rate per unit).
  const auto too_few = [&p](const MeasuredCell* c) {
    return (p.basis == Basis::unit ? c->co_run_sets() : static_cast<int>(c->sets.size())) < 2;
  };
  if (too_few(p.best_mps) != too_few(p.best_ts)) return {too_few(p.best_mps) ? p.best_mps : p.best_ts};
  return {p.best_ts, p.best_mps};
}

std::string settle_side(const MeasuredCell& c) {
  return std::string(c.is(ModeKind::mps) ? "MPS's" : "time-sliced's") + " best (N=" + std::to_string(c.procs) + ")";
}

NoMoreSets why_no_more_sets(const Pick& p, double seconds_left, double seconds_per_round) {
  const std::vector<const MeasuredCell*> cells = cells_to_settle(p);
  if (cells.empty()) return {};
  if (cells.size() == 1 && cells.front()->sets.size() >= kMaxSetsPerCell)
    return {std::to_string(cells.front()->sets.size()) + " worker sets of " + settle_side(*cells.front()) +
            " and still fewer than two of them " + (p.basis == Basis::unit ? "co-ran" : "ran ok")};
  if (cells.size() == 2) {  // a set of each: none where either cell has its kMaxSetsPerCell (its best moved there)
    const bool ts_full = p.best_ts->sets.size() >= kMaxSetsPerCell,
               mps_full = p.best_mps->sets.size() >= kMaxSetsPerCell;
    if (ts_full && mps_full)
      return {std::to_string(kMaxSetsPerCell) + " worker sets each and the interval still crosses the line"};
    if (ts_full || mps_full) {
      const MeasuredCell& full = ts_full ? *p.best_ts : *p.best_mps;
      return {std::to_string(full.sets.size()) + " worker sets of " + settle_side(full) + " (a cell runs at most " +
              std::to_string(kMaxSetsPerCell) + ") and the interval still crosses the line"};
    }
  }
  if (seconds_left < with_set_margin(seconds_per_round))
    return {"the time budget would not hold another set (" + fmt_fixed(seconds_left, 0) + " s left, a set " +
                (cells.size() == 1 ? "of " + settle_side(*cells.front()) : std::string("of each")) + " takes about " +
                fmt_fixed(seconds_per_round, 0) + " s, " + fmt_fixed(with_set_margin(seconds_per_round), 0) +
                " s with its margin)",
            true};
  return {};
}

std::string NoMoreSets::said(double kept_s) const {
  return why + (budget && kept_s > 0
                    ? ", beyond the " + fmt_fixed(kept_s, 0) + " s kept for one copy alone after the ladder"
                    : std::string());
}

std::string why_no_limit(double seconds_left, double need_s) {
  if (!(need_s > 0) || seconds_left >= need_s) return "";
  return "the time budget would not hold its sweep (about " + fmt_fixed(need_s, 0) + " s, " +
         fmt_fixed(std::max(seconds_left, 0.0), 0) + " s left)";
}

}  // namespace bench_mps::harness
