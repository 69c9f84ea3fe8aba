#pragma once
// What the profiler's JSON and the harness's reader (harness/results/gpu_profile.hpp) share: the
// format's version and a device's limits. Standard C++ only: the injected library includes it.
#include "harness/profiler/wing.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

namespace bench_mps::profiler {

/// 2: host waits; 3: each busy span's SM time (its kernels' time x their fill). The reader still reads 1 and 2.
constexpr int kProfileFormatVersion = 3;

/// The environment naming the NVTX range whose occurrences a profile records (--exec-unit-range; the profile's
/// "unit_range"). NVTX hands the program's calls to the profiler where kNvtxInjectionVar names its library.
inline constexpr const char* kUnitRangeVar = "BENCH_MPS_UNIT_RANGE";
inline constexpr const char* kNvtxInjectionVar = "NVTX_INJECTION64_PATH";
/// The longest NVTX range name --exec-unit-range takes (the library reads no more of kUnitRangeVar).
inline constexpr std::size_t kUnitRangeNameMax = 256;

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

/// Blocks of one kernel shape resident on one SM at once, from its threads, registers and shared memory
/// against the device's limits (docs/PROFILE.md "Fill"); at least 1.
inline int resident_blocks_per_sm(const KernelShape& k, const DeviceLimits& d) {
  const std::int64_t threads = k.block[0] * k.block[1] * k.block[2];
  const std::int64_t warp = std::max<std::int64_t>(1, d.warp_size);
  const std::int64_t warps = std::max<std::int64_t>(1, (threads + warp - 1) / warp);
  std::int64_t blocks = std::min<std::int64_t>(d.max_blocks_per_sm, d.max_warps_per_sm / warps);
  if (k.registers > 0) {  // registers are allocated per warp, in units of 256
    const std::int64_t per_warp = (static_cast<std::int64_t>(k.registers) * warp + 255) / 256 * 256;
    blocks = std::min<std::int64_t>(blocks, d.regs_per_sm / per_warp / warps);
  }
  // Ampere and newer reserve 1 KiB of shared memory per resident block.
  const std::int64_t smem = k.static_smem + k.dynamic_smem + (d.cc_major >= 8 ? 1024 : 0);
  if (smem > 0) blocks = std::min<std::int64_t>(blocks, d.smem_per_sm / smem);
  return static_cast<int>(std::max<std::int64_t>(1, blocks));
}

/// A launch's share of the device while it runs: min(1, blocks / (SMs x resident blocks per SM)).
inline double kernel_fill(const KernelShape& k, const DeviceLimits& d) {
  const double blocks = static_cast<double>(k.grid[0] * k.grid[1] * k.grid[2]);
  const double slots = static_cast<double>(std::max<std::uint32_t>(1, d.sm_count)) * resident_blocks_per_sm(k, d);
  return std::min(1.0, blocks / slots);
}

}  // namespace bench_mps::profiler
