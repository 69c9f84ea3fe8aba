// Time-slicing (gpu_models.hpp TimeSliceModel): one context at a time, round robin among those with work.
#include <cmath>
#include <limits>
#include <memory>

#include "harness/simulate/replay.hpp"

namespace bench_mps::harness {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTol = 1e-3;  ///< ns: a deadline this close is reached (a double's rounding at large times)

class TimeSliceArbiter final : public Arbiter {
 public:
  TimeSliceArbiter(const TimeSliceModel& m, int copies) : m_(m), n_(copies) {}

  double decide(double now, const std::vector<CopyView>& v, std::vector<double>& rates) override {
    if (switching_) {
      if (now + kTol < switch_until_) return switch_until_;
      switching_ = false;
      holder_ = target_;
      slice_start_ = now;
      contested_ = false;  // counted again below from now, where another still waits
      idle_since_ = NAN;
    }
    if (holder_ < 0) {  // nobody has had the GPU yet: the first copy with work takes it, at no cost
      const int c = next_with_work(v, n_ - 1, -1);
      if (c < 0) return kInf;
      holder_ = c;
      slice_start_ = now;
    }
    const int other = next_with_work(v, holder_, holder_);
    // A slice counts from the moment another context waits for the GPU (alone, nothing cuts it).
    if (other < 0)
      contested_ = false;
    else if (!contested_) {
      contested_ = true;
      slice_start_ = now;
    }
    if (v[static_cast<std::size_t>(holder_)].runnable) {
      idle_since_ = NAN;
      if (other >= 0 && now - slice_start_ + kTol >= m_.slice_ns) return begin_switch(now, other, m_.switch_ns);
      rates[static_cast<std::size_t>(holder_)] = 1;
      return other >= 0 ? slice_start_ + m_.slice_ns : kInf;
    }
    // The holder's queue is empty.
    if (std::isnan(idle_since_)) idle_since_ = now;
    if (other < 0) return kInf;  // nobody else has work: it keeps the GPU, and resumes at no cost
    if (v[static_cast<std::size_t>(holder_)].host_waiting || now - idle_since_ + kTol >= m_.hold_ns ||
        now - slice_start_ + kTol >= m_.slice_ns)
      return begin_switch(now, other, m_.turn_ns);
    return std::min(idle_since_ + m_.hold_ns, slice_start_ + m_.slice_ns);
  }

 private:
  /// The first copy after `after` (round robin) with work, other than `except`; -1 if none.
  int next_with_work(const std::vector<CopyView>& v, int after, int except) const {
    for (int k = 1; k <= n_; ++k) {
      const int c = (after + k) % n_;
      if (c != except && v[static_cast<std::size_t>(c)].runnable) return c;
    }
    return -1;
  }
  double begin_switch(double now, int to, double cost) {
    switching_ = true;
    target_ = to;
    switch_until_ = now + cost;
    idle_since_ = NAN;
    if (cost <= 0) {  // a free switch: the new holder starts now
      switching_ = false;
      holder_ = to;
      slice_start_ = now;
      contested_ = false;
      return now;
    }
    return switch_until_;
  }

  TimeSliceModel m_;
  int n_;
  int holder_ = -1, target_ = -1;
  bool switching_ = false, contested_ = false;
  double switch_until_ = 0, slice_start_ = 0, idle_since_ = NAN;
};

}  // namespace

std::unique_ptr<Arbiter> make_timeslice_arbiter(const TimeSliceModel& m, int copies) {
  return std::make_unique<TimeSliceArbiter>(m, copies);
}

}  // namespace bench_mps::harness
