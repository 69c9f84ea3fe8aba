#include "harness/compare/welch_test.hpp"

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
  const double mx = mean(x), my = mean(y);
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  const double ax = sample_variance(x) / nx, ay = sample_variance(y) / ny;
  const double se2 = ax + ay;
  if (se2 == 0) {
    r.t = mx == my ? 0 : std::copysign(std::numeric_limits<double>::infinity(), mx - my);
    r.df = nx + ny - 2;
    r.p_value = mx == my ? 1 : 0;
    return r;
  }
  r.t = (mx - my) / std::sqrt(se2);
  r.df = se2 * se2 / (ax * ax / (nx - 1) + ay * ay / (ny - 1));
  r.p_value = student_t_two_sided_p(r.t, r.df);
  return r;
}

}  // namespace bench_mps::harness
