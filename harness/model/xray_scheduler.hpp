#pragma once
// The GPU's scheduler as an X-ray (--scenario xray, docs/REGIMES.md) measured it: what the regime model and
// the simulator's time-slicing arbiter are given, read the same way by report, predict and advise.
#include "harness/model/wing.hpp"

#include <vector>

#include "harness/model/regime_model.hpp"
#include "harness/results/regime_rows.hpp"

namespace bench_mps::harness {

/// The scheduler as the X-ray saw it: medians over its time-sliced N >= 2.
SchedulerFacts scheduler_of(const std::vector<XrayCell>& xray);

}  // namespace bench_mps::harness
