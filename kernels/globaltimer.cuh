#pragma once
// The GPU's global nanosecond clock (%globaltimer): one clock for every context on the device, so
// intervals logged by different processes line up; the X-ray's timeline is drawn on it.
#include <cstdint>

namespace bench_mps::kernels {

__device__ __forceinline__ std::uint64_t globaltimer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace bench_mps::kernels
