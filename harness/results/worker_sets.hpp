#pragma once
// Repeats measured by one set of worker processes are not independent: the rounds of one set share its
// processes, their memory placement and their cores, and on an H100 they agree within 0.2 % where two
// sets of the same configuration differ by 1-2 % (the gpu-bound mlp at N=1, results/2026-11-26-compare).
// A spread taken over repeats alone then understates the noise: two sets that happened to agree look
// steady, and a difference between two sets passes for a difference between two builds. The noise of a
// configuration is therefore the wider of its repeats' spread and the spread of its sets' means.
#include "harness/results/wing.hpp"

#include <functional>
#include <vector>

#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// The runs of one configuration grouped by the worker set that measured them, in repeat order. A run
/// whose startup_s is 0 was a later round of the set before it (summary.csv's startup_s is the set's
/// start-up on its first round, 0 on the rest); any other run, NaN included (folders written before the
/// column), starts a set of its own.
std::vector<std::vector<const SummaryRecord*>> worker_sets(std::vector<const SummaryRecord*> runs);

/// relative_spread of the sets' means of `value` (finite values only); NaN with fewer than two sets.
double worker_set_spread(const std::vector<const SummaryRecord*>& runs,
                         const std::function<double(const SummaryRecord&)>& value);

/// The wider of the two spreads, either of which may be NaN (NaN only when both are).
double wider_spread(double repeats_spread, double sets_spread);

/// A configuration's noise in `value`: the wider of relative_spread over its runs' finite values and
/// worker_set_spread. What compare and the sweep's noise target both call noise.
double configuration_noise(const std::vector<const SummaryRecord*>& runs,
                           const std::function<double(const SummaryRecord&)>& value);

}  // namespace bench_mps::harness
