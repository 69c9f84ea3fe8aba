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
  SpanShare out{0, hi - lo, INFINITY};
  for (const auto& [worker, span] : spans) {
    lo = std::max(lo, span.first);
    hi = std::min(hi, span.second);
    if (worker != focus) out.shortest_other_ms = std::min(out.shortest_other_ms, span.second - span.first);
  }
  if (hi >= lo) out.share = out.focus_ms > 0 ? (hi - lo) / out.focus_ms : 1;
  return out;
}

}  // namespace bench_mps::harness
