#include "kernels/work_kernel.cuh"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernels/cuda_check.hpp"
#include "kernels/device_buffer.cuh"
#include "kernels/globaltimer.cuh"

namespace bench_mps::kernels {
namespace {

/// The chain: x stays in [0, 1], so the store below never happens, but the compiler cannot know.
__device__ __forceinline__ float work_chain(long long iterations) {
  float x = static_cast<float>(threadIdx.x) * 1e-4f;
  for (long long i = 0; i < iterations; ++i) x = fmaf(x, 0.9999f, 0.0001f);
  return x;
}

__global__ void work_kernel(long long iterations, float* sink) {
  const float x = work_chain(iterations);
  if (x < -1.0f) *sink = x;
}

__global__ void stamped_work_kernel(long long iterations, float* sink, std::uint64_t* stamps) {
  if (threadIdx.x == 0) stamps[0] = globaltimer_ns();
  const float x = work_chain(iterations);
  if (x < -1.0f) *sink = x;
  __syncthreads();
  if (threadIdx.x == 0) {
    stamps[1] = globaltimer_ns();
    __threadfence_system();
  }
}

__global__ void work_calibration_kernel(long long iterations, float* sink, long long* cycles) {
  const long long t0 = clock64();
  const float x = work_chain(iterations);
  const long long t1 = clock64();
  if (x < -1.0f) *sink = x;
  if (threadIdx.x == 0) *cycles = t1 - t0;
}

}  // namespace

double work_cycles_per_iteration(int threads, cudaStream_t stream) {
  constexpr long long kIterations = 20000;  // ~50 us: far shorter than a time slice
  DeviceBuffer<long long> cycles(1);
  long long best = std::numeric_limits<long long>::max();
  for (int k = 0; k < 5; ++k) {
    work_calibration_kernel<<<1, threads, 0, stream>>>(kIterations, nullptr, cycles.get());
    BENCH_CUDA_CHECK_LAUNCH(work_calibration_kernel);
    long long c = 0;
    BENCH_CUDA_CHECK(cudaMemcpyAsync(&c, cycles.get(), sizeof c, cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (c > 0) best = std::min(best, c);
  }
  if (best == std::numeric_limits<long long>::max()) throw cuda_error("work calibration read no SM cycles");
  return static_cast<double>(best) / static_cast<double>(kIterations);
}

long long work_iterations(double us, int clock_khz, double cycles_per_iteration) {
  if (!(cycles_per_iteration > 0)) throw std::invalid_argument("work: cycles per iteration must be positive");
  return std::max(1LL, std::llround(us * static_cast<double>(clock_khz) / 1000.0 / cycles_per_iteration));
}

void launch_work(long long iterations, int blocks, int threads, cudaStream_t stream) {
  work_kernel<<<blocks, threads, 0, stream>>>(iterations, nullptr);
  BENCH_CUDA_CHECK_LAUNCH(work_kernel);
}

void launch_stamped_work(long long iterations, int threads, std::uint64_t* stamps, cudaStream_t stream) {
  stamped_work_kernel<<<1, threads, 0, stream>>>(iterations, nullptr, stamps);
  BENCH_CUDA_CHECK_LAUNCH(stamped_work_kernel);
}

}  // namespace bench_mps::kernels
