#pragma once
// The GPU's sharing as the simulator models it, from the X-ray (docs/REGIMES.md) and nothing fitted to
// the programs predicted.
#include "harness/simulate/wing.hpp"

#include <limits>

namespace bench_mps::harness {

/// Time-slicing: one context runs at a time. A context with work keeps the GPU for at most a slice when
/// others have work; a context whose queue empties while its host waits for it gives the GPU up at once;
/// one whose queue empties while its host is still launching (a launch gap) keeps it for `hold_ns` (the
/// X-ray's gaps probe), then gives it up; each change of context costs the GPU `turn_ns` (a turn's cost,
/// queue emptied) or `switch_ns` (a slice that ran out), during which nothing runs. The next context is
/// the next one in round-robin order that has work.
struct TimeSliceModel {
  double slice_ns = 2.09e6;
  double switch_ns = 0.13e6;
  double turn_ns = 0.138e6;
  double hold_ns = 0;
};

/// MPS: every copy's work runs at once. A piece asking for a share s of the SMs, beside others, runs at
/// 1 / max(1, the shares of all pieces running, the copies' memory bandwidth demands added up) of its
/// speed alone (the SMs and the memory shared out in proportion; docs/PREDICT.md).
struct MpsModel {};

}  // namespace bench_mps::harness
