// One kind of step: see step_phase.hpp.
#include "harness/results/step_phase.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"

namespace bench_mps::harness {
namespace {

/// Prefix sums of x = the end's index, y = its time (ms from the first end), for least-squares lines over
/// any run of ends in O(1).
class LineFits {
 public:
  explicit LineFits(const std::vector<std::int64_t>& ends) : t_(ends.size()) {
    sx_.assign(ends.size() + 1, 0);
    sy_ = sxx_ = sxy_ = syy_ = sx_;
    for (std::size_t i = 0; i < ends.size(); ++i) {
      const double x = static_cast<double>(i), y = static_cast<double>(ends[i] - ends.front()) * 1e-6;
      t_[i] = y;
      sx_[i + 1] = sx_[i] + x;
      sy_[i + 1] = sy_[i] + y;
      sxx_[i + 1] = sxx_[i] + x * x;
      sxy_[i + 1] = sxy_[i] + x * y;
      syy_[i + 1] = syy_[i] + y * y;
    }
  }
  struct Fit {
    double sse = 0, slope = 0;
  };
  /// The least-squares line through ends [a, b).
  Fit fit(std::size_t a, std::size_t b) const {
    const double m = static_cast<double>(b - a);
    const double x = sx_[b] - sx_[a], y = sy_[b] - sy_[a];
    const double xx = sxx_[b] - sxx_[a] - x * x / m, xy = sxy_[b] - sxy_[a] - x * y / m;
    const double yy = syy_[b] - syy_[a] - y * y / m;
    if (!(xx > 0)) return {0, 0};
    return {std::max(0.0, yy - xy * xy / xx), xy / xx};
  }
  double time(std::size_t i) const { return t_[i]; }

 private:
  std::vector<double> t_, sx_, sy_, sxx_, sxy_, syy_;
};

struct Split {
  std::size_t at = 0;  ///< the end both parts share
  double first_slope = 0, second_slope = 0;
};

/// The best split of ends [a, b) where one part's step is at least kPhaseSlopeRatio times the other's; where
/// `keep` names the part to be kept, only splits that leave it at least `least_kept` steps.
std::optional<Split> best_split(const LineFits& f, std::size_t a, std::size_t b,
                                std::optional<PhaseSide> keep = std::nullopt, double least_kept = 0) {
  const std::size_t n = b - a;
  const std::size_t least = std::max(kMinPhaseEnds, static_cast<std::size_t>(std::ceil(kMinPhaseShare * n)));
  std::optional<Split> best;
  double best_sse = 0;
  for (std::size_t k = a + least; k + least <= b; ++k) {
    if (keep && static_cast<double>(*keep == PhaseSide::before ? k - a : b - 1 - k) < least_kept) continue;
    const LineFits::Fit one = f.fit(a, k + 1), two = f.fit(k, b);
    if (!(one.slope > 0 && two.slope > 0)) continue;
    if (std::max(one.slope, two.slope) < kPhaseSlopeRatio * std::min(one.slope, two.slope)) continue;
    if (!best || one.sse + two.sse < best_sse) {
      best = Split{k, one.slope, two.slope};
      best_sse = one.sse + two.sse;
    }
  }
  return best;
}

}  // namespace

std::string StepPhase::words() const {
  if (!range.empty()) {
    std::string w = "steps " + std::to_string(first + 1) + "-" + std::to_string(last + 1) + " of " +
                    std::to_string(ends) + " in NVTX range '" + range + "'";
    const auto in = static_cast<std::size_t>(std::count(counted.begin(), counted.end(), true));
    if (in < counted.size())
      w += " (" + std::to_string(in) + " of them; " + std::to_string(counted.size() - in) + " others between left out)";
    return w;
  }
  if (!note.empty()) {
    StepPhase plain = *this;
    plain.note.clear();
    return note + ": " + plain.words();
  }
  if (!cut()) return "whole steady part";
  std::string w = "steps " + std::to_string(first + 1) + "-" + std::to_string(last + 1) + " of " +
                  std::to_string(ends) + " (left out:";
  if (first > 0) w += " a head of " + std::to_string(first) + " ends at " + fmt_fixed(head_ratio, 2) + "x the step";
  if (first > 0 && last + 1 < ends) w += ",";
  if (last + 1 < ends)
    w += " a tail of " + std::to_string(ends - 1 - last) + " ends at " + fmt_fixed(tail_ratio, 2) + "x the step";
  return w + ")";
}

std::optional<PhaseSides> sides_in_words(const std::string& words) {
  if (words.empty() || words.find("in NVTX range") != std::string::npos) return std::nullopt;
  if (words.find("whole steady part") != std::string::npos) return PhaseSides{};
  const auto at = words.find("(left out:");
  if (at == std::string::npos) return std::nullopt;
  const bool head = words.find(" a head of ", at) != std::string::npos;
  const bool tail = words.find(" a tail of ", at) != std::string::npos;
  if (head && tail) return PhaseSides{PhaseSide::after, PhaseSide::before};
  if (head) return PhaseSides{PhaseSide::after};
  if (tail) return PhaseSides{PhaseSide::before};
  return std::nullopt;
}

StepPhase main_phase(const std::vector<std::int64_t>& ends, const std::optional<PhaseFollow>& follow) {
  StepPhase p;
  p.ends = ends.size();
  p.last = ends.empty() ? 0 : ends.size() - 1;
  if (ends.size() < 2 * kMinPhaseEnds + 2) return p;
  const LineFits f(ends);
  const std::size_t cuts = follow ? std::min(follow->sides.size(), static_cast<std::size_t>(kMaxPhaseCuts))
                                  : static_cast<std::size_t>(kMaxPhaseCuts);
  const double least_kept = follow ? follow->least_kept_share * static_cast<double>(ends.size() - 1) : 0;
  std::size_t a = 0, b = ends.size();  // the kept ends [a, b)
  for (std::size_t cut = 0; cut < cuts && b - a >= 2 * kMinPhaseEnds + 2; ++cut) {
    const std::optional<PhaseSide> named = follow ? std::optional<PhaseSide>(follow->sides[cut]) : std::nullopt;
    const std::optional<Split> s = best_split(f, a, b, named, least_kept);
    if (!s) break;
    const bool first_longer = f.time(s->at) - f.time(a) >= f.time(b - 1) - f.time(s->at);
    const PhaseSide keep = named ? *named : first_longer ? PhaseSide::before : PhaseSide::after;
    if (keep == PhaseSide::before) {  // the tail goes
      b = s->at + 1;
      p.tail_ratio = s->second_slope / s->first_slope;
    } else {
      a = s->at;
      p.head_ratio = s->first_slope / s->second_slope;
    }
    p.sides.push_back(keep);
  }
  p.first = a;
  p.last = b - 1;
  return p;
}

std::optional<StepPhase> range_phase(const std::vector<std::int64_t>& ends, std::vector<RangeSpan> ranges,
                                     const std::string& name) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::int64_t> reach(ranges.size());  // the latest end of ranges[0..i]
  for (std::size_t i = 0; i < ranges.size(); ++i)
    reach[i] = std::max(ranges[i].second, i ? reach[i - 1] : ranges[i].second);
  auto by_start = [](const RangeSpan& a, const RangeSpan& b) { return a.first < b.first; };
  // Step (from, to] is the range's where an occurrence opens inside it, or one opened at or before its start is
  // still open at its end. One that opened before and closes inside it does not make it the range's: a range around
  // a training step pops after the step's wait has returned, a few microseconds into the step after it.
  auto of_range = [&](std::int64_t from, std::int64_t to) {
    const auto after = std::upper_bound(ranges.begin(), ranges.end(), RangeSpan{from, 0}, by_start);
    if (after != ranges.end() && after->first < to) return true;
    const auto n = static_cast<std::size_t>(after - ranges.begin());
    return n > 0 && reach[n - 1] >= to;
  };
  std::vector<bool> in(ends.size(), false);  // in[k]: step k (from ends[k-1] to ends[k]) is the range's
  std::size_t a = 0, b = 0;                  // the first and the last step that does
  for (std::size_t k = 1; k < ends.size(); ++k)
    if ((in[k] = of_range(ends[k - 1], ends[k]))) {
      if (a == 0) a = k;
      b = k;
    }
  if (a == 0) return std::nullopt;
  StepPhase p;
  p.ends = ends.size();
  p.first = a - 1;
  p.last = b;
  p.counted.assign(in.begin() + static_cast<std::ptrdiff_t>(a), in.begin() + static_cast<std::ptrdiff_t>(b) + 1);
  p.range = name;
  return p;
}

