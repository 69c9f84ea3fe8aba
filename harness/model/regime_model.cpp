#include "harness/model/regime_model.hpp"

#include <algorithm>
#include <cmath>

namespace bench_mps::harness {

RegimePoint regime_point(double burst_ms, double duty, double nvml_busy, double gpm_sm_util) {
  RegimePoint p;
  p.burst_ms = burst_ms;
  p.step_ms = duty > 0 ? burst_ms / duty : NAN;
  p.kernel_ms = burst_ms;
  if (std::isfinite(nvml_busy) && nvml_busy > 0) p.kernel_ms = std::min(burst_ms, nvml_busy * p.step_ms);
  p.footprint = std::isfinite(gpm_sm_util) && duty > 0 ? gpm_sm_util / duty : NAN;
  return p;
}

Prediction predict_timesliced(const RegimePoint& p, int n, const SchedulerFacts& s) {
  if (!(p.step_ms > 0) || !(p.kernel_ms > 0) || !s.usable()) return {NAN, NAN, ""};
  if (n <= 1) return {1.0, NAN, "alone"};
  const double extra_slices = std::max(0.0, std::ceil(p.kernel_ms / s.slice_ms) - 1);
  const double turn = p.kernel_ms + s.turn_cost_ms + extra_slices * s.switch_ms;
  const double turns = n * turn / p.step_ms;
  Prediction out{std::max(1.0, turns), NAN, turns > 1 ? "turns" : "host-bound"};
  if (p.kernel_ms > s.slice_ms)  // served in slices, all at once: copies that overlap stay in step
    out.upper = std::max(out.loss, (p.step_ms - p.kernel_ms + n * turn) / p.step_ms);
  return out;
}

Prediction predict_mps(const RegimePoint& p, int n) {
  if (!(p.step_ms > 0) || !std::isfinite(p.footprint)) return {NAN, NAN, ""};
  if (n <= 1) return {1.0, NAN, "alone"};
  const double demand = n * p.duty() * p.footprint;
  return demand > 1 ? Prediction{demand, NAN, "SMs full"} : Prediction{1.0, NAN, "side by side"};
}

Prediction predict_timesliced_between(const RegimePoint& waits, const std::optional<RegimePoint>& gaps, int n,
                                      const SchedulerFacts& s) {
  const Prediction ts = predict_timesliced(waits, n, s);
  if (!gaps) return ts;
  const Prediction g = predict_timesliced(*gaps, n, s);
  const double lo = std::min(ts.loss, g.loss);
  double hi = std::max(ts.loss, g.loss);
  for (const double u : {ts.upper, g.upper})
    if (std::isfinite(u)) hi = std::max(hi, u);
  return {lo, hi > lo ? hi : NAN, ts.why + " per host wait, " + g.why + " per idle gap"};
}

double predict_wait_ms(int n, const SchedulerFacts& s) {
  return s.slice_ms > 0 && n > 1 ? (n - 1) * (s.slice_ms + s.switch_ms) : NAN;
}

}  // namespace bench_mps::harness
