#pragma once
// One copy of a program as the simulator replays it: its timeline cut at its host waits into steps.
// A step starts when the host wait before it returns. Its host launches device work (items) at set
// times after that start, reaches the next wait after `host_ns`, and the wait returns `release_ns`
// after both the host has reached it and every item of the step is done. A program's last step ends
// in its exit instead of a wait. Items run in order on the copy's one queue: an item starts no earlier
// than its launch and the end of the item before it (the trace's streams, merged).
//
// An item's launch is taken as its start alone (the CUPTI trace holds when kernels ran, not when they
// were launched). Replayed alone that gives the trace back exactly; shared, an item never becomes
// ready later than its real launch could have made it, and no earlier than the GPU could have run it
// for this copy, so a copy that waits for the GPU finds its launched work queued (docs/PREDICT.md).
#include "harness/simulate/wing.hpp"

#include <cstddef>
#include <limits>
#include <vector>

namespace bench_mps::harness {

/// A piece of device work: kernels (and copies) the profile merged into one busy span.
struct TraceItem {
  double ready_ns = 0;  ///< after its step's start: its host had launched it by then
  double work_ns = 0;   ///< what it takes alone (the span's busy time)
  double sm = 1;        ///< the share of the SMs it asks for while it runs (SM time over busy time; MPS)
};

struct TraceStep {
  std::vector<TraceItem> items;  ///< in order of their start alone
  double host_ns = 0;            ///< after the step's start the host reaches its wait (or, the last step, exits)
  double release_ns = 0;         ///< the wait returns this long after its work is done and the host is there
  /// Open loop (harness/simulate/open_loop.hpp): when its first item is due on the clock, ns after the copy's
  /// pacing began (NaN: a step of a closed loop, begun when the wait before it returns).
  double due_ns = std::numeric_limits<double>::quiet_NaN();
  /// Whether a unit over the steady part counts it: false for a step of another kind between the steps of the NVTX
  /// range a unit follows (harness/results/step_phase.hpp), replayed (it shares the GPU) but no part of the unit.
  bool counted = true;
  /// Its length alone: until its wait returns (its items back to back from their launches, or the host at its
  /// wait, whichever is later, then the release).
  double alone_ns() const;
};

struct CopyTrace {
  std::vector<TraceStep> steps;
  /// Steps [steady_from, steady_to) are the steady part: the unit a step of it is what per-unit predictions
  /// and measurements are about.
  std::size_t steady_from = 0, steady_to = 0;
  /// A host-only step standing for spans the profile did not keep (it kept a head and a tail): the index
  /// of that step, or steps.size() where none; its host_ns is their time alone, which the predictor
  /// scales by the steady part's slowdown.
  std::size_t dropped_step = 0;
  double mem_demand = 0;  ///< MPS: the share of the GPU's memory bandwidth the copy uses while busy
  /// Open loop (harness/simulate/open_loop.hpp): its paced steps start their work at their due times.
  bool open_loop = false;
  double steady_step_ns() const;  ///< alone: the mean step of the steady part (from the trace itself)
};

}  // namespace bench_mps::harness
