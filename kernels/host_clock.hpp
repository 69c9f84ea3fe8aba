#pragma once
// The host's clock for the workloads' host side: CLOCK_MONOTONIC (std::chrono::steady_clock on Linux),
// the clock of the TASK lines, and a busy wait on it (a worker owns its core, so spinning keeps host
// work per step exact where a sleep would overshoot by tens of microseconds).
#include <chrono>
#include <cstdint>

namespace bench_mps::kernels {

inline std::int64_t host_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Spins for `us` microseconds (nothing for us <= 0).
inline void busy_wait_us(double us) {
  if (us <= 0) return;
  const std::int64_t until = host_now_ns() + static_cast<std::int64_t>(us * 1e3);
  while (host_now_ns() < until) {
  }
}

}  // namespace bench_mps::kernels
