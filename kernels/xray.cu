// `xray` workload: see xray.hpp for what its probes measure.
#include "kernels/xray.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_handles.cuh"
#include "kernels/device_buffer.cuh"
#include "kernels/globaltimer.cuh"
#include "kernels/host_clock.hpp"
#include "kernels/spin.hpp"
#include "kernels/work_kernel.cuh"
#include "kernels/xray_stats.hpp"

namespace bench_mps::kernels {
namespace {

/// One thread reads the GPU clock until `duration_ns` after its first read; every pause between two
/// reads longer than `gap_ns` closes an interval [begin, last read before the pause].
__global__ void xray_logger_kernel(std::uint64_t duration_ns, std::uint64_t gap_ns, std::uint64_t* log, int capacity,
                                   int* count) {
  std::uint64_t t = globaltimer_ns();
  const std::uint64_t end = t + duration_ns;
  std::uint64_t begin = t, prev = t;
  int n = 0;
  while (t < end) {
    t = globaltimer_ns();
    if (t - prev > gap_ns) {
      if (n < capacity) {
        log[2 * n] = begin;
        log[2 * n + 1] = prev;
      }
      ++n;
      begin = t;
    }
    prev = t;
  }
  if (n < capacity) {
    log[2 * n] = begin;
    log[2 * n + 1] = prev;
  }
  *count = n + 1;
}

/// The smallest positive step between consecutive reads of the GPU clock (its resolution).
__global__ void globaltimer_tick_kernel(std::uint64_t* tick) {
  std::uint64_t best = ~0ull, prev = globaltimer_ns();
  for (int i = 0; i < 4096; ++i) {
    const std::uint64_t t = globaltimer_ns();
    if (t > prev && t - prev < best) best = t - prev;
    prev = t;
  }
  *tick = best;
}

/// Writes the GPU clock to `out` (device-visible host memory).
__global__ void globaltimer_read_kernel(std::uint64_t* out) {
  out[0] = globaltimer_ns();
  __threadfence_system();
}

/// Device-visible pinned host memory for `count` values (the kernels write, the host reads after a sync).
struct MappedStamps {
  PinnedBuffer<std::uint64_t> host;
  std::uint64_t* device = nullptr;
  explicit MappedStamps(std::size_t count) {
    void* p = nullptr;
    BENCH_CUDA_CHECK(cudaHostAlloc(&p, count * sizeof(std::uint64_t), cudaHostAllocMapped));
    host = PinnedBuffer<std::uint64_t>(static_cast<std::uint64_t*>(p));
    void* d = nullptr;
    BENCH_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
    device = static_cast<std::uint64_t*>(d);
  }
  std::uint64_t at(std::size_t i) const { return static_cast<volatile std::uint64_t*>(host.get())[i]; }
};

class XrayWorkload final : public Workload {
 public:
  explicit XrayWorkload(const XrayParams& params)
      : params_(params), role_(params.role), busy_(params.role == XrayRole::busy) {
    if (!(params.busy_ms > 0) || !(params.gap_us > 0) || !(params.step_us > 0) || params.max_intervals < 1)
      throw std::invalid_argument("xray: durations must be positive");
  }

  void setup() override {
    stream_ = make_nonblocking_stream();
    stamps_ = std::make_unique<MappedStamps>(4);
    tick_ns_ = measure_tick();
    offset_ns_ = measure_clock_offset();
    if (busy_) {
      log_ = DeviceBuffer<std::uint64_t>(2 * static_cast<std::size_t>(params_.max_intervals));
      count_ = DeviceBuffer<int>(1);
    } else {
      const double us = role_ == XrayRole::gaps ? kGapKernelUs : params_.step_us;
      iterations_ = work_iterations(us, device_clock_khz(), work_cycles_per_iteration(32, stream_.get()));
    }
    reset();
  }

  void begin_timed() override {
    timed_ = true;
    reset();
  }

  void reset() {
    busy_stats_.reset();
    step_stats_.reset();
    gap_stats_.reset();
  }

  void run_task() override {
    if (role_ == XrayRole::busy)
      run_busy();
    else if (role_ == XrayRole::step)
      run_step();
    else
      run_gaps();
  }

  std::vector<Span> last_task_spans() const override { return spans_; }

  std::size_t device_bytes() const override { return log_.bytes() + count_.bytes(); }

  WorkloadFacts facts() const override { return xray_facts(role_, tick_ns_, busy_stats_, step_stats_, gap_stats_); }

