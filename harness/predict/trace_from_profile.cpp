// A profile cut into the simulator's steps: see trace_from_profile.hpp.
#include "harness/predict/trace_from_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/results/profile_window.hpp"
#include "harness/results/step_phase.hpp"

namespace bench_mps::harness {
namespace {

/// Where the waits were cut: a boundary's host arrival (the wait's start) and its return (its end).
using Boundary = HostWait;

/// The boundaries of a profile without host waits: the end of every burst (spans joined across idle gaps
/// shorter than `gap_ns`), the host taken to reach the wait as the burst's work ends.
std::vector<Boundary> burst_ends(const GpuProfile& p, std::int64_t gap_ns) {
  std::vector<Boundary> out;
  for (std::size_t i = 0; i + 1 < p.spans.size(); ++i)
    if (p.spans[i + 1].start_ns - p.spans[i].end_ns >= gap_ns) out.push_back({p.spans[i].end_ns, p.spans[i].end_ns});
  return out;
}

/// Sorts boundaries by their end and keeps one per end.
void sort_by_end(std::vector<Boundary>& cuts) {
  auto by_end = [](const Boundary& a, const Boundary& b) { return a.end_ns < b.end_ns; };
  std::sort(cuts.begin(), cuts.end(), by_end);
  auto same_end = [](const Boundary& a, const Boundary& b) { return a.end_ns == b.end_ns; };
  cuts.erase(std::unique(cuts.begin(), cuts.end(), same_end), cuts.end());
}

/// Where the steps are cut, by their end, none at or before 0: at the host waits that count, else at the ends
/// of bursts; `cut` says which, in words, and `at_waits` whether at host waits.
std::vector<Boundary> step_boundaries(const GpuProfile& p, const ProfileSummary& s, std::string& cut, bool& at_waits) {
  std::vector<Boundary> cuts;
  at_waits = s.waits_recorded && !p.waits.empty();
  if (at_waits) {
    cut = "host waits";
    const bool waits_cut = p.waits.size() < p.wait_count;
    cuts = counted_waits(p, 0, waits_cut ? p.waits_kept_head : p.waits.size());
    if (waits_cut) {
      const std::vector<Boundary> tail = counted_waits(p, p.waits_kept_head, p.waits.size());
      cuts.insert(cuts.end(), tail.begin(), tail.end());
    }
  } else {
    const std::int64_t gap_ns = std::llround(s.gap_threshold_us * 1e3);
    cut = "idle gaps of at least " + fmt_num(s.gap_threshold_us) + " us (no host waits recorded)";
    cuts = burst_ends(p, gap_ns);
  }
  sort_by_end(cuts);
  cuts.erase(std::remove_if(cuts.begin(), cuts.end(), [](const Boundary& b) { return b.end_ns <= 0; }), cuts.end());
  return cuts;
}

/// The host-only step standing for the spans a profile did not keep.
struct Hole {
  std::int64_t from = -1, to = 0;  ///< its start and end (from -1: the profile kept every span, no hole)
  bool cut_after = false;  ///< the hole ends at a wait (else at the tail's first span: the step after is partial)
};

/// The spans the profile did not keep, between the head's last span (ending at `head_end`) and the tail's first
/// (starting at `tail_start`): one host-only step from the first cut at or after the head's last span (else
/// that span's end) to the last cut at or before the tail's first span (else its start). The cuts inside it
/// go, its edges become cuts.
Hole cut_hole(std::vector<Boundary>& cuts, std::int64_t head_end, std::int64_t tail_start) {
  Hole hole;
  std::int64_t from = head_end, to = tail_start;
  for (const Boundary& b : cuts)
    if (b.end_ns >= head_end) {
      if (b.end_ns <= tail_start) from = b.end_ns;
      break;
    }
  for (auto it = cuts.rbegin(); it != cuts.rend(); ++it)
    if (it->end_ns <= tail_start) {
      if (it->end_ns > from) {
        to = it->end_ns;
        hole.cut_after = true;
      }  // else no cut inside: the hole runs to the tail's first span
      break;
    }
  std::vector<Boundary> kept;
  for (const Boundary& b : cuts)
    if (b.end_ns < from || b.end_ns > to) kept.push_back(b);
  kept.push_back({from, from});
  kept.push_back({to, to});
  for (Boundary& b : kept)  // the cuts at the hole's edges keep their waits where they had them
    for (const Boundary& c : cuts)
      if (c.end_ns == b.end_ns) b = c;
  sort_by_end(kept);
  cuts = std::move(kept);
  hole.from = from;
  hole.to = to;
  return hole;
}

/// Cuts the profile's spans into t's steps at `cuts`, the last step ending at `profile_end` (the host's exit),
/// each span an item of `fill` where it lacks its SM time; the step starting at `dropped_from` is the hole.
/// Returns each step's start alone.
std::vector<double> cut_steps(const GpuProfile& p, double fill, const std::vector<Boundary>& cuts,
                              std::int64_t dropped_from, std::int64_t profile_end, CopyTrace& t) {
  std::vector<double> starts;  // each step's start alone
  std::size_t span = 0;
  std::int64_t start = 0;  // the profiler's start: CUDA's initialisation
  auto add_step = [&](std::int64_t wait_start, std::int64_t wait_end, bool last) {
    TraceStep step;
    std::int64_t last_end = start;
    for (; span < p.spans.size() && (last || p.spans[span].start_ns < wait_end); ++span) {
      const BusySpan& b = p.spans[span];
      if (b.busy_ns <= 0) continue;
      TraceItem item;
      item.ready_ns = static_cast<double>(std::max<std::int64_t>(0, b.start_ns - start));
      item.work_ns = static_cast<double>(b.busy_ns);
      item.sm = std::isnan(b.sm_ns) ? fill : b.sm_ns / static_cast<double>(b.busy_ns);
      last_end = std::max(last_end, b.end_ns);
      step.items.push_back(item);
    }
    step.host_ns = static_cast<double>(std::max<std::int64_t>(0, wait_start - start));
    step.release_ns = static_cast<double>(std::max<std::int64_t>(0, wait_end - std::max(wait_start, last_end)));
    if (start == dropped_from) t.dropped_step = t.steps.size();
    starts.push_back(static_cast<double>(start));
    t.steps.push_back(std::move(step));
    start = wait_end;
  };
  t.dropped_step = static_cast<std::size_t>(-1);
  for (const Boundary& b : cuts)
    if (b.end_ns > start && b.end_ns < profile_end) add_step(b.start_ns, b.end_ns, false);
  add_step(profile_end, profile_end, true);  // the last: the host's exit
  if (t.dropped_step == static_cast<std::size_t>(-1)) t.dropped_step = t.steps.size();
  return starts;
}

/// Sets t's steady part: the steps that begin inside the summary's (the kept spans less their first 10%, or
/// the tail), other than the hole, the `partial` step after it and the last (which ends in the program's exit,
/// not a wait); a run of one step, the whole of it.
void mark_steady(CopyTrace& t, const std::vector<double>& starts, const ProfileSummary& s, std::size_t partial) {
  const double from_ns = s.steady_from_s * 1e9, to_ns = s.steady_to_s * 1e9;
  t.steady_from = t.steps.size();
  t.steady_to = 0;
  for (std::size_t k = 0; k + 1 < t.steps.size(); ++k) {
    // a step that ends after the summary's steady part (past its last span: the wait for the profile's closing
    // span) is left out, as predict --measure leaves that wait's end out of a copy's (measured_units.cpp)
    if (k == t.dropped_step || k == partial || starts[k] + 1 < from_ns || starts[k] >= to_ns || starts[k + 1] > to_ns)
      continue;
    t.steady_from = std::min(t.steady_from, k);
    t.steady_to = k + 1;
  }
  if (t.steady_to <= t.steady_from) {  // a run of one step: the whole of it
    t.steady_from = 0;
    t.steady_to = t.steps.size();
  }
}

/// Narrows t's steady part to the steps of one kind (harness/results/step_phase.hpp: those of the NVTX range the
/// profile followed, else by their lengths), as `predict --measure` narrows a copy's: the ends of its steps are the
/// starts of the steps after them.
StepPhase keep_main_phase(CopyTrace& t, const std::vector<double>& starts, const FollowedRange& range,
                          const std::optional<PhaseFollow>& follow) {
  if (t.steady_to >= starts.size()) return main_phase({});  // a run of one step: nothing to part
  std::vector<std::int64_t> ends;
  for (std::size_t k = t.steady_from; k <= t.steady_to; ++k) ends.push_back(std::llround(starts[k]));
  const StepPhase phase = unit_phase(ends, range, follow);
  const std::size_t from = t.steady_from;
  t.steady_from = from + phase.first;
  t.steady_to = from + phase.last;
  for (std::size_t i = 0; i < phase.counted.size(); ++i)  // the steps of another kind between an NVTX range's
    t.steps[t.steady_from + i].counted = phase.counted[i];
  return phase;
}

}  // namespace

ProfileSummary gated_steady_part(const GpuProfile& p, ProfileSummary s, double release_mono_s) {
  if (!std::isfinite(release_mono_s)) return s;
  const ProfileClock clock = profile_clock(p);
  if (!clock.unavailable.empty()) return s;
  const auto release = static_cast<std::int64_t>(std::llround(release_mono_s * 1e9));
  if (release < clock.monotonic_ns(s.steady_to_s)) s.steady_from_s = clock.profile_s(release);
  return s;
}

ProgramTrace trace_from_profile(const GpuProfile& p, const ProfileSummary& s, double mem_demand,
                                const std::optional<PhaseFollow>& follow) {
  if (p.spans.empty()) throw UsageError(p.file + ": the profile holds no busy span (no GPU work to replay)");
  ProgramTrace out;
  out.profile_ns = static_cast<double>(std::max(p.end_ns, p.spans.back().end_ns));
  out.fill = std::isnan(s.fill) ? 1.0 : s.fill;
  out.sm_per_span = !std::isnan(p.spans.front().sm_ns);
  out.active_ns = static_cast<double>(p.last_ns - p.first_ns);
  const bool truncated = p.spans.size() < p.intervals;
  std::vector<Boundary> cuts = step_boundaries(p, s, out.cut, out.cut_at_waits);
  Hole hole;
  if (truncated) {  // the head's last span's end to the tail's first span's start
    hole = cut_hole(cuts, p.spans[p.kept_head - 1].end_ns, p.spans[p.kept_head].start_ns);
    out.dropped_ns = static_cast<double>(hole.to - hole.from);
  }
  CopyTrace& t = out.trace;
  t.mem_demand = std::clamp(mem_demand, 0.0, 1.0);
  const std::vector<double> starts =
      cut_steps(p, out.fill, cuts, hole.from, static_cast<std::int64_t>(out.profile_ns), t);
  mark_steady(t, starts, s, truncated && !hole.cut_after ? t.dropped_step + 1 : t.steps.size());
  out.kept_phase = keep_main_phase(t, starts, followed_range(p), follow);
  // The unit alone, as `predict --measure` measures it: the mean time from one counted step's end (its wait's) to
  // the next, not the trace's reconstruction of each step (items back to back), which runs a little shorter where
  // a program's kernels overlap (cuda-graphs: 0.09 %).
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t k = t.steady_from; k < t.steady_to && k + 1 < starts.size(); ++k)
    if (k != t.dropped_step && t.steps[k].counted) {
      sum += starts[k + 1] - starts[k];
      ++n;
    }
  out.unit_ns = n ? sum / static_cast<double>(n) : t.steady_step_ns();
  return out;
}

}  // namespace bench_mps::harness
