#pragma once
// A calibration's slowdown (host or MPS contention): the median unit of N copies over the median alone. A
// damaged or foreign runs.csv can hold any positive number in step_mean_ms; a ratio far outside what copies
// sharing one machine do is refused, naming the folder, rather than carried into every prediction as inf or 1e300.
#include "harness/predict/wing.hpp"

#include <cmath>
#include <string>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"

namespace bench_mps::harness {

/// The bounds of a plausible calibration ratio (N copies at most a thousand times slower, or faster, than one).
inline constexpr double kCalibrationRatioMin = 1e-3, kCalibrationRatioMax = 1e3;

/// at_n_ms / alone_ms; throws ResultsError naming `where` when either is not a finite unit above 0 or the
/// ratio lies outside [kCalibrationRatioMin, kCalibrationRatioMax].
inline double calibration_ratio(double at_n_ms, double alone_ms, int procs, const std::string& where) {
  const double r = at_n_ms / alone_ms;
  if (!std::isfinite(at_n_ms) || !std::isfinite(alone_ms) || !(alone_ms > 0) || !std::isfinite(r) ||
      r < kCalibrationRatioMin || r > kCalibrationRatioMax)
    throw ResultsError(where + ": N=" + std::to_string(procs) + " took " + fmt_num(at_n_ms) + " ms a step against " +
                       fmt_num(alone_ms) + " ms alone, not a slowdown between " + fmt_num(kCalibrationRatioMin) +
                       "x and " + fmt_num(kCalibrationRatioMax) + "x (a damaged runs.csv?)");
  return r;
}

}  // namespace bench_mps::harness
