// The change-point method of `bench_mps history`: see history.hpp.
#include "harness/report/history.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/common/stats.hpp"
#include "harness/compare/welch_test.hpp"

namespace bench_mps::harness {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// compare's verdict of `next` against the pooled segment `base`.
Verdict judge(const std::vector<double>& base, const std::vector<double>& next, const CompareOptions& options) {
  SideSummary b, n;
  b.set_means = base;
  n.set_means = next;
  b.spread = relative_mean_ci_width(base);
  n.spread = relative_mean_ci_width(next);
  const double mb = mean(base), mn = mean(next);
  const double change = mb != 0 ? (mn - mb) / std::fabs(mb) : kNaN;
  return decide_verdict(b, n, change, welch_t_test(next, base).p_value, options);
}

std::vector<double> pooled(const std::vector<std::vector<double>>& folders) {
  std::vector<double> out;
  for (const auto& f : folders) out.insert(out.end(), f.begin(), f.end());
  return out;
}

/// The variance of a side's mean over its folders: the sets' own (within folders) over their count, and the
/// folders' own spread (between folders, as the segment shows it) over the folders' count.
double variance_of_mean(const std::vector<std::vector<double>>& folders, double between) {
  double within = 0;
  std::size_t sets = 0, df = 0;
  for (const auto& f : folders) {
    const double m = mean(f);
    for (double v : f) within += (v - m) * (v - m);
    sets += f.size();
    df += f.size() - 1;
  }
  within = df > 0 ? within / static_cast<double>(df) : 0;
  return within / static_cast<double>(sets) + between / static_cast<double>(folders.size());
}

/// The ratio of the changed folders' mean to the segment's, with a ~94 % interval that holds both the worker
/// sets' noise and the spread between folders of one segment (estimated from the segment's folder means where
/// it has two or more, the excess of their variance over what the sets alone explain; df = its folders - 1).
/// A segment of one folder gives the sets' interval alone (ratio_of_means).
HistoryChange sized(const std::vector<std::vector<double>>& after, const std::vector<std::vector<double>>& segment) {
  HistoryChange c;
  const std::vector<double> a = pooled(after), b = pooled(segment);
  const RatioInterval sets_only = ratio_of_means(a, b);
  c.ratio = sets_only.ratio;
  c.lower = sets_only.lo;
  c.upper = sets_only.hi;
  if (segment.size() < 2) return c;
  std::vector<double> folder_means;
  double within_share = 0;
  for (const auto& f : segment) {
    folder_means.push_back(mean(f));
    within_share += variance_of_mean({f}, 0) / static_cast<double>(segment.size());
  }
  const double fm = mean(folder_means);
  double var_folders = 0;
  for (double m : folder_means) var_folders += (m - fm) * (m - fm);
  var_folders /= static_cast<double>(folder_means.size() - 1);
  const double between = std::max(0.0, var_folders - within_share);
  const double ma = mean(a), mb = mean(b);
  const double se =
      std::sqrt(variance_of_mean(after, between) / (ma * ma) + variance_of_mean(segment, between) / (mb * mb));
  const double t = student_t_quantile((1 + kMedianCiCoverage) / 2, static_cast<double>(segment.size() - 1));
  c.lower = std::min(c.lower, c.ratio * std::exp(-t * se));
  c.upper = std::max(c.upper, c.ratio * std::exp(t * se));
  return c;
}

}  // namespace

bool HistoryPoint::sufficient() const { return set_means.size() >= 2 && not_ok == 0; }

HistoryPoint make_point(std::size_t folder, std::vector<double> set_means, std::size_t not_ok) {
  HistoryPoint p;
  p.folder = folder;
  p.set_means = std::move(set_means);
  p.not_ok = not_ok;
  p.mean = p.set_means.empty() ? kNaN : mean(p.set_means);
  const double half = relative_mean_ci_width(p.set_means) * std::fabs(p.mean) / 2;
  // a throughput or a latency: none is below 0 (Student's t reaches there); NaN (one set: no interval) stays NaN
  p.lower = std::isnan(half) ? NAN : std::max(0.0, p.mean - half);
  p.upper = p.mean + half;
  return p;
}

SeriesChanges find_changes(const std::vector<HistoryPoint>& points, const CompareOptions& options) {
  SeriesChanges out;
  std::vector<std::size_t> usable;  // the sufficient points, in order
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].sufficient()) usable.push_back(i);
  if (usable.empty()) return out;
  std::vector<std::vector<double>> segment{points[usable[0]].set_means};
  std::size_t segment_from = points[usable[0]].folder;
  for (std::size_t u = 1; u < usable.size(); ++u) {
    const HistoryPoint& p = points[usable[u]];
    const Verdict v = judge(pooled(segment), p.set_means, options);
    if (v != Verdict::faster && v != Verdict::slower) {
      segment.push_back(p.set_means);
      continue;
    }
    if (u + 1 == usable.size()) {
      out.pending.push_back(p.folder);
      HistoryChange c = sized({p.set_means}, segment);  // its direction, size and interval, said beside "pending"
      c.at = c.confirmed_by = p.folder;
      c.segment_from = segment_from;
      c.direction = v;
      c.pending = true;
      out.pending_changes.push_back(c);
      break;
    }
    const HistoryPoint& next = points[usable[u + 1]];
    if (judge(pooled(segment), next.set_means, options) != v) {
      out.blips.push_back(p.folder);
      continue;  // left out of the segment: one folder off is not the series
    }
    HistoryChange c = sized({p.set_means, next.set_means}, segment);
    c.at = p.folder;
    c.confirmed_by = next.folder;
    c.segment_from = segment_from;
    c.direction = v;
    out.changes.push_back(c);
    segment = {p.set_means};  // a new segment from the change on
    segment_from = p.folder;
  }
  return out;
}

}  // namespace bench_mps::harness
