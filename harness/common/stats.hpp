#pragma once
// Statistics used by the writers, the table and compare. Empty input gives NaN.
#include "harness/common/wing.hpp"

#include <vector>

namespace bench_mps::harness {

double mean(const std::vector<double>& x);
/// Linear-interpolated quantile (numpy's default), q in [0, 1].
double quantile(std::vector<double> x, double q);
double median(const std::vector<double>& x);
/// The median of the finite values (a failed repeat's NaN left out); NaN if none.
double median_finite(std::vector<double> x);
/// Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all equal, 1/n when one takes everything.
double jain_fairness(const std::vector<double>& x);

}  // namespace bench_mps::harness
