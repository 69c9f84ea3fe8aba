// See sm_probe.hpp.
#include "kernels/sm_probe.hpp"

#include <bitset>
#include <cstdint>
#include <vector>

#include "kernels/cuda_check.hpp"
#include "kernels/device_buffer.cuh"
#include "kernels/spin.hpp"

namespace bench_mps::kernels {
namespace {

constexpr int kMaxSms = 1024;

__device__ unsigned int current_smid() {
  unsigned int id = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

/// Each block spins `cycles` (so that blocks spread over every SM they may use), then marks its SM.
__global__ void sm_probe_kernel(unsigned int* bitmap, long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (threadIdx.x == 0) {
    const unsigned int id = current_smid() % kMaxSms;
    atomicOr(&bitmap[id / 32], 1u << (id % 32));
  }
}

}  // namespace

int count_sms_used(void* stream_handle) {
  auto stream = static_cast<cudaStream_t>(stream_handle);
  int device = 0, sms = 0;
  BENCH_CUDA_CHECK(cudaGetDevice(&device));
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  DeviceBuffer<unsigned int> bitmap(kMaxSms / 32);
  BENCH_CUDA_CHECK(cudaMemsetAsync(bitmap.get(), 0, bitmap.bytes(), stream));
  sm_probe_kernel<<<8 * sms, 64, 0, stream>>>(bitmap.get(), spin_cycles(20.0, device_clock_khz()));
  BENCH_CUDA_CHECK_LAUNCH(sm_probe_kernel);
  std::vector<unsigned int> host(bitmap.size());
  BENCH_CUDA_CHECK(cudaMemcpyAsync(host.data(), bitmap.get(), bitmap.bytes(), cudaMemcpyDeviceToHost, stream));
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  int count = 0;
  for (unsigned int word : host) count += static_cast<int>(std::bitset<32>(word).count());
  return count;
}

}  // namespace bench_mps::kernels
