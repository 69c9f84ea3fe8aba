#pragma once
// The burst axis of a workload's regime, measured on the GPU. A synchronising step is the device
// work between two host waits (an mlp training step up to loss.item(), a spin task up to its sync);
// its burst is the GPU time from its first device work to its last: a timing event before the one
// and after the other, read once the host has waited for the step. Time-slicing pays a turn of the
// other contexts per wait, so the burst sets how much of a step that turn is (DESIGN: Regimes).
//
// Facts it adds (over the timed phase, from reset()):
//   burst_ms        mean GPU time of a timed step (events)
//   bursts_timed    how many steps that mean is over (every `stride`-th step is timed)
//   sync_steps      steps run
//   gpu_busy_share  burst_ms x sync_steps / the phase's wall time: the duty cycle as the GPU saw it
// Alone these are the workload's regime; beside other contexts a burst also holds the slices the
// others ran between its kernels (time-sliced), so it grows.
#include <cuda_runtime.h>

#include <chrono>

#include "kernels/cuda_handles.cuh"
#include "kernels/workload.hpp"

namespace bench_mps::kernels {

class StepTimer {
 public:
  /// Times every `stride`-th step (1: every step). A stride keeps the events' own cost (a few
  /// microseconds of host time) far below a step of ~0.1 ms.
  explicit StepTimer(int stride = 1) : stride_(stride < 1 ? 1 : stride) {}

  /// Creates the events; after the device context exists.
  void create() {
    start_ = make_event();
    end_ = make_event();
    reset();
  }
  /// The start of a timed phase (Workload::begin_timed).
  void reset() {
    steps_ = 0;
    timed_ = 0;
    sum_ms_ = 0;
    phase_start_ = Clock::now();
    last_end_ = phase_start_;
    pending_ = false;
  }
  /// Before the step's first device work on `stream`.
  void begin(cudaStream_t stream) {
    pending_ = steps_ % stride_ == 0;
    ++steps_;
    if (pending_) BENCH_CUDA_CHECK(cudaEventRecord(start_.get(), stream));
  }
  /// After the step's last device work on `stream`.
  void end(cudaStream_t stream) {
    if (pending_) BENCH_CUDA_CHECK(cudaEventRecord(end_.get(), stream));
  }
  /// After the host has waited for the step (its end event has completed).
  void finished() {
    last_end_ = Clock::now();
    if (!pending_) return;
    pending_ = false;
    float ms = 0;
    BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), end_.get()));
    sum_ms_ += ms;
    ++timed_;
  }
  double burst_ms() const { return timed_ ? sum_ms_ / static_cast<double>(timed_) : 0.0; }
  long steps() const { return steps_; }

  void add_facts(WorkloadFacts& facts) const {
    if (timed_ == 0) return;
    const double wall_ms = std::chrono::duration<double, std::milli>(last_end_ - phase_start_).count();
    facts.emplace_back("burst_ms", burst_ms());
    facts.emplace_back("bursts_timed", static_cast<double>(timed_));
    facts.emplace_back("sync_steps", static_cast<double>(steps_));
    if (wall_ms > 0) facts.emplace_back("gpu_busy_share", burst_ms() * static_cast<double>(steps_) / wall_ms);
  }

 private:
  using Clock = std::chrono::steady_clock;
  int stride_;
  CudaEvent start_, end_;
  long steps_ = 0, timed_ = 0;
  double sum_ms_ = 0;
  bool pending_ = false;
  Clock::time_point phase_start_, last_end_;
};

}  // namespace bench_mps::kernels