StepPhase unit_phase(const std::vector<std::int64_t>& ends, const FollowedRange& range,
                     const std::optional<PhaseFollow>& follow) {
  if (range.name.empty()) return main_phase(ends, follow);
  std::string note;
  if (!range.why_not.empty()) {
    note = "NVTX range '" + range.name + "' not recorded (" + range.why_not + ")";
  } else if (std::optional<StepPhase> p = range_phase(ends, range.spans, range.name)) {
    return *p;
  } else {
    note = "NVTX range '" + range.name + "' not seen in the steady part";
  }
  StepPhase p = main_phase(ends, follow);
  p.note = note;
  return p;
}

std::optional<StepPhase> shared_phase(const std::vector<std::vector<std::int64_t>>& ends,
                                      const std::optional<PhaseFollow>& follow) {
  if (ends.size() < 2) return std::nullopt;
  const std::size_t n = ends.front().size();
  if (std::any_of(ends.begin(), ends.end(), [n](const std::vector<std::int64_t>& e) { return e.size() != n; }))
    return std::nullopt;
  std::vector<std::int64_t> mean(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    double sum = 0;
    for (const std::vector<std::int64_t>& e : ends) sum += static_cast<double>(e[k] - e.front());
    mean[k] = static_cast<std::int64_t>(std::llround(sum / static_cast<double>(ends.size())));
  }
  return main_phase(mean, follow);
}

std::optional<PhaseSides> ladder_sides(const std::vector<PhaseSides>& alone) {
  if (alone.empty()) return std::nullopt;
  std::size_t best = 0, best_count = 0;
  for (std::size_t i = 0; i < alone.size(); ++i) {
    const auto count = static_cast<std::size_t>(std::count(alone.begin(), alone.end(), alone[i]));
    if (count > best_count) {
      best = i;
      best_count = count;
    }
  }
  return alone[best];
}

bool PhaseFollow::kept_by(const StepPhase& p) const { return p.sides == sides && p.kept_share() >= least_kept_share; }

std::optional<PhaseFollow> ladder_follow(const std::vector<StepPhase>& alone) {
  std::vector<PhaseSides> sides;
  for (const StepPhase& p : alone) sides.push_back(p.sides);
  const std::optional<PhaseSides> chosen = ladder_sides(sides);
  if (!chosen) return std::nullopt;
  std::vector<double> shares;
  for (const StepPhase& p : alone)
    if (p.sides == *chosen) shares.push_back(p.kept_share());
  return PhaseFollow{*chosen, kFollowKeptShare * median(shares)};
}

}  // namespace bench_mps::harness
