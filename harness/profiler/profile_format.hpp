#pragma once
// What the profiler's JSON and the harness's reader (harness/results/gpu_profile.hpp) share: the
// format's version and a device's limits. Standard C++ only: the injected library includes it.
#include "harness/profiler/wing.hpp"

#include <cstdint>
#include <string>
#include <tuple>

namespace bench_mps::profiler {

constexpr int kProfileFormatVersion = 2;  ///< 2: host waits; the reader still reads 1

/// Limits of one device, as a kernel's occupancy needs them (from CUPTI's device record).
struct DeviceLimits {
  std::uint32_t id = 0;
  std::string name;
  std::uint32_t sm_count = 0, warp_size = 32, max_warps_per_sm = 0, max_blocks_per_sm = 0;
  std::uint32_t regs_per_sm = 0, max_regs_per_block = 0, smem_per_sm = 0, smem_per_block = 0;
  std::uint32_t cc_major = 0, cc_minor = 0;
  std::uint64_t memory_bytes = 0;
};

/// What makes two launches the same kernel for the profile: its name and its launch's shape.
struct KernelShape {
  std::string name;  ///< the recorder gets it mangled, the profile holds it demangled
  std::uint32_t device = 0;
  std::int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::uint32_t registers = 0;  ///< per thread
  std::int64_t static_smem = 0, dynamic_smem = 0;
  bool operator<(const KernelShape& o) const {
    return std::tie(name, device, grid[0], grid[1], grid[2], block[0], block[1], block[2], registers, static_smem,
                    dynamic_smem) < std::tie(o.name, o.device, o.grid[0], o.grid[1], o.grid[2], o.block[0], o.block[1],
                                             o.block[2], o.registers, o.static_smem, o.dynamic_smem);
  }
};

}  // namespace bench_mps::profiler
