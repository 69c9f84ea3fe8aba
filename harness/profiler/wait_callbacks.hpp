#pragma once
// Host waits from CUPTI callbacks on the synchronising API calls alone (the profiler's default;
// BENCH_MPS_PROFILE_WAITS=activity takes CUPTI_ACTIVITY_KIND_SYNCHRONIZATION instead): the runtime's and the
// driver's stream, event, context and device synchronize, each outermost call from its entry to its exit on
// CUPTI's clock. On the PyTorch client both found the same 2533 waits; the records cost its step about +7 %
// on an H100, the callbacks about +1 % (results/2026-11-26-profile, lease H). Part of the injection library
// only (it calls CUPTI).
//
// The same subscriber (CUPTI allows one) finds the start gate's point (start_gate.hpp): the exit of the K-th
// outermost host wait, or the entry of the first kernel or graph launch; there it calls the gate's hook once,
// on the program's own thread, which blocks until the gate opens. With the gate alone (no waits recorded) it
// then detaches CUPTI, so the rest of the program runs without it (or unsubscribes, or keeps on: AfterGate). Where
// the profile follows an NVTX range (nvtx_ranges.hpp), its callbacks come through the same subscriber.
#include "harness/profiler/wing.hpp"

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bench_mps::profiler {

/// Waits staged before `on_full` is called: the staging stays bounded even where no activity buffer
/// completes for a long time (a program that synchronises often and launches little).
inline constexpr std::size_t kStagedWaits = 1 << 16;

/// With the gate alone, what follows once the gate has opened (BENCH_MPS_GATE_CALLBACKS; the arms of
/// scripts/device_steps/gatecost.sh, which measures what each costs one copy).
enum class AfterGate : std::uint8_t {
  /// the default ("detach" or unset, since 2026-12-04): CUPTI leaves the process (cuptiFinalize, at the exit of
  /// the callback after the gate, on the program's thread, as CUPTI's documentation on detaching asks); where it
  /// fails, the callbacks are switched off and `say` is told why. Left subscribed or unsubscribed, CUPTI made each
  /// graph launch about 4-7 us slower on an H200; detached, none (results/2026-12-04-cupticost-graph)
  detach,
  unsubscribe,  ///< "unsubscribe": the callbacks are switched off (cuptiUnsubscribe, from a thread of its own)
  keep,         ///< "keep": they stay on (the library before 2026-12-02)
};

/// Where the callbacks call `hold` (null: no gate): after the exit of the `wait_k`-th outermost host wait
/// (wait_k >= 1), or at the entry of the first kernel or graph launch (wait_k 0).
struct GatePoint {
  void (*hold)() = nullptr;
  std::uint64_t wait_k = 0;
  AfterGate after = AfterGate::detach;
  void (*say)(const std::string& line) = nullptr;  ///< where a problem after the gate is said (stderr)
};

/// Subscribes and enables the callbacks: the synchronising calls' where `record_waits` or a gate counts
/// them, the launches' for a first-kernel gate. `on_full` (called on the synchronising thread, no lock of
/// this file held) should take_waits() into the recorder. On failure returns the result and names the call
/// in `failed`; then nothing is recorded and no copy is held.
CUptiResult start_wait_callbacks(const char*& failed, void (*on_full)(), bool record_waits, GatePoint gate);

/// Enables the NVTX callbacks of nvtx_ranges.hpp on the subscriber start_wait_callbacks made (after it succeeded):
/// each occurrence of the range followed is staged there, `on_full` called where that staging is full. Their
/// failure (the call named in `failed`) leaves the waits recorded.
CUptiResult start_nvtx_callbacks(const char*& failed);

/// The waits recorded since the last call, {start, end} in ns on CUPTI's clock.
std::vector<std::pair<std::uint64_t, std::uint64_t>> take_waits();

/// Stops recording (at exit, or where the profiler detaches); later calls record nothing, the gate stays
/// where it is (a gate not yet reached is never reached).
void stop_wait_callbacks();

}  // namespace bench_mps::profiler
