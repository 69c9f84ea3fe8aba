// `filler` workload: see filler.hpp for what it does and how it holds its target.
#include "kernels/filler.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <thread>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_handles.cuh"
#include "kernels/spin.hpp"
#include "kernels/spin_kernel.cuh"

namespace bench_mps::kernels {
namespace {

using Clock = std::chrono::steady_clock;

/// Sleeps until `t` with the coarse sleep, then spins the last stretch (a sleep overshoots by tens of us).
void idle_until(Clock::time_point t) {
  constexpr auto spin_margin = std::chrono::microseconds(150);
  const auto now = Clock::now();
  if (t - now > spin_margin) std::this_thread::sleep_until(t - spin_margin);
  while (Clock::now() < t) {
  }
}

class FillerWorkload final : public Workload {
 public:
  explicit FillerWorkload(const FillerParams& params) : params_(params) {}

  bool place_on_stream(void* stream) override {
    stream_.place_on(static_cast<cudaStream_t>(stream));
    return true;
  }

  void setup() override {
    if (!(params_.target_pct > 0 && params_.target_pct <= 100))
      throw std::invalid_argument("filler: target must be in (0, 100]");
    int device = 0, sms = 0;
    BENCH_CUDA_CHECK(cudaGetDevice(&device));
    BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    blocks_ = params_.blocks > 0 ? params_.blocks : sms;
    cycles_ = spin_cycles(params_.kernel_us, device_clock_khz());
    stream_.make_own_unless_placed();
    start_ = make_event();
    end_ = make_event();
    begin_timed();  // warm-up cycles hold the target too
  }

  void begin_timed() override {
    phase_start_ = Clock::now();
    busy_s_ = 0;
    yields_ = 0;
    kernels_ = 0;
    stretch_sum_ = 0;
  }

  void run_task() override {
    const auto t0 = Clock::now();
    BENCH_CUDA_CHECK(cudaEventRecord(start_.get(), stream_.get()));
    launch_spin(cycles_, blocks_, params_.threads, stream_.get());
    BENCH_CUDA_CHECK(cudaEventRecord(end_.get(), stream_.get()));
    BENCH_CUDA_CHECK(cudaEventSynchronize(end_.get()));
    float ms = 0;
    BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), end_.get()));
    const double kernel_s = ms * 1e-3;
    busy_s_ += kernel_s;
    ++kernels_;
    shortest_s_ = std::min(shortest_s_, kernel_s);
    stretch_sum_ += kernel_s / shortest_s_;
    // Idle until busy / elapsed == target (never before the kernel's own end).
    auto until = phase_start_ + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(busy_s_ * 100.0 / params_.target_pct));
    if (params_.yield && kernel_s > 1.5 * shortest_s_) {
      ++yields_;
      until = std::max(until, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double, std::milli>(params_.yield_ms)));
    }
    idle_until(until);
    span_ = {t0, Clock::now()};
  }

  std::pair<std::int64_t, std::int64_t> last_task_span() const override {
    auto ns = [](Clock::time_point t) {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
    };
    return {ns(span_.first), ns(span_.second)};
  }

  std::size_t device_bytes() const override { return 0; }

  /// busy_share: the GPU time of its kernels over the elapsed time of the timed phase (what it
  /// aimed to hold at target_pct / 100); kernel_stretch: mean kernel time over the shortest one.
  WorkloadFacts facts() const override {
    const double elapsed = std::chrono::duration<double>(Clock::now() - phase_start_).count();
    return {{"target_share", params_.target_pct / 100.0},
            {"busy_share", elapsed > 0 ? busy_s_ / elapsed : 0.0},
            {"kernel_ms", shortest_s_ * 1e3},
            {"kernel_stretch", kernels_ ? stretch_sum_ / static_cast<double>(kernels_) : 0.0},
            {"yields", static_cast<double>(yields_)},
            {"blocks", static_cast<double>(blocks_)},
            // The regime's facts as kernels/step_timer.cuh names them (a kernel is one synchronising step).
            {"burst_ms", kernels_ ? busy_s_ * 1e3 / static_cast<double>(kernels_) : 0.0},
            {"bursts_timed", static_cast<double>(kernels_)},
            {"sync_steps", static_cast<double>(kernels_)},
            {"gpu_busy_share", elapsed > 0 ? busy_s_ / elapsed : 0.0}};
  }

 private:
  FillerParams params_;
  WorkStream stream_;
  CudaEvent start_, end_;
  int blocks_ = 0;
  long long cycles_ = 0;
  Clock::time_point phase_start_;
  double busy_s_ = 0, stretch_sum_ = 0;
  double shortest_s_ = std::numeric_limits<double>::infinity();
  long yields_ = 0, kernels_ = 0;
  std::pair<Clock::time_point, Clock::time_point> span_;
};

}  // namespace

std::unique_ptr<Workload> make_filler_workload(const FillerParams& params) {
  return std::make_unique<FillerWorkload>(params);
}

}  // namespace bench_mps::kernels
