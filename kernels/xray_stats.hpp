#pragma once
// What the X-ray's probes report (kernels/xray.hpp), from the spans they logged: host code shared by
// the GPU probes and their CPU stand-ins (harness/workers/cpu_standins), so both report alike.
#include <cmath>
#include <cstdint>
#include <string>
#include <limits>
#include <utility>
#include <vector>

#include "kernels/workload.hpp"
#include "kernels/xray.hpp"

namespace bench_mps::kernels {

using Span = std::pair<std::int64_t, std::int64_t>;  ///< start, end (ns)

/// A busy context's intervals: its slices (the first and last of each logging run are cut by the
/// run's start and end, so they are left out), the pauses between them, its share of the time.
class BusyIntervalStats {
 public:
  void reset() { *this = BusyIntervalStats(); }
  /// One logging run's intervals, in order; `lost`: intervals beyond the log's capacity.
  void add(const std::vector<Span>& spans, long lost) {
    lost_ += lost;
    if (spans.empty()) return;
    intervals_ += static_cast<long>(spans.size());
    kernel_ms_ += ms(spans.back().second - spans.front().first);
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const double on = ms(spans[i].second - spans[i].first);
      run_ms_ += on;
      if (i > 0 && i + 1 < spans.size()) {
        slice_ms_ += on;
        ++slices_;
      }
      if (i > 0) {
        off_ms_ += ms(spans[i].first - spans[i - 1].second);
        ++offs_;
      }
    }
  }
  /// intervals, slices, slice_ms, off_ms, on_share, intervals_lost
  void add_facts(WorkloadFacts& f) const {
    f.emplace_back("intervals", static_cast<double>(intervals_));
    f.emplace_back("slices", static_cast<double>(slices_));
    if (slices_) f.emplace_back("slice_ms", slice_ms_ / static_cast<double>(slices_));
    if (offs_) f.emplace_back("off_ms", off_ms_ / static_cast<double>(offs_));
    if (kernel_ms_ > 0) f.emplace_back("on_share", run_ms_ / kernel_ms_);
    f.emplace_back("intervals_lost", static_cast<double>(lost_));
  }

 private:
  static double ms(std::int64_t ns) { return static_cast<double>(ns) * 1e-6; }
  long intervals_ = 0, slices_ = 0, offs_ = 0, lost_ = 0;
  double slice_ms_ = 0, off_ms_ = 0, run_ms_ = 0, kernel_ms_ = 0;
};

/// A step context's steps: each one's work on the device's clock, and the time from one start to the next.
class StepStampStats {
 public:
  void reset() { *this = StepStampStats(); }
  void add(std::int64_t start_ns, std::int64_t end_ns) {
    gpu_ms_ += static_cast<double>(end_ns - start_ns) * 1e-6;
    ++steps_;
    if (last_start_ > 0 && start_ns > last_start_) {
      period_ms_ += static_cast<double>(start_ns - last_start_) * 1e-6;
      ++periods_;
    }
    last_start_ = start_ns;
  }
  /// step_gpu_ms, start_period_ms, and as kernels/step_timer.cuh names them burst_ms, sync_steps
  void add_facts(WorkloadFacts& f) const {
    if (!steps_) return;
    f.emplace_back("step_gpu_ms", gpu_ms_ / static_cast<double>(steps_));
    if (periods_) f.emplace_back("start_period_ms", period_ms_ / static_cast<double>(periods_));
    f.emplace_back("burst_ms", gpu_ms_ / static_cast<double>(steps_));
    f.emplace_back("sync_steps", static_cast<double>(steps_));
  }

 private:
  double gpu_ms_ = 0, period_ms_ = 0;
  long steps_ = 0, periods_ = 0;
  std::int64_t last_start_ = 0;
};

/// The gaps role's kernels: for each, how long its context's queue had been empty when it was launched
/// (idle) and whether it then started at once (kept: its context still held the GPU). Per log2 bin of idle
/// time (below 2 us, then [2^i, 2^(i+1)) us up to 2 ms) the kernels and the share kept; hold_us, the lower
/// edge of the first bin of at least kMinSamples kernels where under half were kept (a queue empty that
/// long loses the GPU to a context with work), else the upper edge of the last such bin where at least
/// half were (hold_bound 1: at least that); none where no bin has kMinSamples.
class IdleHoldStats {
 public:
  static constexpr int kBins = 12;  ///< [2^i, 2^(i+1)) us, i = 0..11; shorter idles go to bin 0
  void reset() { *this = IdleHoldStats(); }
  /// One kernel: its launch, its start and the previous kernel's end on one clock (ns); `kept_ns`: the
  /// longest wait after the launch that counts as starting at once.
  void add(std::int64_t launch_ns, std::int64_t start_ns, std::int64_t previous_end_ns, std::int64_t kept_ns) {
    const std::int64_t idle = launch_ns - previous_end_ns;
    if (idle <= 0) return;  // the queue never emptied
    int bin = 0;
    while (bin + 1 < kBins && idle >= (std::int64_t{1000} << (bin + 1))) ++bin;
    ++n_[bin];
    if (start_ns - launch_ns <= kept_ns) ++kept_[bin];
  }
  /// gaps_kernels, gaps_kept_share, per sampled bin gaps_idle_<lo>us_n and gaps_idle_<lo>us_kept, hold_us, hold_bound
  void add_facts(WorkloadFacts& f) const {
    long all = 0, kept = 0;
    for (int i = 0; i < kBins; ++i) {
      all += n_[i];
      kept += kept_[i];
    }
    f.emplace_back("gaps_kernels", static_cast<double>(all));
    if (!all) return;
    f.emplace_back("gaps_kept_share", static_cast<double>(kept) / static_cast<double>(all));
    double hold = -1, last_upper = -1;
    for (int i = 0; i < kBins; ++i) {
      if (n_[i] == 0) continue;
      const double lo = i == 0 ? 0.0 : static_cast<double>(1 << i), share = static_cast<double>(kept_[i]) / n_[i];
      const std::string name = "gaps_idle_" + std::to_string(1 << i) + "us_";
      f.emplace_back(name + "n", static_cast<double>(n_[i]));
      f.emplace_back(name + "kept", share);
      if (n_[i] < kMinSamples || hold >= 0) continue;
      if (share < 0.5)
        hold = lo;
      else
        last_upper = static_cast<double>(2 << i);
    }
    if (hold < 0 && last_upper < 0) return;  // no bin decides
    f.emplace_back("hold_us", hold >= 0 ? hold : last_upper);
    f.emplace_back("hold_bound", hold >= 0 ? 0.0 : 1.0);
  }

 private:
  static constexpr long kMinSamples = 3;  ///< a bin decides hold_us from this many kernels on
  long n_[kBins] = {}, kept_[kBins] = {};
};

/// A probe's facts: the GPU clock's resolution, then its role's.
inline WorkloadFacts xray_facts(XrayRole role, double tick_ns, const BusyIntervalStats& busy_stats,
                                const StepStampStats& step_stats, const IdleHoldStats& gap_stats) {
  WorkloadFacts f{{"globaltimer_tick_ns", tick_ns}};
  if (role == XrayRole::busy)
    busy_stats.add_facts(f);
  else if (role == XrayRole::step)
    step_stats.add_facts(f);
  else
    gap_stats.add_facts(f);
  return f;
}

}  // namespace bench_mps::kernels
