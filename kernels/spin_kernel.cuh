#pragma once
// The busy kernel shared by the spin and fault workloads: every thread of `blocks` x `threads` spins
// until `cycles` SM clock cycles have passed since it started.
#include <cuda_runtime.h>

namespace bench_mps::kernels {

/// Launches the busy kernel on `stream`; throws cuda_error if the launch fails.
void launch_spin(long long cycles, int blocks, int threads, cudaStream_t stream);

}  // namespace bench_mps::kernels
