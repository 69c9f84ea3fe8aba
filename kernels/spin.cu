// `spin` workload: see spin.hpp for what it measures and the bounds to expect.
#include "kernels/spin.hpp"

#include <cmath>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_handles.cuh"
#include "kernels/spin_kernel.cuh"
#include "kernels/step_timer.cuh"

namespace bench_mps::kernels {

int device_clock_khz() {
  int device = 0;
  BENCH_CUDA_CHECK(cudaGetDevice(&device));
  int khz = 0;
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  if (khz <= 0) throw cuda_error("cudaDevAttrClockRate reported " + std::to_string(khz) + " kHz");
  return khz;
}

long long spin_cycles(double launch_us, int clock_khz) {
  return std::llround(launch_us * static_cast<double>(clock_khz) / 1000.0);
}

namespace {

class SpinWorkload final : public Workload {
 public:
  explicit SpinWorkload(const SpinParams& params) : params_(params) {}

  bool place_on_stream(void* stream) override {
    stream_.place_on(static_cast<cudaStream_t>(stream));
    return true;
  }

  void setup() override {
    clock_khz_ = device_clock_khz();
    cycles_ = spin_cycles(params_.launch_us, clock_khz_);
    stream_.make_own_unless_placed();
    done_ = make_event_without_timing();
    steps_.create();
  }

  void begin_timed() override { steps_.reset(); }

  void run_task() override {
    enqueue();
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    steps_.finished();
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

  std::size_t device_bytes() const override { return 0; }

  WorkloadFacts facts() const override {
    WorkloadFacts f{{"clock_khz", clock_khz_},
                    {"cycles_per_launch", static_cast<double>(cycles_)},
                    {"blocks", static_cast<double>(params_.blocks)}};
    steps_.add_facts(f);
    return f;
  }

 private:
  /// One task: `launches` kernels back to back, one synchronising step.
  void enqueue() {
    steps_.begin(stream_.get());
    for (int i = 0; i < params_.launches; ++i) launch_spin(cycles_, params_.blocks, params_.threads, stream_.get());
    steps_.end(stream_.get());
  }

  SpinParams params_;
  WorkStream stream_;
  CudaEvent done_;   // the end of the task started by start_task()
  StepTimer steps_;  // the burst: GPU time of each task
  int clock_khz_ = 0;
  long long cycles_ = 0;
};

}  // namespace

std::unique_ptr<Workload> make_spin_workload(const SpinParams& params) {
  return std::make_unique<SpinWorkload>(params);
}

}  // namespace bench_mps::kernels
