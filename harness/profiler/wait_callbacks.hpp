#pragma once
// Host waits from CUPTI callbacks on the synchronising API calls alone (BENCH_MPS_PROFILE_WAITS=callbacks):
// the runtime's and the driver's stream, event, context and device synchronize, each outermost call from
// its entry to its exit on CUPTI's clock. An alternative to CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, which
// cost a PyTorch step about 4 % on an H100 (results/2026-11-26-profile, lease F). Part of the injection
// library only (it calls CUPTI).
#include "harness/profiler/wing.hpp"

#include <cupti.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace bench_mps::profiler {

/// Subscribes and enables the callbacks. On failure returns the result and names the call in `failed`;
/// then nothing is recorded.
CUptiResult start_wait_callbacks(const char*& failed);

/// The waits recorded since the last call, {start, end} in ns on CUPTI's clock.
std::vector<std::pair<std::uint64_t, std::uint64_t>> take_waits();

/// Stops recording (at exit, or where the profiler detaches); later calls record nothing.
void stop_wait_callbacks();

}  // namespace bench_mps::profiler