 private:
  void run_busy() {
    // A warm-up task (before the first timed phase) loads the kernel: 1 ms is enough.
    const auto duration_ns = static_cast<std::uint64_t>((timed_ ? params_.busy_ms : 1.0) * 1e6);
    const auto gap_ns = static_cast<std::uint64_t>(params_.gap_us * 1e3);
    xray_logger_kernel<<<1, 1, 0, stream_.get()>>>(duration_ns, gap_ns, log_.get(), params_.max_intervals,
                                                   count_.get());
    BENCH_CUDA_CHECK_LAUNCH(xray_logger_kernel);
    int count = 0;
    BENCH_CUDA_CHECK(cudaMemcpyAsync(&count, count_.get(), sizeof count, cudaMemcpyDeviceToHost, stream_.get()));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    const int kept = std::min(count, params_.max_intervals);
    std::vector<std::uint64_t> log(2 * static_cast<std::size_t>(kept));
    BENCH_CUDA_CHECK(cudaMemcpy(log.data(), log_.get(), log.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
    spans_.clear();
    for (int i = 0; i < kept; ++i) spans_.push_back({to_monotonic(log[2 * i]), to_monotonic(log[2 * i + 1])});
    busy_stats_.add(spans_, count - kept);
  }

  void run_step() {
    spans_.clear();
    launch_stamped_work(iterations_, 32, stamps_->device, stream_.get());
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));

    step_stats_.add(static_cast<std::int64_t>(stamps_->at(0)), static_cast<std::int64_t>(stamps_->at(1)));
  }

  /// For each gap: a kernel, its end seen in mapped memory, the gap on the host, a second kernel; whether
  /// the second started at once after its context's queue had been empty that long.
  void run_gaps() {
    spans_.clear();
    for (double gap_us : kGapsUs) {
      for (std::size_t i = 0; i < 4; ++i) stamps_->host.get()[i] = 0;
      launch_stamped_work(iterations_, 32, stamps_->device, stream_.get());
      await_stamp(1);
      busy_wait_us(gap_us);
      const std::int64_t launched = host_now_ns();
      launch_stamped_work(iterations_, 32, stamps_->device + 2, stream_.get());
      await_stamp(3);
      gap_stats_.add(launched, to_monotonic(stamps_->at(2)), to_monotonic(stamps_->at(1)), kGapKeptNs);
    }
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  /// Spins until the kernel wrote stamp `i` (its end): no CUDA call, so the driver never learns the host
  /// waits. After 30 s the stream is synchronised (a failed kernel's error surfaces there) and it throws.
  void await_stamp(std::size_t i) {
    const std::int64_t deadline = host_now_ns() + 30'000'000'000LL;
    while (stamps_->at(i) == 0) {
      if (host_now_ns() > deadline) {
        BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
        throw std::runtime_error("xray gaps: a kernel's end stamp never came (30 s)");
      }
    }
  }

  std::int64_t to_monotonic(std::uint64_t gpu_ns) const { return static_cast<std::int64_t>(gpu_ns) - offset_ns_; }

  double measure_tick() {
    DeviceBuffer<std::uint64_t> tick(1);
    globaltimer_tick_kernel<<<1, 1, 0, stream_.get()>>>(tick.get());
    BENCH_CUDA_CHECK_LAUNCH(globaltimer_tick_kernel);
    std::uint64_t t = 0;
    BENCH_CUDA_CHECK(cudaMemcpyAsync(&t, tick.get(), sizeof t, cudaMemcpyDeviceToHost, stream_.get()));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return t == ~0ull ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(t);
  }

  /// GPU clock minus CLOCK_MONOTONIC: a read of the GPU clock happens between the host's reads before
  /// the launch and after the sync; the tightest of 16 such brackets, at its middle.
  std::int64_t measure_clock_offset() {
    std::int64_t best_width = std::numeric_limits<std::int64_t>::max(), offset = 0;
    for (int k = 0; k < 16; ++k) {
      const std::int64_t t0 = host_now_ns();
      globaltimer_read_kernel<<<1, 1, 0, stream_.get()>>>(stamps_->device);
      BENCH_CUDA_CHECK_LAUNCH(globaltimer_read_kernel);
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      const std::int64_t t1 = host_now_ns();
      if (t1 - t0 < best_width) {
        best_width = t1 - t0;
        offset = static_cast<std::int64_t>(stamps_->at(0)) - (t0 + (t1 - t0) / 2);
      }
    }
    return offset;
  }

  XrayParams params_;
  XrayRole role_;
  bool busy_;
  bool timed_ = false;
  CudaStream stream_;
  std::unique_ptr<MappedStamps> stamps_;
  DeviceBuffer<std::uint64_t> log_;
  DeviceBuffer<int> count_;
  long long iterations_ = 0;
  double tick_ns_ = 0;
  std::int64_t offset_ns_ = 0;
  std::vector<Span> spans_;
  BusyIntervalStats busy_stats_;
  StepStampStats step_stats_;
  IdleHoldStats gap_stats_;
};

}  // namespace

std::unique_ptr<Workload> make_xray_workload(const XrayParams& params) {
  return std::make_unique<XrayWorkload>(params);
}

}  // namespace bench_mps::kernels
