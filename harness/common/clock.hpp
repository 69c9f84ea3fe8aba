#pragma once
// One clock for every timestamp the harness and its workers exchange: CLOCK_MONOTONIC is shared by
// all processes of a machine, so a worker's task times and the harness's GPU samples line up.
#include "harness/common/wing.hpp"

#include <time.h>

#include <cstdint>

namespace bench_mps::harness {

/// CLOCK_MONOTONIC now, in nanoseconds.
inline std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

}  // namespace bench_mps::harness
