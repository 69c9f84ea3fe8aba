#include "harness/compare/welch_test.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/common/stats.hpp"

namespace bench_mps::harness {

WelchResult welch_t_test(const std::vector<double>& x, const std::vector<double>& y) {
  WelchResult r;
  if (x.size() < 2 || y.size() < 2) {
    r.p_value = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  // t and df do not change with the unit: both samples are taken over their largest magnitude first, so that
  // squares (and squares of variances) of any finite values stay finite.
  double scale = 0;
  for (const std::vector<double>* v : {&x, &y})
    for (double e : *v) scale = std::max(scale, std::fabs(e));
  if (!(scale > 0) || !std::isfinite(scale)) scale = 1;
  std::vector<double> sx(x), sy(y);
  for (double& e : sx) e /= scale;
  for (double& e : sy) e /= scale;
  const double mx = mean(sx), my = mean(sy);
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  const double ax = sample_variance(sx) / nx, ay = sample_variance(sy) / ny;
  const double se2 = ax + ay;
  if (se2 == 0) {
    r.t = mx == my ? 0 : std::copysign(std::numeric_limits<double>::infinity(), mx - my);
    r.df = nx + ny - 2;
    r.p_value = mx == my ? 1 : 0;
    return r;
  }
  r.t = (mx - my) / std::sqrt(se2);
  const double fx = ax / se2, fy = ay / se2;  // each sample's share of the variance: 0..1
  r.df = 1 / (fx * fx / (nx - 1) + fy * fy / (ny - 1));
  r.p_value = student_t_two_sided_p(r.t, r.df);
  return r;
}

}  // namespace bench_mps::harness
