#pragma once
// Repeats measured by one set of worker processes are not independent: the rounds of one set share its
// processes, their memory placement and their cores: on an H100 they often agree within 0.2 % (a single
// round up to about 2.5 % off the others), where two sets of the same configuration differ by 1-2 % (the
// gpu-bound mlp at N=1, results/2026-11-26-compare).
// A configuration's independent units are therefore its worker sets: its noise is the confidence
// interval of the mean of its sets' means, and compare tests those means (harness/compare/welch_test).
#include "harness/results/wing.hpp"

#include <functional>
#include <vector>

#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// The runs of one configuration grouped by the worker set that measured them, in repeat order: by
/// summary.csv's `set` column where every run has it. In a folder written before that column, a run whose
/// startup_s is 0 was a later round of the set before it (startup_s is the set's start-up on its first round,
/// 0 on the rest); any other run, NaN included (folders written before that column too), starts a set.
std::vector<std::vector<const SummaryRecord*>> worker_sets(std::vector<const SummaryRecord*> runs);

/// The mean of `value` over each worker set's finite values, in set order; a set without one is left out.
std::vector<double> worker_set_means(const std::vector<const SummaryRecord*>& runs,
                                     const std::function<double(const SummaryRecord&)>& value);

/// A configuration's noise in `value`: relative_mean_ci_width (common/stats, ~94 % Student-t interval)
/// of its worker sets' means. It narrows as sets are added, so more sets can meet a target; NaN with
/// fewer than two sets (one set tells nothing of the noise between sets). What compare and the sweep's
/// noise target both call noise.
double configuration_noise(const std::vector<const SummaryRecord*>& runs,
                           const std::function<double(const SummaryRecord&)>& value);

}  // namespace bench_mps::harness
