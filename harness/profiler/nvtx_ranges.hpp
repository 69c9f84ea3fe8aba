#pragma once
// The occurrences of one NVTX range, by its name (--exec-unit-range NAME, kUnitRangeVar): the program's own
// marking of its step, which the unit then follows (docs/PREDICT.md "One kind of step"). NVTX hands a
// program's calls to a tool only where NVTX_INJECTION64_PATH names a library exporting
// InitializeInjectionNvtx2: the harness names the profiler library, whose export hands over to CUPTI's
// (cupti_injection.cpp), and CUPTI's NVTX callbacks (CUPTI_CB_DOMAIN_NVTX, on the one subscriber of
// wait_callbacks.cpp) come here: nvtxRangePush/Pop and nvtxRangeStart/End, plain and per domain, by an ASCII,
// a wide or a registered name. Each occurrence of the name is kept from its push (start) to its pop (end), on
// CUPTI's clock. Part of the injection library only (it calls CUPTI).
#include "harness/profiler/wing.hpp"

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bench_mps::profiler {

/// Occurrences staged before the callbacks ask for them to be taken (take_ranges): the staging stays bounded.
inline constexpr std::size_t kStagedRanges = 1 << 14;

/// The range followed; set once, before the callbacks are enabled (an empty name: none).
void follow_nvtx_range(const std::string& name);

/// The NVTX callbacks the subscriber enables to see the ranges open and close.
const std::vector<CUpti_CallbackId>& nvtx_range_sites();

/// One NVTX callback (CUpti_NvtxData); true where the staging is full and should be taken now.
bool on_nvtx_call(CUpti_CallbackId id, const void* data);

/// The occurrences closed since the last call, {start, end} in ns on CUPTI's clock.
std::vector<std::pair<std::uint64_t, std::uint64_t>> take_ranges();

}  // namespace bench_mps::profiler
