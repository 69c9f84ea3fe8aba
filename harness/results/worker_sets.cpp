#include "harness/results/worker_sets.hpp"

#include <algorithm>
#include <cmath>

#include "harness/common/stats.hpp"

namespace bench_mps::harness {

std::vector<std::vector<const SummaryRecord*>> worker_sets(std::vector<const SummaryRecord*> runs) {
  std::stable_sort(runs.begin(), runs.end(),
                   [](const SummaryRecord* a, const SummaryRecord* b) { return a->repeat < b->repeat; });
  std::vector<std::vector<const SummaryRecord*>> sets;
  // The `set` column where every run has it; a folder written before it: a new set wherever a run paid a
  // start-up (the first round of a set is charged its workers' start-up, later rounds none).
  const bool recorded = std::all_of(runs.begin(), runs.end(), [](const SummaryRecord* r) { return r->worker_set > 0; });
  for (const SummaryRecord* r : runs) {
    const bool new_set = recorded ? sets.empty() || sets.back().front()->worker_set != r->worker_set
                                  : sets.empty() || r->startup_s != 0.0;
    if (new_set) sets.emplace_back();
    sets.back().push_back(r);
  }
  return sets;
}

std::vector<double> worker_set_means(const std::vector<const SummaryRecord*>& runs,
                                     const std::function<double(const SummaryRecord&)>& value) {
  std::vector<double> means;
  for (const auto& set : worker_sets(runs)) {
    std::vector<double> v;
    for (const SummaryRecord* r : set)
      if (const double x = value(*r); std::isfinite(x)) v.push_back(x);
    if (!v.empty()) means.push_back(mean(v));
  }
  return means;
}

double configuration_noise(const std::vector<const SummaryRecord*>& runs,
                           const std::function<double(const SummaryRecord&)>& value) {
  return relative_mean_ci_width(worker_set_means(runs, value));
}

}  // namespace bench_mps::harness
