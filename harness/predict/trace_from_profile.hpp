#pragma once
// A copy's trace for the simulator (harness/simulate/copy_trace.hpp) from its GPU profile: the kept busy
// spans as items, cut into steps at the host waits that count (docs/PROFILE.md "Host waits"), or, where
// the profile has no host waits, at idle gaps of at least the summary's threshold (each burst then taken
// as waited for at its end). Where the profile kept only the run's first and last spans, the time between
// them is one host-only step (CopyTrace::dropped_step).
#include "harness/predict/wing.hpp"

#include <string>

#include "harness/results/gpu_profile.hpp"
#include "harness/results/step_phase.hpp"
#include "harness/simulate/copy_trace.hpp"

namespace bench_mps::harness {

struct ProgramTrace {
  CopyTrace trace;
  std::string cut;            ///< how its steps were cut: "host waits" or "idle gaps of at least X us"
  bool cut_at_waits = false;  ///< its steps were cut at host waits (else at idle gaps: steps between bursts)
  StepPhase kept_phase;       ///< the steps of one kind its steady part keeps (its words: StepPhase::words)
  double profile_ns = 0;      ///< the profiler's start (CUDA's initialisation) to the profile's writing (exit)
  double dropped_ns = 0;      ///< the time alone of the spans the profile did not keep (0: it kept all)
  double active_ns = 0;       ///< the run's first busy span's start to its last one's end (what a baseline stretches)
  double fill = 0;            ///< the profile's kernel-time-weighted fill (the items' share where spans lack SM time)
  bool sm_per_span = false;   ///< the spans carried their SM time (format_version 3)
  /// One copy alone's unit: the mean time between the ends of its steady part's counted steps (the same steps and
  /// times `predict --measure` takes; a run of one step: the trace's own)
  double unit_ns = 0;
};

/// A gated copy's steady part, as `predict` and `predict --measure` both count it: from its release at the start
/// gate (`release_mono_s`, CLOCK_MONOTONIC s; NaN: not gated) to its steady part's end, where the release lies
/// before that end (every copy of its run left the gate at that instant). `s` as it is where the copy was not gated
/// or the profile's clock cannot be placed on CLOCK_MONOTONIC.
ProfileSummary gated_steady_part(const GpuProfile& p, ProfileSummary s, double release_mono_s);

/// `s` is the summary of `p` (its steady part); `mem_demand`: the copy's memory bandwidth share while busy;
/// `follow`: the parts its steady part keeps where it mixes phases (main_phase's; none: the longer ones).
/// UsageError naming the profile where it holds no busy span.
ProgramTrace trace_from_profile(const GpuProfile& p, const ProfileSummary& s, double mem_demand,
                                const std::optional<PhaseFollow>& follow = std::nullopt);

}  // namespace bench_mps::harness
