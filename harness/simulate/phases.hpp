#pragma once
// Copies out of phase (docs/PREDICT.md "Phases"): copies of a program do not start a step's length apart in
// lockstep; they start at random relative phases and drift, as their steps differ in length. A phase draw gives
// each copy a start offset, uniform over one step alone, and a rotation of its steady part (its steady steps
// after the first taken from a random one on, cyclically: the same steps, in another order against the other
// copies'), so that a replay of N copies sees the alone run's own jitter of step lengths. One copy alone keeps
// its unit and its run whatever its draw. Draws come from a fixed seed: the same trace and N give the same draws
// on every machine.
#include "harness/simulate/wing.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/simulate/copy_trace.hpp"

namespace bench_mps::harness {

/// Phase draws per prediction unless the user gives another count (predict --phases).
inline constexpr int kDefaultPhaseDraws = 16;
inline constexpr int kMaxPhaseDraws = 256;

/// One draw: copy c starts at offsets_ns[c] and runs its steady part rotated by shifts[c] steps.
struct PhaseDraw {
  std::vector<double> offsets_ns;
  std::vector<std::size_t> shifts;
};

/// `draws` draws for `copies` copies of `trace` (offsets over [0, its steady step alone), 0 where it has none;
/// shifts over its steady steps after the first, 0 where the steady part holds the dropped step or fewer than
/// three steps, or the trace is an open loop: open_loop.hpp).
std::vector<PhaseDraw> draw_phases(const CopyTrace& trace, int copies, int draws, std::uint64_t seed = 1);

/// `trace` with its steady steps (steady_from, steady_to) rotated left by `shift` (modulo their count), the first
/// steady step and every other step, and what a trace says of its steady part, unchanged. The trace itself
/// where it cannot rotate.
CopyTrace rotate_steady(const CopyTrace& trace, std::size_t shift);

}  // namespace bench_mps::harness
