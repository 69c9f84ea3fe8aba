#pragma once
// Samples the GPU through NVML on a background thread (utilisation, clocks, memory, power) so that
// every run can be stamped with what the GPU was doing meanwhile; timeline.csv keeps the samples.
#include "harness/gpu/wing.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/gpu/nvml.hpp"

namespace bench_mps::harness {

class Monitor {
 public:
  /// `nvml` may be null (no GPU): then no samples are taken.
  Monitor(const Nvml* nvml, std::chrono::milliseconds period);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  /// Samples taken in [from_ns, to_ns]; samples older than to_ns are dropped.
  std::vector<GpuSample> take(std::int64_t from_ns, std::int64_t to_ns);
  /// The NVML error that stopped sampling, if any.
  std::string error() const;

 private:
  void loop();
  const Nvml* nvml_;
  std::chrono::milliseconds period_;
  mutable std::mutex mutex_;
  std::vector<GpuSample> samples_;
  std::string error_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace bench_mps::harness
