#include "harness/gpu/monitor.hpp"

#include <algorithm>

namespace bench_mps::harness {

Monitor::Monitor(const Nvml* nvml, std::chrono::milliseconds period) : nvml_(nvml), period_(period) {
  if (nvml_) thread_ = std::thread([this] { loop(); });
}

Monitor::~Monitor() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void Monitor::loop() {
  while (!stop_) {
    try {
      GpuSample s = nvml_->sample();
      std::lock_guard<std::mutex> lock(mutex_);
      samples_.push_back(s);
    } catch (const NvmlError& e) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = e.what();
      return;
    }
    std::this_thread::sleep_for(period_);
  }
}

std::vector<GpuSample> Monitor::take(std::int64_t from_ns, std::int64_t to_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<GpuSample> out;
  for (const GpuSample& s : samples_)
    if (s.t_ns >= from_ns && s.t_ns <= to_ns) out.push_back(s);
  samples_.erase(std::remove_if(samples_.begin(), samples_.end(), [to_ns](const GpuSample& s) { return s.t_ns <= to_ns; }),
                 samples_.end());
  return out;
}

std::string Monitor::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

}  // namespace bench_mps::harness
