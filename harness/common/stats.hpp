#pragma once
// Statistics used by the writers, the table and compare. Empty input gives NaN.
#include "harness/common/wing.hpp"

#include <vector>

namespace bench_mps::harness {

double mean(const std::vector<double>& x);
/// The sample variance, sum (x - mean)^2 / (n - 1); NaN with fewer than two values.
double sample_variance(const std::vector<double>& x);
/// Linear-interpolated quantile (numpy's default), q in [0, 1].
double quantile(std::vector<double> x, double q);
double median(const std::vector<double>& x);
/// The median of the finite values (a failed repeat's NaN left out); NaN if none.
double median_finite(std::vector<double> x);
/// Coverage of the median's confidence interval below: that of five values' whole range, 1 - 2/2^5.
inline constexpr double kMedianCiCoverage = 0.9375;

/// The distribution-free confidence interval of the median from order statistics: [x(k), x(n+1-k)]
/// (sorted, 1-based) for the largest k whose coverage 1 - 2 P(Binomial(n, 1/2) <= k - 1) is at least
/// kMedianCiCoverage. Up to 8 values it is their whole range; from 9 it leaves out the extremes, so it
/// narrows as repeats are added (the range only ever widens). {NaN, NaN} for fewer than two values.
struct Interval {
  double lo, hi;
};
Interval median_confidence_interval(std::vector<double> x);

/// The noise of a configuration's repeats, compare's and the sweep's --noise-target's: the width of
/// their median's confidence interval (median_confidence_interval, ~94%) as a fraction of the median.
/// Up to 8 repeats that is their whole range, (max - min) / |median|; more repeats narrow it. NaN with
/// fewer than two values or a zero median.
double relative_spread(const std::vector<double>& values);

/// Student's t distribution with `df` > 0 degrees of freedom (fractional allowed): the quantile at
/// probability p in (0, 1), and the two-sided tail P(|T| >= |t|). Boost.Math.
double student_t_quantile(double p, double df);
double student_t_two_sided_p(double t, double df);

/// The width of the Student-t confidence interval of the mean of `x` at `coverage`, as a fraction of
/// |mean|: 2 t((1 + coverage) / 2, n - 1) s / sqrt(n) / |mean|, s the sample standard deviation. Unlike
/// a range, it narrows as values are added (as 1 / sqrt(n)); with two values it is 10.15 times their
/// difference at the default coverage. NaN with fewer than two values or a zero mean.
double relative_mean_ci_width(const std::vector<double>& x, double coverage = kMedianCiCoverage);

/// The ratio of two means, mean(a) / mean(b), and its ~94 % interval (`coverage`): Welch's t on the log of
/// the ratio, whose variance is s_a^2 / (n_a mean_a^2) + s_b^2 / (n_b mean_b^2) (the delta method), with the
/// Welch-Satterthwaite degrees of freedom. a and b are independent units (worker sets' means), positive.
/// lo and hi are NaN with fewer than two values on either side; both equal the ratio where neither varies.
struct RatioInterval {
  double ratio = 0, lo = 0, hi = 0;
  bool has_interval() const;  ///< lo and hi are finite
};
RatioInterval ratio_of_means(const std::vector<double>& a, const std::vector<double>& b,
                             double coverage = kMedianCiCoverage);

/// How many more values of each of a and b would put ratio_of_means's interval wholly on one side of `line` (its lo
/// at or above it, or its hi below it), were their means and spreads (coefficients of variation) to stay as
/// measured: 0 where it lies on one side already, the least k up to `cap`, -1 where `cap` more would not (or fewer
/// than two values on a side). An estimate of what more worker sets buy, not a promise: the next sets may spread
/// more or less.
int more_samples_to_clear(const std::vector<double>& a, const std::vector<double>& b, double line, int cap,
                          double coverage = kMedianCiCoverage);

/// Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all equal, 1/n when one takes everything.
double jain_fairness(const std::vector<double>& x);

}  // namespace bench_mps::harness
