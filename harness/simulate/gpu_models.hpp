#pragma once
// The GPU's sharing as the simulator models it, from the X-ray (docs/REGIMES.md) and nothing fitted to
// the programs predicted.
#include "harness/simulate/wing.hpp"

#include <limits>
#include <vector>

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

/// One point of the MPS contention calibration (harness/predict/mps_calibration.hpp): `copies` copies of one
/// synthetic shape running together, their SM shares and memory bandwidth demands added up (`sm`, `mem`), ran
/// `factor` times as long as the shares alone say (1 / max(1, sm, mem) of their speed alone).
struct ContentionPoint {
  int copies = 2;
  double sm = 0, mem = 0;
  double factor = 1;
};

/// MPS: every copy's work runs at once. A piece asking for a share s of the SMs, beside others, runs at
/// 1 / max(1, the shares of all pieces running, the copies' memory bandwidth demands added up) of its
/// speed alone (the SMs and the memory shared out in proportion; docs/PREDICT.md), and, where the GPU was
/// calibrated, slower again by the contention factor of the pieces running (co-resident kernels share issue
/// slots, caches and DRAM below saturation too).
struct MpsModel {
  std::vector<ContentionPoint> contention;  ///< none: the shares alone (no contention below saturation)
  /// The factor for `running` pieces with SM shares `sm` and memory demands `mem` added up: 1 for one piece or
  /// without points. At a calibrated count, the points of that count and a factor of 1 at sums (0, 0) weighted by
  /// the inverse square of their distance in (sm, mem) (a point itself where the sums are its own); the slowdown it
  /// gives, max(1, sm, mem) x factor, is held at least what the smaller calibrated counts give the same pieces (each
  /// asking sm / running, mem / running) and at least 1: more pieces of one ask never run faster than fewer. Between
  /// two calibrated counts the slowdown is linear in the count, from 1 at one piece up to the smallest; past the
  /// largest, the largest's points at the sums themselves, held at least its slowdown.
  double factor(int running, double sm, double mem) const;
};

}  // namespace bench_mps::harness
