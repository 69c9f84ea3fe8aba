#pragma once
// NVML's utilisation samples and the Monitor's GPM periods over a window of CLOCK_MONOTONIC: which of
// them lie inside it, and their mean. Pure: the run's reduction (the timed window) and a GPU
// profile's steady part (harness/results/profile_window.hpp) use it on what was recorded.
#include "harness/gpu/wing.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/gpu/nvml.hpp"

namespace bench_mps::harness {

/// The driver's utilisation samples (oldest first) whose whole sampling period lies inside [from_ns,
/// to_ns], as fractions: a sample is the share of the period that ends at it, its period the median gap
/// between the samples. Fewer than two samples give no period: none.
std::vector<double> utilization_within(const std::vector<UtilSample>& samples, std::int64_t from_ns,
                                       std::int64_t to_ns);

/// The GPM periods that lie inside a window, and their metrics over the span they cover.
struct GpmWindow {
  std::size_t periods = 0;              ///< 0: none inside (the rest is then empty)
  std::int64_t from_ns = 0, to_ns = 0;  ///< the span used: the first period's start, the last one's end
  GpmMetrics metrics;                   ///< each the time-weighted mean of the periods' (NaN ones left out)
};

/// The periods (in time order) inside [from_ns, to_ns]: from the first sample at or after from_ns to
/// the last at or before to_ns.
GpmWindow gpm_within(const std::vector<GpmPeriod>& periods, std::int64_t from_ns, std::int64_t to_ns);

}  // namespace bench_mps::harness
