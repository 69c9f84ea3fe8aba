// The scheduler as the X-ray saw it: see xray_scheduler.hpp.
#include "harness/model/xray_scheduler.hpp"

#include <algorithm>
#include <cmath>

#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"

namespace bench_mps::harness {

SchedulerFacts scheduler_of(const std::vector<XrayCell>& xray) {
  std::vector<double> slice, sw, turn;
  const XrayCell* hold = nullptr;  // the gaps probe at the smallest N that decided a hold: beside one busy
                                   // context its pairs of kernels come fastest, so it samples the most
  for (const XrayCell& c : xray)
    if (c.mode == kTimesliceMode && c.procs > 1) {
      slice.push_back(c.slice_ms);
      sw.push_back(c.switch_ms);
      turn.push_back(c.turn_switch_ms);
      if (std::isfinite(c.hold_us) && (!hold || c.procs < hold->procs)) hold = &c;
    }
  // A turn costs nothing at least: where contexts truly run side by side (CPU stand-ins on cores of
  // their own) the turns' arithmetic gives less than the kernel.
  // (Likewise a switch: noise can push the difference of two measurements below zero.)
  auto at_least_zero = [](double v) { return std::isfinite(v) ? std::max(0.0, v) : v; };
  SchedulerFacts s{median_finite(slice), at_least_zero(median_finite(sw)), at_least_zero(median_finite(turn))};
  s.turn_cost_measured_ms = median_finite(turn);
  s.switch_measured_ms = median_finite(sw);
  if (hold) {
    s.hold_us = hold->hold_us;
    s.hold_bound = hold->hold_bound > 0.5;
  }
  return s;
}

}  // namespace bench_mps::harness
