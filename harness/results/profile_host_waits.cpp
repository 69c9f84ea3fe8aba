// A profile's host waits over its steady part: how much device work one wait-to-wait step needs and
// how long a step is. The regime model needs that step, not the bursts split at idle gaps: an eager
// loop's launch gaps look like host waits to a threshold, and under time-slicing a waiting copy's
// launches run ahead, so those gaps vanish and only a host wait ends its turn (docs/PROFILE.md).
//
// A wait counts when device work began since the wait before it ended: a step's waits with nothing
// new for the GPU between them (loss.item(): a copy to pageable memory, then a stream
// synchronize) are one. The window: from the last counted wait that ended before the steady part's
// first span began to the first that ended after its last span began (the wait for it), so it holds
// whole wait-to-wait steps; where
// the profile kept only the first and last waits, no earlier than its kept last ones.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "harness/common/stats.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/step_phase.hpp"

namespace bench_mps::harness {
namespace {

struct Window {
  std::int64_t from, to;
};

/// The first span that ends after `t` (spans are in time order: their ends increase).
std::vector<BusySpan>::const_iterator first_ending_after(const std::vector<BusySpan>& spans, std::int64_t t) {
  return std::upper_bound(spans.begin(), spans.end(), t,
                          [](std::int64_t v, const BusySpan& b) { return v < b.end_ns; });
}

/// The device busy time inside (from, to]: each span's busy time in proportion to its part inside.
double busy_ns_within(const std::vector<BusySpan>& spans, Window w) {
  double busy = 0;
  for (auto it = first_ending_after(spans, w.from); it != spans.end() && it->start_ns < w.to; ++it) {
    const double inside = static_cast<double>(std::min(it->end_ns, w.to) - std::max(it->start_ns, w.from));
    const double length = static_cast<double>(it->end_ns - it->start_ns);
    busy += length > 0 ? static_cast<double>(it->busy_ns) * inside / length : 0.0;
  }
  return busy;
}

/// A step (after, until]'s burst: from the first span that starts in it (the step's work is launched
/// after the wait before it ended) to the end of the last one, clipped to the step; negative where no
/// span starts in it.
std::int64_t step_burst_ns(const std::vector<BusySpan>& spans, std::int64_t after, std::int64_t until) {
  const auto first = std::upper_bound(spans.begin(), spans.end(), after,
                                      [](std::int64_t v, const BusySpan& b) { return v < b.start_ns; });
  const auto past =
      std::lower_bound(first, spans.end(), until, [](const BusySpan& b, std::int64_t v) { return b.start_ns < v; });
  if (first == past) return -1;
  return std::min((past - 1)->end_ns, until) - first->start_ns;
}

}  // namespace

std::vector<HostWait> counted_waits(const GpuProfile& p, std::size_t from, std::size_t to) {
  std::vector<HostWait> counted;
  for (std::size_t i = from; i < to && i < p.waits.size(); ++i) {
    const std::int64_t previous = i > 0 ? p.waits[i - 1].end_ns : std::numeric_limits<std::int64_t>::min();
    if (step_burst_ns(p.spans, previous, p.waits[i].end_ns) >= 0) counted.push_back(p.waits[i]);
  }
  return counted;
}

void summarise_host_waits(const GpuProfile& p, std::size_t steady_from, ProfileSummary& s) {
  if (!s.waits_recorded || steady_from >= p.spans.size()) return;
  // The waits that count, by their ends, from the first of those kept without a hole after it.
  const std::size_t complete_from = p.waits.size() < p.wait_count ? p.waits_kept_head : 0;
  std::vector<std::int64_t> counted;
  for (const HostWait& w : counted_waits(p, complete_from, p.waits.size())) counted.push_back(w.end_ns);
  // The window: widened from the steady part's spans to the counted waits around them.
  Window w{p.spans[steady_from].start_ns, p.spans.back().end_ns};
  const auto after_first = std::upper_bound(counted.begin(), counted.end(), w.from);
  if (after_first != counted.begin()) w.from = *(after_first - 1);
  const auto closing = std::lower_bound(counted.begin(), counted.end(), p.spans.back().start_ns);
  if (closing != counted.end()) w.to = *closing;
  if (complete_from > 0 && complete_from < p.waits.size()) w.from = std::max(w.from, p.waits[complete_from].end_ns);

  std::vector<double> bursts_ms;
  for (std::size_t k = 0; k < counted.size(); ++k) {
    if (counted[k] <= w.from || counted[k] > w.to) continue;
    ++s.host_waits;
    if (k > 0 && counted[k - 1] >= w.from)
      bursts_ms.push_back(static_cast<double>(step_burst_ns(p.spans, counted[k - 1], counted[k])) * 1e-6);
  }
  if (s.host_waits == 0) return;
  const double n = static_cast<double>(s.host_waits);
  s.wait_step_ms = static_cast<double>(w.to - w.from) * 1e-6 / n;
  s.wait_kernel_ms = busy_ns_within(p.spans, w) * 1e-6 / n;
  if (!bursts_ms.empty()) s.wait_burst_ms = mean(bursts_ms);
}

std::int64_t unit_steady_from_ns(const GpuProfile& p, const ProfileSummary& s) {
  const auto from_ns = static_cast<std::int64_t>(std::llround(s.steady_from_s * 1e9));
  const auto to_ns = static_cast<std::int64_t>(std::llround(s.steady_to_s * 1e9));
  const std::size_t complete_from = p.waits.size() < p.wait_count ? p.waits_kept_head : 0;
  std::vector<std::int64_t> ends;
  for (const HostWait& w : counted_waits(p, complete_from, p.waits.size()))
    if (w.end_ns >= from_ns && w.end_ns <= to_ns) ends.push_back(w.end_ns);
  const StepPhase phase = unit_phase(ends, followed_range(p));
  return phase.first > 0 && phase.first < ends.size() ? ends[phase.first] : from_ns;
}

long waits_before_unit(const GpuProfile& p, const ProfileSummary& s) {
  const auto from_ns = unit_steady_from_ns(p, s);
  const auto before = [&](const HostWait& w) { return w.end_ns <= from_ns; };
  const std::size_t head = p.waits.size() < p.wait_count ? p.waits_kept_head : p.waits.size();
  if (head == p.waits.size() || (head > 0 && p.waits[head - 1].end_ns >= from_ns))
    return static_cast<long>(std::count_if(p.waits.begin(), p.waits.begin() + static_cast<long>(head), before));
  // The steady part began after the kept head: counted back from the run's end over the kept tail (where
  // it began inside the dropped middle, the middle's waits are taken as evenly spread over its time).
  const auto tail_begin = p.waits.begin() + static_cast<long>(head);
  const long after = static_cast<long>(
      std::count_if(tail_begin, p.waits.end(), [&](const HostWait& w) { return w.end_ns > from_ns; }));
  if (after < static_cast<long>(p.waits.size() - head)) return static_cast<long>(p.wait_count) - after;
  const double hole_from = static_cast<double>(p.waits[head - 1].end_ns),
               hole_to = static_cast<double>(tail_begin->end_ns);
  const double dropped = static_cast<double>(p.wait_count - p.waits.size());
  const double share = hole_to > hole_from ? (static_cast<double>(from_ns) - hole_from) / (hole_to - hole_from) : 0;
  return static_cast<long>(head) + std::lround(std::clamp(share, 0.0, 1.0) * dropped);
}

}  // namespace bench_mps::harness
