#pragma once
// Host waits from CUPTI callbacks on the synchronising API calls alone (the profiler's default;
// BENCH_MPS_PROFILE_WAITS=activity takes CUPTI_ACTIVITY_KIND_SYNCHRONIZATION instead): the runtime's and the
// driver's stream, event, context and device synchronize, each outermost call from its entry to its exit on
// CUPTI's clock. On the PyTorch client both found the same 2533 waits; the records cost its step about +7 %
// on an H100, the callbacks about +1 % (results/2026-11-26-profile, lease H). Part of the injection library
// only (it calls CUPTI).
#include "harness/profiler/wing.hpp"

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace bench_mps::profiler {

/// Waits staged before `on_full` is called: the staging stays bounded even where no activity buffer
/// completes for a long time (a program that synchronises often and launches little).
inline constexpr std::size_t kStagedWaits = 1 << 16;

/// Subscribes and enables the callbacks. `on_full` (called on the synchronising thread, no lock of
/// this file held) should take_waits() into the recorder. On failure returns the result and names the
/// call in `failed`; then nothing is recorded.
CUptiResult start_wait_callbacks(const char*& failed, void (*on_full)());

/// The waits recorded since the last call, {start, end} in ns on CUPTI's clock.
std::vector<std::pair<std::uint64_t, std::uint64_t>> take_waits();

/// Stops recording (at exit, or where the profiler detaches); later calls record nothing.
void stop_wait_callbacks();

}  // namespace bench_mps::profiler
