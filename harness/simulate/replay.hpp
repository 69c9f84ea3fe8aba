#pragma once
// The replay: N copies of one trace through an arbiter of the GPU (time-sliced or MPS), event by event.
// Every copy starts its trace at its own offset (copies that start together drift apart within a step;
// docs/PREDICT.md), and the result is each copy's step boundaries and end, in ns from the first start.
#include "harness/simulate/wing.hpp"

#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "harness/simulate/copy_trace.hpp"
#include "harness/simulate/gpu_models.hpp"

namespace bench_mps::harness {

/// What the arbiter sees of a copy at an event.
struct CopyView {
  bool runnable = false;      ///< its next item has been launched and is not done
  bool host_waiting = false;  ///< its host has reached its step's wait (or its exit)
  double sm = 0;              ///< its next item's share of the SMs
  double mem = 0;             ///< its memory bandwidth demand
};

/// Decides which copies' next items run and how fast, at each event.
class Arbiter {
 public:
  virtual ~Arbiter() = default;
  /// At `now`: sets rates[c] (speed of copy c's next item: 0 not running, 1 as alone) and returns the time
  /// of its own next decision (infinity: none until something else happens).
  virtual double decide(double now, const std::vector<CopyView>& copies, std::vector<double>& rates) = 0;
};

std::unique_ptr<Arbiter> make_timeslice_arbiter(const TimeSliceModel& m, int copies);
std::unique_ptr<Arbiter> make_mps_arbiter(const MpsModel& m);

struct CopyRun {
  std::vector<double> step_start_ns;  ///< when each step began (the first: the copy's offset)
  std::vector<double> step_due_ns;    ///< open loop: when each step's work was due (NaN: a closed-loop step)
  double end_ns = 0;                  ///< its last step ended (its exit)
};

struct Replay {
  std::vector<CopyRun> copies;
  std::size_t events = 0;
};

/// Replays `n` copies of `trace`, copy c starting at offsets_ns[c] (0 where the vector is shorter).
Replay replay(const CopyTrace& trace, int n, Arbiter& arbiter, const std::vector<double>& offsets_ns = {});
/// Replays one copy of each trace (different programs side by side), copy c starting at offsets_ns[c].
Replay replay(const std::vector<const CopyTrace*>& traces, Arbiter& arbiter,
              const std::vector<double>& offsets_ns = {});

/// Step ends a copy needs inside the window where every copy is in its steady part for its unit to come from
/// that window (else from its own steady part): the simulator's rule and the measurement's
/// (harness/predict/measured_units) alike.
inline constexpr std::size_t kMinCommonStepEnds = 3;

/// Per-unit time at N, as the measurement has it (harness/predict/measured_units.hpp): each copy's mean step
/// between its step ends inside the window where every copy is in its steady part (at least 3 of them), else
/// over its own steady part; averaged over the copies (ns); NaN without steady steps.
double steady_step_ns(const CopyTrace& trace, const Replay& r);
/// The same where each copy ran its own trace (traces[c]: the same steps, its steady ones in its own order).
double steady_step_ns(const std::vector<const CopyTrace*>& traces, const Replay& r);
/// A step's response at N: from its first item's launch (an open-loop step's: its due time) to its wait's return,
/// each copy's mean over its own steady steps, averaged over the copies (ns): a paced program's latency (its
/// metric covers every request).
double steady_response_ns(const CopyTrace& trace, const Replay& r);
double steady_response_ns(const std::vector<const CopyTrace*>& traces, const Replay& r);
/// Each copy's whole run (its end less its start), averaged (ns).
double mean_run_ns(const Replay& r, const std::vector<double>& offsets_ns);

}  // namespace bench_mps::harness
