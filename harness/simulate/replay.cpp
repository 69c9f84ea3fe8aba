// The replay engine: see replay.hpp. Time is double ns; an event is an item's end, an item's launch, a
// host reaching its wait, a wait's return, or the arbiter's own decision time.
#include "harness/simulate/replay.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

namespace bench_mps::harness {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-3;  ///< ns: work left below it is done (far above a double's step at hours of ns)

/// Where one copy stands.
struct CopyState {
  std::size_t step = 0;        ///< the step it is in
  double start = 0;            ///< that step's start
  std::size_t item = 0;        ///< its next item not done
  double left = 0;             ///< work left of that item (ns at full speed)
  double work_done_at = kInf;  ///< every item of the step done (kInf: not yet)
  double release_at = kInf;    ///< its wait returns (kInf: not yet known)
  bool finished = false;
  /// Open loop (open_loop.hpp): how much later (or earlier) than recorded this step's launches and host wait
  /// come, its first launch moved to its due time; and when, on the replay's clock, the copy's due times count
  /// from (NaN until its first paced step).
  double shift = 0;
  double pace_zero = NAN;
};

/// When the copy's host launches `i` of its current step, and reaches the step's wait.
double ready_at(const CopyState& s, const TraceItem& i) { return s.start + std::max(0.0, i.ready_ns + s.shift); }
double host_at(const CopyState& s, const TraceStep& step) { return s.start + std::max(0.0, step.host_ns + s.shift); }

}  // namespace

double TraceStep::alone_ns() const {
  double t = 0;
  for (const TraceItem& i : items) t = std::max(t, i.ready_ns) + i.work_ns;
  return std::max(t, host_ns) + release_ns;
}

double CopyTrace::steady_step_ns() const {
  if (steady_to <= steady_from) return NAN;
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t k = steady_from; k < steady_to && k < steps.size(); ++k) {
    if (k == dropped_step || !steps[k].counted) continue;
    sum += steps[k].alone_ns();
    ++n;
  }
  return n ? sum / static_cast<double>(n) : NAN;
}

Replay replay(const CopyTrace& trace, int n, Arbiter& arbiter, const std::vector<double>& offsets_ns) {
  return replay(std::vector<const CopyTrace*>(static_cast<std::size_t>(std::max(0, n)), &trace), arbiter, offsets_ns);
}

namespace {

/// Where every copy stands between events, with the traces and the result. The clock is not in it but a
/// local of the loop, passed by value, and so are the arbiter's views and rates: the arbiter gets their
/// addresses, and in one struct with them the copies' state would be reloaded from memory over and over
/// (measured: 3% slower than the loop in one function; as it is, no slower).
struct ReplayState {
  const std::vector<const CopyTrace*>& traces;
  Replay& out;
  std::vector<CopyState> st;

