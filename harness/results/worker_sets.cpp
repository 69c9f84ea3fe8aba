#include "harness/results/worker_sets.hpp"

#include <algorithm>
#include <cmath>

#include "harness/common/stats.hpp"

namespace bench_mps::harness {

std::vector<std::vector<const SummaryRecord*>> worker_sets(std::vector<const SummaryRecord*> runs) {
  std::stable_sort(runs.begin(), runs.end(),
                   [](const SummaryRecord* a, const SummaryRecord* b) { return a->repeat < b->repeat; });
  std::vector<std::vector<const SummaryRecord*>> sets;
  for (const SummaryRecord* r : runs) {
    if (sets.empty() || r->startup_s != 0.0) sets.emplace_back();
    sets.back().push_back(r);
  }
  return sets;
}

double worker_set_spread(const std::vector<const SummaryRecord*>& runs,
                         const std::function<double(const SummaryRecord&)>& value) {
  std::vector<double> means;
  for (const auto& set : worker_sets(runs)) {
    std::vector<double> v;
    for (const SummaryRecord* r : set)
      if (const double x = value(*r); std::isfinite(x)) v.push_back(x);
    if (!v.empty()) means.push_back(mean(v));
  }
  return relative_spread(means);
}

double configuration_noise(const std::vector<const SummaryRecord*>& runs,
                           const std::function<double(const SummaryRecord&)>& value) {
  std::vector<double> values;
  for (const SummaryRecord* r : runs)
    if (const double x = value(*r); std::isfinite(x)) values.push_back(x);
  return wider_spread(relative_spread(values), worker_set_spread(runs, value));
}

double wider_spread(double repeats_spread, double sets_spread) {
  if (std::isnan(repeats_spread)) return sets_spread;
  if (std::isnan(sets_spread)) return repeats_spread;
  return std::max(repeats_spread, sets_spread);
}

}  // namespace bench_mps::harness
