#include "kernels/spin_kernel.cuh"

#include "kernels/cuda_check.hpp"

namespace bench_mps::kernels {
namespace {

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

void launch_spin(long long cycles, int blocks, int threads, cudaStream_t stream) {
  spin_kernel<<<blocks, threads, 0, stream>>>(cycles);
  BENCH_CUDA_CHECK_LAUNCH(spin_kernel);
}

}  // namespace bench_mps::kernels
