#include "harness/simulate/host_stretch.hpp"

#include <cmath>

namespace bench_mps::harness {

CopyTrace stretch_host(const CopyTrace& trace, double h) {
  CopyTrace out = trace;
  if (!std::isfinite(h) || h <= 0 || h == 1) return out;
  for (std::size_t i = 0; i < out.steps.size(); ++i) {
    if (i == out.dropped_step) continue;
    TraceStep& s = out.steps[i];
    s.host_ns *= h;
    for (TraceItem& item : s.items) item.ready_ns *= h;
  }
  return out;
}

}  // namespace bench_mps::harness
