// NVML samples and GPM periods over a window: see sample_windows.hpp.
#include "harness/gpu/sample_windows.hpp"

#include <algorithm>
#include <cmath>

namespace bench_mps::harness {

std::vector<double> utilization_within(const std::vector<UtilSample>& samples, std::int64_t from_ns,
                                       std::int64_t to_ns) {
  std::vector<double> inside;
  if (samples.size() < 2) return inside;
  std::vector<std::int64_t> gaps;
  for (std::size_t i = 1; i < samples.size(); ++i) gaps.push_back(samples[i].t_ns - samples[i - 1].t_ns);
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
  const std::int64_t period = gaps[gaps.size() / 2];
  for (const UtilSample& u : samples)
    if (u.t_ns - period >= from_ns && u.t_ns <= to_ns) inside.push_back(u.pct / 100.0);
  return inside;
}

GpmWindow gpm_within(const std::vector<GpmPeriod>& periods, std::int64_t from_ns, std::int64_t to_ns) {
  GpmWindow w;
  double weight[3] = {0, 0, 0}, sum[3] = {0, 0, 0};
  for (const GpmPeriod& p : periods) {
    if (p.from_ns < from_ns || p.to_ns > to_ns || p.to_ns <= p.from_ns) continue;
    if (w.periods++ == 0) w.from_ns = p.from_ns;
    w.to_ns = p.to_ns;
    const double length = static_cast<double>(p.to_ns - p.from_ns);
    const double values[3] = {p.metrics.sm_util, p.metrics.sm_occupancy, p.metrics.dram_bw_util};
    for (int i = 0; i < 3; ++i)
      if (!std::isnan(values[i])) sum[i] += values[i] * length, weight[i] += length;
  }
  auto mean_of = [&](int i) { return weight[i] > 0 ? sum[i] / weight[i] : NAN; };
  w.metrics = GpmMetrics{mean_of(0), mean_of(1), mean_of(2)};
  return w;
}

}  // namespace bench_mps::harness
