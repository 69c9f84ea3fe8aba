// The scheduler models' rows: see scheduler_models.hpp.
#include "harness/model/scheduler_models.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/plan/mode_names.hpp"

namespace bench_mps::harness {

TimeSliceModel timeslice_model(const SchedulerFacts& s) {
  TimeSliceModel m;
  m.slice_ns = s.slice_ms * 1e6;
  m.switch_ns = s.switch_ms * 1e6;
  m.turn_ns = s.turn_cost_ms * 1e6;
  m.hold_ns = std::isfinite(s.hold_us) ? s.hold_us * 1e3 : 0.0;
  return m;
}

const std::vector<SchedulerModel>& scheduler_models() {
  static const std::vector<SchedulerModel> models{
      {ModeKind::timeslice, "time-slicing",
       [](const SchedulerFacts& s, int copies) { return make_timeslice_arbiter(timeslice_model(s), copies); },
       // N copies take turns at the whole GPU: N times the step
       [](double, int n) { return static_cast<double>(n); },
       [](const RegimePoint& waits, const std::optional<RegimePoint>& gaps, int n, const SchedulerFacts& s) {
         return predict_timesliced_between(waits, gaps, n, s);
       },
       true},
      {ModeKind::mps, "MPS", [](const SchedulerFacts& s, int) { return make_mps_arbiter(s.mps); },
       // side by side until the copies' busy shares add up to the whole GPU
       [](double duty, int n) { return std::max(1.0, n * duty); },
       [](const RegimePoint& waits, const std::optional<RegimePoint>&, int n, const SchedulerFacts&) {
         return predict_mps(waits, n);
       },
       false},
  };
  return models;
}

const SchedulerModel& scheduler_model(ModeKind mode) {
  for (const SchedulerModel& m : scheduler_models())
    if (m.mode == mode) return m;
  throw std::invalid_argument("no scheduler model covers the mode '" + std::string(mode_kind_word(mode)) + "'");
}

}  // namespace bench_mps::harness
