// Mann-Whitney U: ranks are kept doubled (2 x mid-rank, always an integer) so the exact distribution
// is a table of integer rank sums and no comparison of its tails depends on rounding.
#include "harness/compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace bench_mps::harness {
namespace {

struct PooledRanks {
  std::vector<long> doubled;          ///< 2 x mid-rank of each value, x first, then y
  std::vector<std::size_t> tie_runs;  ///< sizes of the groups of equal values (1 for a lone value)
};

PooledRanks rank_pooled(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<std::pair<double, std::size_t>> pooled;
  pooled.reserve(x.size() + y.size());
  for (std::size_t i = 0; i < x.size(); ++i) pooled.emplace_back(x[i], i);
  for (std::size_t i = 0; i < y.size(); ++i) pooled.emplace_back(y[i], x.size() + i);
  std::sort(pooled.begin(), pooled.end());
  PooledRanks r;
  r.doubled.assign(pooled.size(), 0);
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    // positions i+1 .. j (1-based) share the mid-rank (i+1+j)/2
    for (std::size_t k = i; k < j; ++k) r.doubled[pooled[k].second] = static_cast<long>(i + 1 + j);
    r.tie_runs.push_back(j - i);
    i = j;
  }
  return r;
}

/// Two-sided p from the exact distribution of x's rank sum over all C(N, n1) ways to pick x's ranks.
double exact_p(const PooledRanks& r, std::size_t n1, long observed_doubled_sum) {
  const long max_sum = std::accumulate(r.doubled.begin(), r.doubled.end(), 0L);
  // ways[k][s]: subsets of k of the values seen so far whose doubled ranks sum to s
  std::vector<std::vector<double>> ways(n1 + 1, std::vector<double>(static_cast<std::size_t>(max_sum) + 1, 0.0));
  ways[0][0] = 1;
  std::size_t seen = 0;
  for (long rank : r.doubled) {
    ++seen;
    for (std::size_t k = std::min(seen, n1); k >= 1; --k)
      for (long s = max_sum; s >= rank; --s) ways[k][s] += ways[k - 1][s - rank];
  }
  double total = 0, at_most = 0, at_least = 0;
  for (long s = 0; s <= max_sum; ++s) {
    const double w = ways[n1][s];
    total += w;
    if (s <= observed_doubled_sum) at_most += w;
    if (s >= observed_doubled_sum) at_least += w;
  }
  return std::min(1.0, 2.0 * std::min(at_most, at_least) / total);
}

double asymptotic_p(const PooledRanks& r, std::size_t n1, std::size_t n2, double u) {
  const double a = static_cast<double>(n1), b = static_cast<double>(n2), n = a + b;
  double ties = 0;
  for (std::size_t t : r.tie_runs) ties += std::pow(static_cast<double>(t), 3) - static_cast<double>(t);
  const double variance = a * b / 12.0 * ((n + 1) - ties / (n * (n - 1)));
  if (!(variance > 0)) return 1.0;  // every value tied: no evidence either way
  const double z = (std::fabs(u - a * b / 2.0) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y, MannWhitneyMethod method) {
  MannWhitneyResult result;
  if (x.empty() || y.empty()) return result;
  const PooledRanks r = rank_pooled(x, y);
  const std::size_t n1 = x.size(), n2 = y.size();
  long doubled_sum = 0;
  for (std::size_t i = 0; i < n1; ++i) doubled_sum += r.doubled[i];
  const double a = static_cast<double>(n1);
  result.u = static_cast<double>(doubled_sum) / 2.0 - a * (a + 1) / 2.0;
  result.exact = method == MannWhitneyMethod::exact ||
                 (method == MannWhitneyMethod::automatic && n1 + n2 <= kMannWhitneyExactMaxTotal);
  result.p_value = result.exact ? exact_p(r, n1, doubled_sum) : asymptotic_p(r, n1, n2, result.u);
  return result;
}

double mann_whitney_min_p(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) return 1.0;
  double ways = 1;  // C(n1 + n2, n1)
  for (std::size_t i = 1; i <= n1; ++i) ways = ways * static_cast<double>(n2 + i) / static_cast<double>(i);
  return std::min(1.0, 2.0 / ways);
}

}  // namespace bench_mps::harness
