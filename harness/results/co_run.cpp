#include "harness/results/co_run.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace bench_mps::harness {

double share_beside_all(const std::vector<TaskSpan>& tasks, int focus) {
  return span_share_beside_all(tasks, focus).share;
}

SpanShare span_share_beside_all(const std::vector<TaskSpan>& tasks, int focus) {
  std::map<int, std::pair<double, double>> spans;  // worker -> first start, last end
  for (const TaskSpan& t : tasks) {
    const auto [it, fresh] = spans.try_emplace(t.worker, t.start_ms, t.end_ms);
    if (!fresh) it->second = {std::min(it->second.first, t.start_ms), std::max(it->second.second, t.end_ms)};
  }
  const auto own = spans.find(focus);
  if (own == spans.end() || spans.size() < 2) return {NAN, NAN, NAN};
  double lo = own->second.first, hi = own->second.second;
  SpanShare out{0, hi - lo, INFINITY, lo, hi};
  for (const auto& [worker, span] : spans) {
    lo = std::max(lo, span.first);
    hi = std::min(hi, span.second);
    if (worker != focus) out.shortest_other_ms = std::min(out.shortest_other_ms, span.second - span.first);
  }
  if (hi >= lo) out.share = out.focus_ms > 0 ? (hi - lo) / out.focus_ms : 1;
  return out;
}

double others_tasks_per_s_within(const std::vector<TaskSpan>& tasks, int focus, double start_ms, double end_ms) {
  if (!(end_ms > start_ms)) return NAN;
  double done = 0;
  for (const TaskSpan& t : tasks) {
    if (t.worker == focus) continue;
    const double inside = std::min(t.end_ms, end_ms) - std::max(t.start_ms, start_ms);
    if (t.end_ms > t.start_ms)
      done += std::max(0.0, inside) / (t.end_ms - t.start_ms);
    else if (t.start_ms >= start_ms && t.start_ms <= end_ms)
      done += 1;
  }
  return done / ((end_ms - start_ms) * 1e-3);
}

}  // namespace bench_mps::harness
