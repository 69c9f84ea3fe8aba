// Google Benchmark micro-benchmarks of each workload in one process, timed with CUDA events
// (UseManualTime), the GPU and driver stamped into the JSON context:
//   BM_SpinLaunch/<us>: one spin launch of 4 x 256 threads; the measured time should match the
//     requested duration (counter `ratio` = measured / requested, ideally 1.00).
//   BM_MlpStep/<batch>: one mlp training step (784-512-512-10) per batch size.
// Exits 77 (ctest: skipped) where no GPU is visible.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "bench/bench_gpu_context.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/cuda_handles.cuh"
#include "kernels/mlp.hpp"
#include "kernels/spin.hpp"
#include "kernels/spin_kernel.cuh"

namespace {

using namespace bench_mps::kernels;

/// Times GPU work on one stream with a pair of CUDA events.
class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream) : stream_(stream), start_(make_event()), stop_(make_event()) {}
  void start() { BENCH_CUDA_CHECK(cudaEventRecord(start_.get(), stream_)); }
  /// Seconds between start() and now on the stream (waits for it).
  double stop() {
    BENCH_CUDA_CHECK(cudaEventRecord(stop_.get(), stream_));
    BENCH_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    float ms = 0;
    BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return ms * 1e-3;
  }

 private:
  cudaStream_t stream_;
  CudaEvent start_, stop_;
};

void BM_SpinLaunch(benchmark::State& state) {
  const double us = static_cast<double>(state.range(0));
  const CudaStream owner = make_nonblocking_stream();
  cudaStream_t stream = owner.get();
  const long long cycles = spin_cycles(us, device_clock_khz());
  launch_spin(cycles, 4, 256, stream);  // warm-up
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  EventTimer timer(stream);
  double total = 0;
  for (auto _ : state) {
    timer.start();
    launch_spin(cycles, 4, 256, stream);
    const double s = timer.stop();
    total += s;
    state.SetIterationTime(s);
  }
  state.counters["requested_us"] = us;
  state.counters["ratio"] = total / static_cast<double>(state.iterations()) / (us * 1e-6);
}
BENCHMARK(BM_SpinLaunch)->Arg(10)->Arg(100)->Arg(1000)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_MlpStep(benchmark::State& state) {
  MlpParams params;
  params.batch = static_cast<int>(state.range(0));
  params.dataset_size = params.batch * 16;
  MlpTrainer trainer(params);
  trainer.setup();
  trainer.step();  // warm-up (cuBLAS picks its kernels here)
  EventTimer timer(static_cast<cudaStream_t>(trainer.native_stream()));
  for (auto _ : state) {
    timer.start();
    trainer.step();
    state.SetIterationTime(timer.stop());
  }
  state.counters["samples_per_s"] = benchmark::Counter(
      static_cast<double>(params.batch) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MlpStep)->RangeMultiplier(4)->Range(16, 1024)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "bench_workloads: no GPU visible; skipped\n");
    return 77;
  }
  try {
    bench_mps::bench::stamp_gpu_context();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (const cuda_error& e) {
    std::fprintf(stderr, "bench_workloads: %s\n", e.what());
    return 1;
  }
  return 0;
}
