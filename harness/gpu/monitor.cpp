#include "harness/gpu/monitor.hpp"

#include <algorithm>
#include <iostream>
#include <cstdlib>

namespace bench_mps::harness {
namespace {

/// The items of `kept` inside [from_ns, to_ns] (by `from` and `to` of each); those that end at or before
/// to_ns are dropped from `kept`.
template <typename T, typename From, typename To>
std::vector<T> take_between(std::vector<T>& kept, std::int64_t from_ns, std::int64_t to_ns, From from, To to) {
  std::vector<T> out;
  for (const T& x : kept)
    if (from(x) >= from_ns && to(x) <= to_ns) out.push_back(x);
  kept.erase(std::remove_if(kept.begin(), kept.end(), [&](const T& x) { return to(x) <= to_ns; }), kept.end());
  return out;
}

}  // namespace

Monitor::Monitor(const Nvml* nvml, std::chrono::milliseconds period, bool gpm)
    : nvml_(nvml), period_(period), gpm_(gpm) {
  gpm_error_ = !gpm_ ? "not asked for" : !nvml_ ? "no NVML" : "";
  if (nvml_) thread_ = std::thread([this] { loop(); });
}

Monitor::~Monitor() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void Monitor::loop() {
  std::unique_ptr<Nvml::GpmTicker> ticker;
  if (gpm_) {
    std::string why;
    ticker = nvml_->gpm_ticker(why);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!ticker) gpm_error_ = why;
  }
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
    if (ticker) tick_gpm(ticker);
    std::this_thread::sleep_for(period_);
  }
}

/// One GPM period more; a failing GPM call stops GPM (said in gpm_error), not the other samples.
void Monitor::tick_gpm(std::unique_ptr<Nvml::GpmTicker>& ticker) {
  try {
    if (const auto p = ticker->tick()) {
      std::lock_guard<std::mutex> lock(mutex_);
      gpm_periods_.push_back(*p);
    }
  } catch (const NvmlError& e) {
    ticker.reset();
    std::lock_guard<std::mutex> lock(mutex_);
    gpm_error_ = e.what();
  }
}

std::vector<GpuSample> Monitor::take(std::int64_t from_ns, std::int64_t to_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto at = [](const GpuSample& s) { return s.t_ns; };
  return take_between(samples_, from_ns, to_ns, at, at);
}

std::vector<GpmPeriod> Monitor::take_gpm(std::int64_t from_ns, std::int64_t to_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  return take_between(
      gpm_periods_, from_ns, to_ns, [](const GpmPeriod& p) { return p.from_ns; },
      [](const GpmPeriod& p) { return p.to_ns; });
}

std::string Monitor::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

std::string Monitor::gpm_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return gpm_error_;
}

std::chrono::milliseconds monitor_period_from_env() {
  static const std::chrono::milliseconds period = [] {
    const char* v = std::getenv("BENCH_MPS_MONITOR_MS");
    if (!v || !*v) return std::chrono::milliseconds(100);
    char* end = nullptr;
    const long ms = std::strtol(v, &end, 10);
    if (*end == '\0' && ms >= 0 && ms <= 60000) return std::chrono::milliseconds(ms);
    std::cerr << "bench_mps: BENCH_MPS_MONITOR_MS='" << v << "' is not 0-60000 ms; sampling every 100 ms\n";
    return std::chrono::milliseconds(100);
  }();
  return period;
}

}  // namespace bench_mps::harness