  ReplayState(const std::vector<const CopyTrace*>& t, Replay& o) : traces(t), out(o), st(t.size()) {}
  const CopyTrace& trace_of(std::size_t c) const { return *traces[c]; }
};

/// Copy c's step has every item done at `now`: its wait returns after the host is there and its release.
void settle(ReplayState& r, std::size_t c, double now) {
  CopyState& s = r.st[c];
  const TraceStep& step = r.trace_of(c).steps[s.step];
  s.work_done_at = now;
  s.release_at = std::max(now, host_at(s, step)) + step.release_ns;
}

/// Copy c begins its step s.step at `now` (and its result records that start).
void begin_step(ReplayState& r, std::size_t c, double now) {
  CopyState& s = r.st[c];
  s.start = now;
  s.item = 0;
  s.work_done_at = kInf;
  s.release_at = kInf;
  s.shift = 0;
  const CopyTrace& trace = r.trace_of(c);
  const TraceStep& step = trace.steps[s.step];
  double due = NAN;
  if (trace.open_loop && std::isfinite(step.due_ns) && !step.items.empty()) {
    // Paced: the first paced step launches as it did alone and sets the clock its due times count from; a later
    // one launches at its due time, or at once where it starts late.
    const double ready = step.items.front().ready_ns;
    if (std::isnan(s.pace_zero)) s.pace_zero = now + ready - step.due_ns;
    due = s.pace_zero + step.due_ns;
    s.shift = std::max(due, now) - (now + ready);
  }
  r.out.copies[c].step_due_ns.push_back(due);
  s.left = step.items.empty() ? 0 : step.items[0].work_ns;
  if (step.items.empty()) settle(r, c, now);
  r.out.copies[c].step_start_ns.push_back(now);
}

/// Every copy begins its first step at its offset (a copy of no steps ends there).
void start_copies(ReplayState& r, const std::vector<double>& offsets_ns) {
  for (std::size_t c = 0; c < r.st.size(); ++c) {
    const double at = c < offsets_ns.size() ? offsets_ns[c] : 0.0;
    if (r.trace_of(c).steps.empty()) {
      r.st[c].finished = true;
      r.out.copies[c].end_ns = at;
      continue;
    }
    begin_step(r, c, at);
  }
}

/// What each copy can do at `now`, as the arbiter sees it.
void fill_views(const ReplayState& r, double now, std::vector<CopyView>& views) {
  for (std::size_t c = 0; c < r.st.size(); ++c) {
    const CopyState& s = r.st[c];
    CopyView& v = views[c];
    v = CopyView{};
    v.mem = r.trace_of(c).mem_demand;
    if (s.finished) continue;
    const TraceStep& step = r.trace_of(c).steps[s.step];
    v.host_waiting = now + kEps >= host_at(s, step);
    if (s.item < step.items.size() && now + kEps >= ready_at(s, step.items[s.item])) {
      v.runnable = true;
      v.sm = step.items[s.item].sm;
    }
  }
}

/// Lowers `next` (the arbiter's own decision time) to the earliest event of a copy after `now`: an item's end,
/// a launch, a host reaching its wait, a wait's return. False where every copy has finished.
bool earliest_event(const ReplayState& r, const std::vector<CopyView>& views, const std::vector<double>& rates,
                    double now, double& next) {
  bool any_left = false;
  for (std::size_t c = 0; c < r.st.size(); ++c) {
    const CopyState& s = r.st[c];
    if (s.finished) continue;
    any_left = true;
    const TraceStep& step = r.trace_of(c).steps[s.step];
    if (rates[c] > 0 && views[c].runnable) next = std::min(next, now + s.left / rates[c]);
    if (s.item < step.items.size()) {
      const double launch = ready_at(s, step.items[s.item]);
      if (launch > now + kEps) next = std::min(next, launch);
    }
    const double host = host_at(s, step);
    if (host > now + kEps) next = std::min(next, host);
    if (s.release_at < kInf) next = std::min(next, s.release_at);
  }
  return any_left;
}

/// At the new `now`: each running copy's item that is done hands over to the next, and each wait that has
/// returned begins the next step (or ends the copy).
void finish_due(ReplayState& r, const std::vector<CopyView>& views, const std::vector<double>& rates, double now) {
  for (std::size_t c = 0; c < r.st.size(); ++c) {
    CopyState& s = r.st[c];
    if (s.finished) continue;
    const TraceStep& step = r.trace_of(c).steps[s.step];
    // Done: nothing left, or too little to move the clock (a double's rounding at large times).
    if (views[c].runnable && rates[c] > 0 && (s.left <= kEps || now + s.left / rates[c] <= now)) {
      ++s.item;
      if (s.item < step.items.size())
        s.left = step.items[s.item].work_ns;
      else
        settle(r, c, now);
    }
    while (!s.finished && s.release_at <= now + kEps) {  // a step of no items may end at once
      if (s.step + 1 >= r.trace_of(c).steps.size()) {
        s.finished = true;
        r.out.copies[c].end_ns = now;
      } else {
        ++s.step;
        begin_step(r, c, now);
      }
    }
  }
}

}  // namespace

Replay replay(const std::vector<const CopyTrace*>& traces, Arbiter& arbiter, const std::vector<double>& offsets_ns) {
  Replay out;
  out.copies.resize(traces.size());
  ReplayState r(traces, out);
  start_copies(r, offsets_ns);
  // A copy whose offset lies ahead has not started: its steps begin at its offset, so it is simply not
  // runnable until then (its first item's launch is after its offset).
  std::vector<CopyView> views(r.st.size());  // what the arbiter sees and the rates it sets: sized once
  std::vector<double> rates(r.st.size(), 0.0);
  double now = 0;
  for (;;) {
    fill_views(r, now, views);
    std::fill(rates.begin(), rates.end(), 0.0);
    double next = arbiter.decide(now, views, rates);
    if (!earliest_event(r, views, rates, now, next)) break;
    if (!(next < kInf)) break;  // nothing more can happen (an arbiter that never runs a runnable copy)
    next = std::max(next, now);
    const double dt = next - now;
    for (std::size_t c = 0; c < r.st.size(); ++c)
      if (rates[c] > 0 && views[c].runnable) r.st[c].left -= rates[c] * dt;
    now = next;
    ++out.events;
    finish_due(r, views, rates, now);
  }
  return out;
}

