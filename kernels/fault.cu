// `fault` workload: see fault.hpp.
#include "kernels/fault.hpp"

#include <chrono>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_handles.cuh"
#include "kernels/spin_kernel.cuh"

namespace bench_mps::kernels {
namespace {

__global__ void illegal_write_kernel(int* bad_address) { *reinterpret_cast<volatile int*>(bad_address) = 42; }

class FaultWorkload final : public Workload {
 public:
  explicit FaultWorkload(const FaultParams& params) : params_(params) {}

  void setup() override {
    cycles_ = spin_cycles(params_.spin.launch_us, device_clock_khz());
    stream_.make_own_unless_placed();  // never placed: always its own
  }

  void begin_timed() override { go_ = std::chrono::steady_clock::now(); }

  void run_task() override {
    const bool timed = go_.time_since_epoch().count() != 0;
    if (timed &&
        std::chrono::steady_clock::now() - go_ >= std::chrono::duration<double, std::milli>(params_.delay_ms)) {
      // An address no allocation can have: the write traps as an illegal address.
      illegal_write_kernel<<<1, 1, 0, stream_.get()>>>(reinterpret_cast<int*>(0x10));
      BENCH_CUDA_CHECK_LAUNCH(illegal_write_kernel);
    } else {
      for (int i = 0; i < params_.spin.launches; ++i)
        launch_spin(cycles_, params_.spin.blocks, params_.spin.threads, stream_.get());
    }
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  std::size_t device_bytes() const override { return 0; }

 private:
  FaultParams params_;
  WorkStream stream_;
  long long cycles_ = 0;
  std::chrono::steady_clock::time_point go_{};
};

}  // namespace

std::unique_ptr<Workload> make_fault_workload(const FaultParams& params) {
  return std::make_unique<FaultWorkload>(params);
}

}  // namespace bench_mps::kernels
