#pragma once
// `filler`: seed 002's GPU filler. It holds the GPU busy for a target share of the time with almost
// no memory (a busy kernel, no buffers), as the seed's filler held a GPU near 50% with ~110 MB, and
// can step aside when another job's work appears.
//
// How: a task is one cycle, one busy kernel of `kernel_us` (all SMs, `blocks` x `threads`) followed
// by an idle gap. The gap is chosen from what was measured, not assumed: after each kernel the filler
// adds the kernel's duration on the GPU (CUDA events) to the busy time of the timed phase and idles
// until busy / elapsed = target. Launch overheads, clock changes and other processes' slices so
// adjust the gap instead of shifting the load. NVML's utilisation (the share of time any kernel
// runs) then reads the target when the filler is alone.
//
// Yielding (`yield`, off by default): a kernel that took more than 1.5x the shortest one seen means
// another job shares the GPU (time-sliced, the filler waited for its slice; under MPS, their blocks
// took SMs). The filler then idles `yield_ms` before its next kernel, as the seed's monitor paused
// when it saw load that was not its own.
#include <memory>

#include "kernels/workload.hpp"

namespace bench_mps::kernels {

struct FillerParams {
  double target_pct = 60;   ///< share of the time the GPU is kept busy, 1..100
  double kernel_us = 1000;  ///< busy time of one kernel
  int blocks = 0;           ///< 0: one block per SM
  int threads = 256;
  bool yield = false;  ///< step aside when another job's work appears
  double yield_ms = 500;
};

std::unique_ptr<Workload> make_filler_workload(const FillerParams& params);

}  // namespace bench_mps::kernels
