#pragma once
// Two-sided Welch t-test: do two samples' means differ, without assuming equal variances? compare
// applies it to the worker sets' means of a configuration (harness/results/worker_sets.hpp): the sets
// are the independent units of a sweep, where the rounds of one set share its processes and agree more
// closely than two sets do. The t distribution is Boost.Math's (common/stats).
#include "harness/compare/wing.hpp"

#include <vector>

namespace bench_mps::harness {

struct WelchResult {
  double t = 0;        ///< (mean(x) - mean(y)) / sqrt(var(x)/nx + var(y)/ny)
  double df = 0;       ///< Welch-Satterthwaite degrees of freedom
  double p_value = 1;  ///< two-sided; NaN when a sample holds fewer than two values
};

/// Welch's test of x against y (NaN values removed by the caller). Two samples without spread give
/// p 1 when their means are equal and 0 when they differ.
WelchResult welch_t_test(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace bench_mps::harness
