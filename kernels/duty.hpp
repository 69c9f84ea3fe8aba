#pragma once
// `duty`: one point of the regime map (DESIGN.md, "Regimes"), a synthetic training-like step with two
// knobs. Each synchronising step spends `host_us` busy on the host (the worker owns its core), then
// runs a burst of fixed GPU work, `kernels` kernels of `blocks` x `threads` threads that together take
// `burst_us` alone, and waits for it. Alone, its duty cycle is burst / (burst + host); the regimes
// scenario sets host_us from a target duty. A task is `steps_per_task` steps.
//
// The burst is fixed work (kernels/work_kernel.cuh), not a clock deadline, so a kernel preempted by a
// time slice still has its work to do. Its length comes from the SM cycles one link of the chain takes
// (measured in setup) at the device's peak clock; the burst actually run is measured on the GPU
// (burst_ms, gpu_busy_share: kernels/step_timer.cuh).
//
// Expected: alone a step takes about burst + host. Time-sliced, N such processes wait for each
// other's bursts and for the switches between them (about N x (burst + switch) per step once the GPU
// is the bottleneck); under MPS their small kernels run side by side (4 blocks each by default).
#include <memory>
#include <stdexcept>

#include "kernels/workload.hpp"

namespace bench_mps::kernels {

struct DutyParams {
  double burst_us = 1000;  ///< GPU work per step, microseconds alone at the peak clock
  double host_us = 1000;   ///< host work per step (busy), microseconds
  int kernels = 1;         ///< kernels the burst is split into, launched back to back
  int blocks = 4;          ///< thread blocks per kernel (its footprint)
  int threads = 128;       ///< threads per block
  int steps_per_task = 1;  ///< synchronising steps in one timed task
};

/// Host work per step for a target duty cycle (percent, in (0, 100]): burst x (100 - duty) / duty.
/// (inline: the harness, which links no CUDA, plans the regime grid with it.)
inline double duty_host_us(double burst_us, double duty_pct) {
  if (!(duty_pct > 0 && duty_pct <= 100))
    throw std::invalid_argument("duty: the duty cycle must be in (0, 100] percent");
  return burst_us * (100.0 - duty_pct) / duty_pct;
}

std::unique_ptr<Workload> make_duty_workload(const DutyParams& params);

}  // namespace bench_mps::kernels
