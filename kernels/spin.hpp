#pragma once
// `spin`: a clock-calibrated busy kernel (the model is cuda-samples' simpleHyperQ). Each launch keeps
// `blocks` x `threads` threads busy for `launch_us` microseconds, counted in SM clock cycles from the
// device's peak clock; a task is `launches` launches back to back on one stream, then a sync.
//
// Expected bounds for N processes sharing a GPU with B blocks each on an S-SM GPU: alone a task takes
// launches x launch_us. Time-sliced, the processes take turns, so each task takes about N times as
// long. Under MPS the kernels of different processes run side by side as long as N x B <= S, so the
// task time stays near the alone time.
#include <memory>

#include "kernels/workload.hpp"

namespace bench_mps::kernels {

struct SpinParams {
  int blocks = 4;          ///< thread blocks per launch
  int threads = 256;       ///< threads per block
  double launch_us = 100;  ///< busy time of one launch, microseconds
  int launches = 100;      ///< launches per task
};

/// Peak SM clock of the current device in kHz (what the spin kernel is calibrated from).
int device_clock_khz();

/// Cycles one launch spins for, given the SM clock.
long long spin_cycles(double launch_us, int clock_khz);

std::unique_ptr<Workload> make_spin_workload(const SpinParams& params);

}  // namespace bench_mps::kernels
