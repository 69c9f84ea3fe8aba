#include "kernels/device_context.hpp"

#include "kernels/cuda_check.hpp"

namespace bench_mps::kernels {

DeviceContextInfo open_device_context() {
  DeviceContextInfo info;
  int count = 0;
  BENCH_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count == 0) throw cuda_error("no CUDA device visible");
  const int device = 0;
  BENCH_CUDA_CHECK(cudaSetDevice(device));
  BENCH_CUDA_CHECK(cudaFree(nullptr));  // creates the context (and, under MPS, connects to the server)
  cudaDeviceProp prop{};
  BENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  info.name = prop.name;
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&info.sm_count, cudaDevAttrMultiProcessorCount, device));
  int mps = 0;
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, device));
  info.mps_enabled = mps != 0;
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&info.clock_khz, cudaDevAttrClockRate, device));
  BENCH_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  BENCH_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  BENCH_CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

std::size_t device_free_bytes() {
  std::size_t free_bytes = 0, total = 0;
  BENCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

}  // namespace bench_mps::kernels
