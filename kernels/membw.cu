// `membw` workload: see membw.hpp for what it measures and the bounds to expect.
#include "kernels/membw.hpp"

#include <chrono>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_handles.cuh"
#include "kernels/device_buffer.cuh"
#include "kernels/step_timer.cuh"

namespace bench_mps::kernels {
namespace {

__global__ void triad_kernel(float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c,
                             float s, std::size_t n4) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 x = b[i], y = c[i];
    a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
  }
}

__global__ void fill_kernel(float4* p, float v, std::size_t n4) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride)
    p[i] = make_float4(v, v, v, v);
}

int current_device() {
  int device = 0;
  BENCH_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class MembwWorkload final : public Workload {
 public:
  explicit MembwWorkload(const MembwParams& params) : params_(params) {}

  bool place_on_stream(void* stream) override {
    stream_.place_on(static_cast<cudaStream_t>(stream));
    return true;
  }

  void setup() override {
    if (params_.mib < 1 || params_.iters < 1 || params_.threads < 1 || params_.blocks < 0)
      throw std::invalid_argument("membw: sizes must be positive");
    const int device = current_device();
    int sms = 0;
    BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    blocks_ = params_.blocks > 0 ? params_.blocks : 4 * sms;
    n4_ = static_cast<std::size_t>(params_.mib) * 1024 * 1024 / sizeof(float4);
    stream_.make_own_unless_placed();
    done_ = make_event_without_timing();
    steps_.create();
    for (auto* buffer : {&a_, &b_, &c_}) *buffer = DeviceBuffer<float4>(n4_);
    fill(a_, 0.0f);
    fill(b_, 1.0f);
    fill(c_, 2.0f);
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    peak_ = device_peak_dram_bytes_per_s();
  }

  void begin_timed() override {
    timed_ = true;
    timed_s_ = 0;
    timed_tasks_ = 0;
    steps_.reset();
  }

  void run_task() override {
    const auto t0 = std::chrono::steady_clock::now();
    enqueue();
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    steps_.finished();
    if (timed_) {
      timed_s_ += seconds_since(t0);
      ++timed_tasks_;
    }
  }

  bool supports_async() const override { return true; }
  void start_task() override {
    enqueue();
    BENCH_CUDA_CHECK(cudaEventRecord(done_.get(), stream_.get()));
  }
  bool poll_task() override {
    if (!event_done(done_.get())) return false;
    steps_.finished();
    return true;
  }

  std::size_t device_bytes() const override { return a_.bytes() + b_.bytes() + c_.bytes(); }

  /// The bandwidth this instance reached over its timed tasks (run_task), against the DRAM's peak.
  WorkloadFacts facts() const override {
    WorkloadFacts f{{"bytes_per_task", membw_bytes_per_task(params_)},
                    {"peak_gbps", peak_ * 1e-9},
                    {"blocks", static_cast<double>(blocks_)}};
    if (timed_s_ > 0) {
      const double gbps = membw_bytes_per_task(params_) * static_cast<double>(timed_tasks_) / timed_s_ * 1e-9;
      f.emplace_back("achieved_gbps", gbps);
      f.emplace_back("share_of_peak", gbps / (peak_ * 1e-9));
    }
    steps_.add_facts(f);
    return f;
  }

 private:
  void fill(DeviceBuffer<float4>& buffer, float value) {
    fill_kernel<<<blocks_, params_.threads, 0, stream_.get()>>>(buffer.get(), value, n4_);
    BENCH_CUDA_CHECK_LAUNCH(fill_kernel);
  }

  /// One task: `iters` triads, one synchronising step.
  void enqueue() {
    steps_.begin(stream_.get());
    for (int i = 0; i < params_.iters; ++i) {
      triad_kernel<<<blocks_, params_.threads, 0, stream_.get()>>>(a_.get(), b_.get(), c_.get(), 3.0f, n4_);
      BENCH_CUDA_CHECK_LAUNCH(triad_kernel);
    }
    steps_.end(stream_.get());
  }

  MembwParams params_;
  WorkStream stream_;
  CudaEvent done_;
  StepTimer steps_;  // the burst: GPU time of each task
  DeviceBuffer<float4> a_, b_, c_;
  std::size_t n4_ = 0;
  int blocks_ = 0;
  double peak_ = 0;
  bool timed_ = false;
  double timed_s_ = 0;
  long timed_tasks_ = 0;
};

}  // namespace

double device_peak_dram_bytes_per_s() {
  const int device = current_device();
  int clock_khz = 0, bus_bits = 0;
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device));
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  return 2.0 * static_cast<double>(clock_khz) * 1e3 * static_cast<double>(bus_bits) / 8.0;
}

std::unique_ptr<Workload> make_membw_workload(const MembwParams& params) {
  return std::make_unique<MembwWorkload>(params);
}

}  // namespace bench_mps::kernels
