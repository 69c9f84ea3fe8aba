#pragma once
// Samples the GPU through NVML on a background thread (utilisation, clocks, memory, power) so that
// every run can be stamped with what the GPU was doing meanwhile; timeline.csv keeps the samples.
// Asked to (--profile-gpu), it also takes a GPM sample each period, so that GPM's metrics can be given
// over any part of a run (a GPU profile's steady part: harness/gpu/sample_windows.hpp).
#include "harness/gpu/wing.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/gpu/nvml.hpp"

namespace bench_mps::harness {

/// NVML's sampling period during a sweep: 100 ms, or BENCH_MPS_MONITOR_MS (a diagnostic: does the
/// sampling disturb what it watches? 0 samples nothing, and the runs' NVML columns stay empty). Read
/// once; a value that is not 0-60000 ms is said on stderr and the default kept.
std::chrono::milliseconds monitor_period_from_env();

class Monitor {
 public:
  /// `nvml` may be null (no GPU): then no samples are taken. `gpm`: GPM periods too, where GPM is available.
  Monitor(const Nvml* nvml, std::chrono::milliseconds period, bool gpm = false);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  /// Samples taken in [from_ns, to_ns]; samples older than to_ns are dropped.
  std::vector<GpuSample> take(std::int64_t from_ns, std::int64_t to_ns);
  /// GPM periods inside [from_ns, to_ns]; periods that end before to_ns are dropped.
  std::vector<GpmPeriod> take_gpm(std::int64_t from_ns, std::int64_t to_ns);
  /// The NVML error that stopped sampling, if any.
  std::string error() const;
  /// Why there are no GPM periods (not asked for, no NVML, GPM unavailable) or why they stopped; "" while they go on.
  std::string gpm_error() const;

 private:
  void loop();
  void tick_gpm(std::unique_ptr<Nvml::GpmTicker>& ticker);
  const Nvml* nvml_;
  std::chrono::milliseconds period_;
  bool gpm_;
  mutable std::mutex mutex_;
  std::vector<GpuSample> samples_;
  std::vector<GpmPeriod> gpm_periods_;
  std::string error_, gpm_error_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace bench_mps::harness
