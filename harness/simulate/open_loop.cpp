// Due times of a paced trace's steps: see open_loop.hpp.
#include "harness/simulate/open_loop.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace bench_mps::harness {

bool make_open_loop(CopyTrace& trace) {
  // Alone a step starts when the one before it ends (TraceStep::alone_ns, summed).
  std::vector<double> launch(trace.steps.size(), std::numeric_limits<double>::quiet_NaN());
  double start = 0;
  for (std::size_t k = 0; k < trace.steps.size(); ++k) {
    const TraceStep& s = trace.steps[k];
    const bool paced = k >= trace.steady_from && k < trace.steady_to && k != trace.dropped_step && !s.items.empty();
    if (paced) launch[k] = start + s.items.front().ready_ns;
    start += s.alone_ns();
  }
  const auto first = std::find_if(launch.begin(), launch.end(), [](double v) { return std::isfinite(v); });
  if (first == launch.end()) return false;
  const double zero = *first;
  for (std::size_t k = 0; k < trace.steps.size(); ++k) trace.steps[k].due_ns = launch[k] - zero;
  trace.open_loop = true;
  return true;
}

}  // namespace bench_mps::harness
