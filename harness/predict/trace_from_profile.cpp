// A profile cut into the simulator's steps: see trace_from_profile.hpp.
#include "harness/predict/trace_from_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"

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

}  // namespace

ProgramTrace trace_from_profile(const GpuProfile& p, const ProfileSummary& s, double mem_demand) {
  if (p.spans.empty()) throw UsageError(p.file + ": the profile holds no busy span (no GPU work to replay)");
  ProgramTrace out;
  out.profile_ns = static_cast<double>(std::max(p.end_ns, p.spans.back().end_ns));
  out.fill = std::isnan(s.fill) ? 1.0 : s.fill;
  out.sm_per_span = !std::isnan(p.spans.front().sm_ns);
  out.active_ns = static_cast<double>(p.last_ns - p.first_ns);
  const bool truncated = p.spans.size() < p.intervals;
  const std::int64_t head_end = truncated ? p.spans[p.kept_head - 1].end_ns : 0;
  const std::int64_t tail_start = truncated ? p.spans[p.kept_head].start_ns : 0;

  std::vector<Boundary> cuts;
  if (p.waits_status == "ok" && !p.waits.empty()) {
    out.cut = "host waits";
    const bool waits_cut = p.waits.size() < p.wait_count;
    cuts = counted_waits(p, 0, waits_cut ? p.waits_kept_head : p.waits.size());
    if (waits_cut) {
      const std::vector<Boundary> tail = counted_waits(p, p.waits_kept_head, p.waits.size());
      cuts.insert(cuts.end(), tail.begin(), tail.end());
    }
  } else {
    const std::int64_t gap_ns = std::llround(s.gap_threshold_us * 1e3);
    out.cut = "idle gaps of at least " + fmt_num(s.gap_threshold_us) + " us (no host waits recorded)";
    cuts = burst_ends(p, gap_ns);
  }
  auto by_end = [](const Boundary& a, const Boundary& b) { return a.end_ns < b.end_ns; };
  std::sort(cuts.begin(), cuts.end(), by_end);
  cuts.erase(std::unique(cuts.begin(), cuts.end(), [](const Boundary& a, const Boundary& b) { return a.end_ns == b.end_ns; }),
             cuts.end());
  cuts.erase(std::remove_if(cuts.begin(), cuts.end(), [](const Boundary& b) { return b.end_ns <= 0; }), cuts.end());
  // Spans the profile did not keep: one host-only step from the first cut at or after the head's last span
  // (else that span's end) to the last cut at or before the tail's first span (else its start).
  std::int64_t dropped_from = -1;
  bool cut_after_hole = false;  // the hole ends at a wait (else at the tail's first span: the step after is partial)
  if (truncated) {
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
          cut_after_hole = true;
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
    std::sort(kept.begin(), kept.end(), by_end);
    kept.erase(std::unique(kept.begin(), kept.end(), [](const Boundary& a, const Boundary& b) { return a.end_ns == b.end_ns; }),
               kept.end());
    cuts = std::move(kept);
    dropped_from = from;
    out.dropped_ns = static_cast<double>(to - from);
  }

  CopyTrace& t = out.trace;
  t.mem_demand = std::clamp(mem_demand, 0.0, 1.0);
  std::vector<double> starts;  // each step's start alone
  std::size_t span = 0;
  std::int64_t start = 0;      // the profiler's start: CUDA's initialisation
  const auto profile_end = static_cast<std::int64_t>(out.profile_ns);
  auto add_step = [&](std::int64_t wait_start, std::int64_t wait_end, bool last) {
    TraceStep step;
    std::int64_t last_end = start;
    for (; span < p.spans.size() && (last || p.spans[span].start_ns < wait_end); ++span) {
      const BusySpan& b = p.spans[span];
      if (b.busy_ns <= 0) continue;
      TraceItem item;
      item.ready_ns = static_cast<double>(std::max<std::int64_t>(0, b.start_ns - start));
      item.work_ns = static_cast<double>(b.busy_ns);
      item.sm = std::isnan(b.sm_ns) ? out.fill : b.sm_ns / static_cast<double>(b.busy_ns);
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

  // The steady part: the steps that begin inside the summary's (the kept spans less their first 10%, or the
  // tail), other than the hole and the last (which ends in the program's exit, not a wait).
  const double from_ns = s.steady_from_s * 1e9, to_ns = s.steady_to_s * 1e9;
  t.steady_from = t.steps.size();
  t.steady_to = 0;
  const std::size_t partial = truncated && !cut_after_hole ? t.dropped_step + 1 : t.steps.size();
  for (std::size_t k = 0; k + 1 < t.steps.size(); ++k) {
    if (k == t.dropped_step || k == partial || starts[k] + 1 < from_ns || starts[k] >= to_ns) continue;
    t.steady_from = std::min(t.steady_from, k);
    t.steady_to = k + 1;
  }
  if (t.steady_to <= t.steady_from) {  // a run of one step: the whole of it
    t.steady_from = 0;
    t.steady_to = t.steps.size();
  }
  return out;
}

}  // namespace bench_mps::harness
