#include "harness/common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>

namespace bench_mps::harness {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double mean(const std::vector<double>& x) {
  if (x.empty()) return kNaN;
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double sample_variance(const std::vector<double>& x) {
  if (x.size() < 2) return kNaN;
  const double m = mean(x);
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return ss / static_cast<double>(x.size() - 1);
}

double median_finite(std::vector<double> x) {
  x.erase(std::remove_if(x.begin(), x.end(), [](double v) { return !std::isfinite(v); }), x.end());
  return median(x);
}

double quantile(std::vector<double> x, double q) {
  if (x.empty()) return kNaN;
  std::sort(x.begin(), x.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(x.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, x.size() - 1);
  return x[lo] + (pos - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

double median(const std::vector<double>& x) { return quantile(x, 0.5); }

double student_t_quantile(double p, double df) {
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

double student_t_two_sided_p(double t, double df) {
  if (std::isinf(t)) return 0;
  return 2 * boost::math::cdf(boost::math::complement(boost::math::students_t_distribution<double>(df), std::fabs(t)));
}

double relative_mean_ci_width(const std::vector<double>& x, double coverage) {
  const std::size_t n = x.size();
  if (n < 2) return kNaN;
  const double m = mean(x);
  if (m == 0 || !std::isfinite(m)) return kNaN;
  const double s = std::sqrt(sample_variance(x));
  const double t = student_t_quantile((1 + coverage) / 2, static_cast<double>(n - 1));
  return 2 * t * s / std::sqrt(static_cast<double>(n)) / std::fabs(m);
}

bool RatioInterval::has_interval() const { return std::isfinite(lo) && std::isfinite(hi); }

namespace {

/// ratio_of_means's interval from each side's mean, sample variance and count (na, nb: at least 2).
RatioInterval welch_ratio(double ma, double s2a, double na, double mb, double s2b, double nb, double coverage) {
  RatioInterval r{ma / mb, kNaN, kNaN};
  const double va = s2a / (na * ma * ma), vb = s2b / (nb * mb * mb);
  if (va + vb == 0) {
    r.lo = r.hi = r.ratio;
    return r;
  }
  const double df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
  const double half = student_t_quantile((1 + coverage) / 2, df) * std::sqrt(va + vb);
  r.lo = r.ratio * std::exp(-half);
  r.hi = r.ratio * std::exp(half);
  return r;
}

}  // namespace

RatioInterval ratio_of_means(const std::vector<double>& a, const std::vector<double>& b, double coverage) {
  const double ma = mean(a), mb = mean(b);
  if (a.size() < 2 || b.size() < 2 || !(ma > 0) || !(mb > 0)) return {ma / mb, kNaN, kNaN};
  return welch_ratio(ma, sample_variance(a), static_cast<double>(a.size()), mb, sample_variance(b),
                     static_cast<double>(b.size()), coverage);
}

int more_samples_to_clear(const std::vector<double>& a, const std::vector<double>& b, double line, int cap,
                          double coverage) {
  const double ma = mean(a), mb = mean(b);
  if (a.size() < 2 || b.size() < 2 || !(ma > 0) || !(mb > 0)) return -1;
  const double s2a = sample_variance(a), s2b = sample_variance(b);  // kept as measured: the same spread, more sets
  for (int k = 0; k <= cap; ++k) {
    const RatioInterval r =
        welch_ratio(ma, s2a, static_cast<double>(a.size() + k), mb, s2b, static_cast<double>(b.size() + k), coverage);
    if (r.lo >= line || r.hi < line) return k;  // wholly on one side, as advise's decision band reads it
  }
  return -1;
}

double jain_fairness(const std::vector<double>& x) {
  if (x.empty()) return kNaN;
  double sum = 0, sum_sq = 0;
  for (double v : x) {
    sum += v;
    sum_sq += v * v;
  }
  if (sum_sq == 0) return kNaN;
  return sum * sum / (static_cast<double>(x.size()) * sum_sq);
}

}  // namespace bench_mps::harness

namespace bench_mps::harness {

Interval median_confidence_interval(std::vector<double> x) {
  if (x.size() < 2) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  // P(Binomial(n, 1/2) <= j) by summing C(n, i) / 2^n; n is a count of repeats (tens at most).
  auto below = [n](std::size_t j) {
    double c = 1, sum = 0;
    for (std::size_t i = 0; i <= j; ++i) {
      sum += c;
      c = c * static_cast<double>(n - i) / static_cast<double>(i + 1);
    }
    return sum / std::pow(2.0, static_cast<double>(n));
  };
  std::size_t k = 1;
  while (k + 1 <= n / 2 && 1 - 2 * below(k) >= kMedianCiCoverage) ++k;
  return {x[k - 1], x[n - k]};
}

double relative_spread(const std::vector<double>& values) {
  if (values.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const Interval ci = median_confidence_interval(values);
  const double mid = median(values);
  if (mid == 0) return std::numeric_limits<double>::quiet_NaN();
  return (ci.hi - ci.lo) / std::fabs(mid);
}

}  // namespace bench_mps::harness
