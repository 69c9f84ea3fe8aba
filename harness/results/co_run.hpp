#pragma once
// When jobs measured "at once" really ran at once: the one threshold the ladder's units (predict,
// advise) and the interference scenario's side-by-side runs share, and the share of a job's timed span
// the others ran throughout.
#include "harness/results/wing.hpp"

#include <vector>

namespace bench_mps::harness {

/// The least share of every copy's steady part the common window must cover for a run to count as co-run; a
/// side-by-side run's foreground needs the same share of its timed span beside every background job.
inline constexpr double kMinCoRunCoverage = 0.8;

/// One task of a run: its worker (an in-process mode's instance) and when it ran, on the run's clock.
struct TaskSpan {
  int worker = 0;
  double start_ms = 0, end_ms = 0;
};

/// The share of worker `focus`'s timed span (its first task's start to its last task's end) during which every
/// other worker of `tasks` was inside its own timed span: 1 where they all ran throughout it, 0 where some other
/// worker's span missed it. NaN without a task of `focus` or of another worker; 1 for a span of no length that
/// lies inside every other span.
double share_beside_all(const std::vector<TaskSpan>& tasks, int focus);

/// share_beside_all with the lengths it compared: the focus's span and the shortest other worker's (ms; NaN where the
/// share is).
struct SpanShare {
  double share = 0, focus_ms = 0, shortest_other_ms = 0;
  double focus_start_ms = 0, focus_end_ms = 0;  ///< the focus's span itself
};
SpanShare span_share_beside_all(const std::vector<TaskSpan>& tasks, int focus);

/// The other workers' tasks per second, together, inside [start_ms, end_ms]: a task partly inside counts by the share
/// of its time inside (one of no length, inside, counts whole). NaN for a window of no length.
double others_tasks_per_s_within(const std::vector<TaskSpan>& tasks, int focus, double start_ms, double end_ms);

}  // namespace bench_mps::harness
