#pragma once
// The host's share of N copies (docs/PREDICT.md "The host, calibrated"): where N copies slow each other's host
// part by h (harness/predict/host_calibration.hpp measures it per machine), a copy's host runs h times longer:
// every step's time to its wait and every launch in it come h times later. The release after a wait, the
// device work itself and an open loop's due times stay as recorded; so does the step standing for spans the
// profile did not keep (the predictor scales it by the steady part's slowdown, which the stretch is part of).
#include "harness/simulate/wing.hpp"

#include "harness/simulate/copy_trace.hpp"

namespace bench_mps::harness {

/// `trace` with its host stretched by `h` (h = 1, or not finite or not positive: the trace as it is).
CopyTrace stretch_host(const CopyTrace& trace, double h);

}  // namespace bench_mps::harness