namespace {

/// When copy `c`'s step k ends (the next one's start, or the copy's end).
double step_end(const CopyRun& c, std::size_t k) {
  return k + 1 < c.step_start_ns.size() ? c.step_start_ns[k + 1] : c.end_ns;
}

/// The window in which every copy is in its steady part: the latest start of a first steady step to the
/// earliest end of a last one; false where a copy has no steady steps.
bool common_window(const CopyTrace& trace, const Replay& r, double& from, double& to) {
  if (trace.steady_to <= trace.steady_from || r.copies.empty()) return false;
  from = -kInf, to = kInf;
  for (const CopyRun& c : r.copies) {
    if (c.step_start_ns.size() < trace.steady_to) return false;
    from = std::max(from, c.step_start_ns[trace.steady_from]);
    to = std::min(to, step_end(c, trace.steady_to - 1));
  }
  return true;
}

/// Copy `c`'s mean of `measure(k, start, end)` over its own steady steps (NaN: none).
template <class Measure>
double own_steady_mean(const CopyTrace& trace, const CopyRun& c, Measure measure) {
  double total = 0;
  int n = 0;
  for (std::size_t k = trace.steady_from; k < trace.steady_to && k < c.step_start_ns.size(); ++k) {
    if (k == trace.dropped_step || !trace.steps[k].counted) continue;
    const double v = measure(k, c.step_start_ns[k], step_end(c, k));
    if (std::isnan(v)) continue;
    total += v;
    ++n;
  }
  return n ? total / n : NAN;
}

}  // namespace

double steady_step_ns(const std::vector<const CopyTrace*>& traces, const Replay& r) {
  // As the measurement has it (harness/predict/measured_units.hpp): a copy's step over the window in which
  // every copy is in its steady part, from the step ends inside it (at least kMinCommonStepEnds), else the mean
  // of its own steady steps. The copies' traces differ at most in the order of their steady steps.
  if (traces.empty() || traces.size() != r.copies.size()) return NAN;
  const CopyTrace& trace = *traces.front();
  double from = 0, to = 0;
  if (!common_window(trace, r, from, to)) return NAN;
  double sum = 0;
  int copies = 0;
  for (std::size_t i = 0; i < r.copies.size(); ++i) {
    const CopyRun& c = r.copies[i];
    const CopyTrace& mine = *traces[i];  // its steps in its order (a rotation moves a step's `counted` with it)
    std::size_t ends = 0, counted = 0;
    double counted_ns = 0, first = 0, last = 0;
    bool hole = false;
    for (std::size_t k = trace.steady_from; k < trace.steady_to; ++k) {
      const double e = step_end(c, k);
      if (e < from - kEps || e > to + kEps) continue;
      hole = hole || (k == trace.dropped_step && ends > 0);
      if (ends++ > 0 && mine.steps[k].counted) {  // the step from the end before to this one
        counted_ns += e - last;
        ++counted;
      }
      if (ends == 1) first = e;
      last = e;
    }
    // Every step counted: the window's ends over their steps, as before steps could be left out (the same double).
    const double v = counted + 1 >= kMinCommonStepEnds && !hole
                         ? (counted + 1 == ends ? last - first : counted_ns) / static_cast<double>(counted)
                         : own_steady_mean(mine, c, [](std::size_t, double a, double b) { return b - a; });
    if (std::isnan(v)) continue;
    sum += v;
    ++copies;
  }
  return copies ? sum / copies : NAN;
}

double steady_step_ns(const CopyTrace& trace, const Replay& r) {
  return steady_step_ns(std::vector<const CopyTrace*>(r.copies.size(), &trace), r);
}

double steady_response_ns(const std::vector<const CopyTrace*>& traces, const Replay& r) {
  // A paced program's latency is its own metric over all its requests: each copy's own steady steps.
  if (traces.size() != r.copies.size()) return NAN;
  double sum = 0;
  int copies = 0;
  for (std::size_t i = 0; i < r.copies.size(); ++i) {
    const CopyTrace& trace = *traces[i];
    const CopyRun& run = r.copies[i];
    const double v = own_steady_mean(trace, run, [&trace, &run](std::size_t k, double a, double b) {
      const TraceStep& s = trace.steps[k];
      if (k < run.step_due_ns.size() && std::isfinite(run.step_due_ns[k])) return b - run.step_due_ns[k];
      return s.items.empty() ? NAN : b - (a + s.items.front().ready_ns);
    });
    if (std::isnan(v)) continue;
    sum += v;
    ++copies;
  }
  return copies ? sum / copies : NAN;
}

double steady_response_ns(const CopyTrace& trace, const Replay& r) {
  return steady_response_ns(std::vector<const CopyTrace*>(r.copies.size(), &trace), r);
}

double mean_run_ns(const Replay& r, const std::vector<double>& offsets_ns) {
  if (r.copies.empty()) return NAN;
  double sum = 0;
  for (std::size_t c = 0; c < r.copies.size(); ++c)
    sum += r.copies[c].end_ns - (c < offsets_ns.size() ? offsets_ns[c] : 0.0);
  return sum / static_cast<double>(r.copies.size());
}

}  // namespace bench_mps::harness
