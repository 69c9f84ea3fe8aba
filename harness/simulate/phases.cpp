// Phase draws and the rotation of a steady part: see phases.hpp.
#include "harness/simulate/phases.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace bench_mps::harness {
namespace {

/// Steps a rotation may move: the steady part but its first step, where that leaves at least two and the
/// dropped step is not among them. The first stays: a unit between step ends leaves it out (replay.hpp), so the
/// steps it is taken over stay the same steps, and one copy alone keeps its unit whatever the rotation.
std::size_t rotatable_steps(const CopyTrace& t) {
  // An open loop's steps keep their places: each step's due time is where its run alone launched it, which a late
  // step before it had pushed back; moved elsewhere, a long step would make the one after it late where alone
  // nothing was, and one copy alone would no longer replay its trace. Its draws vary the offsets alone.
  if (t.open_loop) return 0;
  if (t.steady_to <= t.steady_from + 1 || t.steady_to > t.steps.size()) return 0;
  if (t.dropped_step >= t.steady_from && t.dropped_step < t.steady_to) return 0;
  const std::size_t n = t.steady_to - t.steady_from - 1;
  return n >= 2 ? n : 0;
}

/// Uniform on [0, 1) from 53 bits of the engine (the same on every standard library, unlike
/// std::uniform_real_distribution).
double unit_interval(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

}  // namespace

std::vector<PhaseDraw> draw_phases(const CopyTrace& trace, int copies, int draws, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  const double step = trace.steady_step_ns();
  const std::size_t steps = rotatable_steps(trace);
  std::vector<PhaseDraw> out(static_cast<std::size_t>(std::max(0, draws)));
  for (PhaseDraw& d : out)
    for (int c = 0; c < copies; ++c) {
      const double u = unit_interval(engine), v = unit_interval(engine);
      d.offsets_ns.push_back(std::isfinite(step) ? u * step : 0.0);
      d.shifts.push_back(steps ? std::min(steps - 1, static_cast<std::size_t>(v * static_cast<double>(steps))) : 0);
    }
  return out;
}

CopyTrace rotate_steady(const CopyTrace& trace, std::size_t shift) {
  const std::size_t steps = rotatable_steps(trace);
  if (!steps || shift % steps == 0) return trace;
  CopyTrace out = trace;
  const auto first = out.steps.begin() + static_cast<std::ptrdiff_t>(trace.steady_from + 1);
  std::rotate(first, first + static_cast<std::ptrdiff_t>(shift % steps), first + static_cast<std::ptrdiff_t>(steps));
  return out;
}

}  // namespace bench_mps::harness
