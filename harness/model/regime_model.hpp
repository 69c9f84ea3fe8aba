#pragma once
// The regime model (DESIGN.md, "Regimes"; docs/REGIMES.md): what N copies of a workload lose to
// time-slicing and to MPS, predicted from the workload alone and the GPU's scheduler as the X-ray
// measured it. No constant is fitted to the outcomes it predicts.
//
// Time-sliced. The GPU runs one context at a time. A synchronising step of a copy needs its kernels'
// time on the GPU (kernel_ms: the events' burst less any launch gaps, which vanish under contention
// because a waiting copy's host launches run ahead) plus one switch to get the GPU (the X-ray's
// turn cost), and one more per slice it outlasts (the X-ray's switch between slices). Call that a
// turn, D. N copies take turns, served whole one after the other, so they spread out and a step
// lasts max(alone, N x D): loss = max(1, N x D / step).
// Bursts that outlast a slice are served in slices, all at once: copies that overlap finish together
// and start their next burst together, a convoy, whose step lasts host + N x D. Where the host work
// is long against N x D that is longer than the turns' bound; the model gives it as the upper end of
// a bracket (Prediction::upper) instead of guessing how much of a convoy forms.
// MPS. The copies' kernels run side by side while they fit: a kernel fills `footprint` of the SMs
// (GPM's SM activity over the busy share, alone), so N copies busy `duty` of their time need
// N x duty x footprint of the GPU; past 1 they take turns at the SMs: max(1, N x duty x footprint).
#include "harness/model/wing.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "harness/simulate/gpu_models.hpp"

namespace bench_mps::harness {

/// The scheduler as the X-ray saw it (medians over its N).
struct SchedulerFacts {
  double slice_ms = 0;      ///< xray_slice_ms: a time slice of a context that always has work
  double switch_ms = 0;     ///< xray_switch_ms: the switch between two slices
  double turn_cost_ms = 0;  ///< xray_turn_switch_ms: a turn's cost beyond its work, for short bursts
  /// The X-ray's median before turn_cost_ms and switch_ms were held at 0 (said beside them where below 0); NaN where
  /// not read from an X-ray (a stored scheduler).
  double turn_cost_measured_ms = std::numeric_limits<double>::quiet_NaN();
  double switch_measured_ms = std::numeric_limits<double>::quiet_NaN();
  /// xray_hold_us: how long a context's queue may stay empty (launches still to come, no host wait) and it
  /// keeps the GPU while another context has work; NaN where the X-ray did not run its gaps probe.
  double hold_us = std::numeric_limits<double>::quiet_NaN();
  bool hold_bound = false;  ///< no sampled idle lost the GPU: hold_us is a lower bound
  /// MPS contention below saturation: not the X-ray's, the MPS calibration's where predict was given one
  /// (harness/predict/mps_calibration.hpp); empty, the SMs and memory shared out in proportion alone.
  MpsModel mps{};
  bool usable() const { return slice_ms > 0 && turn_cost_ms >= 0 && switch_ms >= 0; }
};

/// A workload alone (time-sliced, N=1): its regime.
struct RegimePoint {
  double step_ms = 0;    ///< one synchronising step: burst / duty
  double burst_ms = 0;   ///< the events' span of a step's device work
  double kernel_ms = 0;  ///< the step's kernels' time (<= burst_ms): see kernel_time_ms()
  double footprint = 0;  ///< share of the SMs its kernels fill while they run; NaN: unknown
  double duty() const { return burst_ms / step_ms; }
};

/// The point of a workload measured alone: `burst_ms` and `duty` (gpu_busy_share) from the events,
/// `nvml_busy` (NVML's utilisation: a kernel ran) and `gpm_sm_util` (GPM's SM activity) where read
/// (NaN otherwise). kernel_ms = min(burst, NVML busy x step); footprint = GPM SM activity / duty.
RegimePoint regime_point(double burst_ms, double duty, double nvml_busy, double gpm_sm_util);

struct Prediction {
  double loss = 0;     ///< per-step time at N over alone (the seeds' basis); NaN if it cannot say
  double upper = NAN;  ///< time-sliced bursts longer than a slice: the convoy's loss, (host + N x D) / step
  std::string why;     ///< "alone", "host-bound", "turns" (time-sliced); "side by side", "SMs full" (MPS)
};

Prediction predict_timesliced(const RegimePoint& p, int n, const SchedulerFacts& s);
Prediction predict_mps(const RegimePoint& p, int n);

/// Time-sliced, a program whose steps are known two ways: a turn per host wait (`waits`: a copy waiting for
/// the GPU keeps launching, so its kernels up to the next wait share one turn) to a turn per idle-gap burst
/// (`gaps`, where known: a copy that finds the GPU idle runs each burst as it comes). The bracket from the
/// lower loss to the highest loss or convoy's upper end (`upper` NaN where they agree); without `gaps`,
/// predict_timesliced(waits).
Prediction predict_timesliced_between(const RegimePoint& waits, const std::optional<RegimePoint>& gaps, int n,
                                      const SchedulerFacts& s);

/// What a step waits beside N-1 contexts that always have work (the X-ray's xray_wait): their slices
/// and the switches, (N-1) x (slice + switch).
double predict_wait_ms(int n, const SchedulerFacts& s);

}  // namespace bench_mps::harness
