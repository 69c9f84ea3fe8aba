#pragma once
// Paced programs replayed open-loop (docs/PREDICT.md "Paced programs"): a server whose requests are due on
// the clock (request k at t0 + k / rate) sleeps until a request is due and, when it is late, runs it at once;
// its latency runs from the due time. Replayed closed-loop, every step would sleep as long as it did alone
// after the last one's end, so a copy slowed by the others never falls behind and no backlog builds up.
// Open-loop, each steady step keeps its due time from the run alone, counted from the copy's first paced
// step: a step launches its work at its due time or, when the step before it ended later, at once. (The host's
// own part before a request's first launch is taken as nothing: the profile does not tell it from the sleep.
// Its launches after the first keep their distances from it.)
#include "harness/simulate/wing.hpp"

#include "harness/simulate/copy_trace.hpp"

namespace bench_mps::harness {

/// Marks `trace`'s steady steps that launch work as paced: each step's due time the launch of its first item
/// in the trace alone, counted from the first such step's. False (and the trace unchanged) where no steady
/// step launches work.
bool make_open_loop(CopyTrace& trace);

}  // namespace bench_mps::harness
