// `duty` workload: see duty.hpp for what it measures and what to expect.
#include "kernels/duty.hpp"

#include <stdexcept>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_handles.cuh"
#include "kernels/host_clock.hpp"
#include "kernels/spin.hpp"
#include "kernels/step_timer.cuh"
#include "kernels/work_kernel.cuh"

namespace bench_mps::kernels {

namespace {

class DutyWorkload final : public Workload {
 public:
  explicit DutyWorkload(const DutyParams& params) : params_(params) {}

  bool place_on_stream(void* stream) override {
    stream_.place_on(static_cast<cudaStream_t>(stream));
    return true;
  }

  void setup() override {
    const DutyParams& p = params_;
    if (!(p.burst_us > 0) || p.host_us < 0 || p.kernels < 1 || p.blocks < 1 || p.threads < 1 || p.steps_per_task < 1)
      throw std::invalid_argument("duty: burst must be positive, host work >= 0, counts >= 1");
    stream_.make_own_unless_placed();
    clock_khz_ = device_clock_khz();
    cycles_per_iteration_ = work_cycles_per_iteration(p.threads, stream_.get());
    iterations_ = work_iterations(p.burst_us / p.kernels, clock_khz_, cycles_per_iteration_);
    steps_.create();
  }

  void begin_timed() override { steps_.reset(); }

  void run_task() override {
    for (int s = 0; s < params_.steps_per_task; ++s) {
      busy_wait_us(params_.host_us);
      steps_.begin(stream_.get());
      for (int k = 0; k < params_.kernels; ++k)
        launch_work(iterations_, params_.blocks, params_.threads, stream_.get());
      steps_.end(stream_.get());
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      steps_.finished();
    }
  }

  std::size_t device_bytes() const override { return 0; }

  WorkloadFacts facts() const override {
    WorkloadFacts f{{"clock_khz", static_cast<double>(clock_khz_)},
                    {"cycles_per_iteration", cycles_per_iteration_},
                    {"iterations_per_kernel", static_cast<double>(iterations_)},
                    {"blocks", static_cast<double>(params_.blocks)}};
    steps_.add_facts(f);
    return f;
  }

 private:
  DutyParams params_;
  WorkStream stream_;
  StepTimer steps_;
  int clock_khz_ = 0;
  double cycles_per_iteration_ = 0;
  long long iterations_ = 0;
};

}  // namespace

std::unique_ptr<Workload> make_duty_workload(const DutyParams& params) {
  return std::make_unique<DutyWorkload>(params);
}

}  // namespace bench_mps::kernels
