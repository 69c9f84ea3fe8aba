#pragma once
// Two-sided Mann-Whitney U test (Wilcoxon rank-sum) over the repeats of two samples: does one side
// tend to be larger than the other? compare uses it to tell a real change from run-to-run noise.
// Small samples get the exact permutation distribution of the rank sum, with tied values given
// their mid-rank (the exact conditional test, so ties are handled without approximation); large
// samples the normal approximation with tie and continuity corrections, as scipy.stats.mannwhitneyu.
#include "harness/compare/wing.hpp"

#include <cstddef>
#include <vector>

namespace bench_mps::harness {

enum class MannWhitneyMethod {
  automatic,   ///< exact when the two samples hold at most kMannWhitneyExactMaxTotal values
  exact,       ///< exact permutation distribution (ties at mid-ranks); time and memory grow as n1 N^2
  asymptotic,  ///< normal approximation, tie-corrected variance, continuity correction 1/2
};

/// Largest n1 + n2 the automatic method still computes exactly.
inline constexpr std::size_t kMannWhitneyExactMaxTotal = 50;

struct MannWhitneyResult {
  double u = 0;        ///< U of x: pairs (x_i, y_j) with x_i > y_j, a tie counting 1/2
  double p_value = 1;  ///< two-sided; 1 when a sample is empty or every value is tied
  bool exact = false;  ///< which distribution gave p_value
};

/// Two-sided test of x against y. NaN values must be removed by the caller.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                                 MannWhitneyMethod method = MannWhitneyMethod::automatic);

/// Smallest two-sided p-value the exact test can give for samples of n1 and n2 distinct values:
/// 2 / C(n1 + n2, n1), capped at 1 (3 vs 3: 0.1; 4 vs 4: 0.029; 5 vs 5: 0.0079). When it is not
/// below alpha, no outcome of the repeats can be significant.
double mann_whitney_min_p(std::size_t n1, std::size_t n2);

}  // namespace bench_mps::harness
