#pragma once
// What the profiler's JSON and the harness's reader (harness/results/gpu_profile.hpp) share: the
// format's version and a device's limits. Standard C++ only: the injected library includes it.
#include "harness/profiler/wing.hpp"

#include <cstdint>
#include <string>

namespace bench_mps::profiler {

constexpr int kProfileFormatVersion = 1;

/// Limits of one device, as a kernel's occupancy needs them (from CUPTI's device record).
struct DeviceLimits {
  std::uint32_t id = 0;
  std::string name;
  std::uint32_t sm_count = 0, warp_size = 32, max_warps_per_sm = 0, max_blocks_per_sm = 0;
  std::uint32_t regs_per_sm = 0, max_regs_per_block = 0, smem_per_sm = 0, smem_per_block = 0;
  std::uint32_t cc_major = 0, cc_minor = 0;
  std::uint64_t memory_bytes = 0;
};

}  // namespace bench_mps::profiler
