// What the start gate leaves in a copy once it has opened, per CUDA call (issue 42: the gate's cost on one copy
// alone; results/2026-12-02-gatecost-off measured about 1 % of cuda-graphs' 1 ms step). The gate alone is the
// injected library's CUPTI callbacks (harness/profiler/wait_callbacks.hpp), linked here as they are there and set
// up the same way (the gate at the first host wait, its hold a no-op), in one of four states chosen per process
// (--cupti=STATE), so that `never` is a process CUPTI never touched:
//   never         CUPTI not called (--exec-gate off);
//   callbacks     the callbacks on every synchronising call stay on (BENCH_MPS_GATE_CALLBACKS=keep, and the gate
//                 before it opens);
//   unsubscribed  switched off once the gate opened (the default);
//   detached      CUPTI detached once the gate opened (BENCH_MPS_GATE_CALLBACKS=detach: cuptiFinalize).
//   BM_SyncStep: one step of a program that reads back every step: an empty kernel launch and a
//     cudaStreamSynchronize, timed on the host (the calls' cost is host time). Compare the states' step times
//     across processes run in alternation (scripts/device_steps/cupticost.sh, scripts/cupti_cost.py).
//   BM_GraphStep: one step of zoo/here/cuda_graphs.py's shape, the program the gate costs about 1 %: two
//     device-to-device copies of a new batch, a CUDA graph of kGraphNodes kernels replayed, a 4-byte read back
//     (.item()) and a cudaStreamSynchronize. BM_SyncStep does not launch a graph.
// Exits 77 (ctest: skipped) where no GPU is visible, 2 on a bad --cupti, 1 where a state could not be set up.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "bench/bench_gpu_context.hpp"
#include "harness/profiler/wait_callbacks.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/cuda_handles.cuh"
#include "kernels/device_buffer.cuh"
#include "kernels/spin_kernel.cuh"

namespace {

using namespace bench_mps;

void BM_SyncStep(benchmark::State& state) {
  const kernels::CudaStream owner = kernels::make_nonblocking_stream();
  cudaStream_t stream = owner.get();
  kernels::launch_spin(0, 1, 32, stream);  // warm-up
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (auto _ : state) {
    kernels::launch_spin(0, 1, 32, stream);
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}
BENCHMARK(BM_SyncStep)->Unit(benchmark::kMicrosecond);

constexpr int kGraphNodes = 24;          // kernels in the replayed graph (an 8-layer MLP step, forward and back)
constexpr std::size_t kBatch = 1 << 18;  // floats per copied batch tensor (a 256 x 1024 batch)

void BM_GraphStep(benchmark::State& state) {
  const kernels::CudaStream owner = kernels::make_nonblocking_stream();
  cudaStream_t stream = owner.get();
  const kernels::DeviceBuffer<float> pool(2 * kBatch), input(kBatch), target(kBatch);
  const kernels::PinnedBuffer<float> loss = kernels::make_pinned<float>(1);
  BENCH_CUDA_CHECK(cudaMemsetAsync(pool.get(), 0, pool.bytes(), stream));
  BENCH_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kGraphNodes; ++i) kernels::launch_spin(0, 1, 32, stream);
  cudaGraph_t raw = nullptr;
  BENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &raw));
  const kernels::CudaGraph graph(raw);
  cudaGraphExec_t exec_raw = nullptr;
  BENCH_CUDA_CHECK(cudaGraphInstantiate(&exec_raw, graph.get(), 0));
  const kernels::CudaGraphExec exec(exec_raw);
  const auto step = [&] {
    BENCH_CUDA_CHECK(
        cudaMemcpyAsync(input.get(), pool.get(), kBatch * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    BENCH_CUDA_CHECK(
        cudaMemcpyAsync(target.get(), pool.get() + kBatch, kBatch * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    BENCH_CUDA_CHECK(cudaGraphLaunch(exec.get(), stream));
    BENCH_CUDA_CHECK(cudaMemcpyAsync(loss.get(), input.get(), sizeof(float), cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  };
  step();  // warm-up: the graph uploaded, the copies' paths set up
  for (auto _ : state) step();
}
BENCHMARK(BM_GraphStep)->Unit(benchmark::kMicrosecond);

std::string g_said;  // what the callbacks said after the gate (a failed cuptiFinalize)
void hold_nothing() {}
void keep_said(const std::string& line) { g_said += line; }

/// Sets CUPTI up as the gate alone leaves it, `state` one of the four; "" where it is set, else why not.
std::string set_cupti(const std::string& state) {
  if (state == "never") return "";
  profiler::GatePoint gate;
  gate.hold = hold_nothing;
  gate.wait_k = 1;
  gate.say = keep_said;
  gate.after = state == "callbacks"  ? profiler::AfterGate::keep
               : state == "detached" ? profiler::AfterGate::detach
                                     : profiler::AfterGate::unsubscribe;
  const char* failed = "";
  if (const CUptiResult r = profiler::start_wait_callbacks(failed, nullptr, false, gate); r != CUPTI_SUCCESS) {
    const char* text = nullptr;
    if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
    return std::string(failed) + ": " + text;
  }
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());  // the first host wait: the gate passes, then what follows it
  // The default switches the callbacks off from a thread of its own: give it time to.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return g_said;
}

}  // namespace

int main(int argc, char** argv) {
  std::string state = "never";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--cupti=", 8) == 0) {
      state = argv[i] + 8;
      for (int j = i; j < argc - 1; ++j) argv[j] = argv[j + 1];
      --argc;
      break;
    }
  if (state != "never" && state != "callbacks" && state != "unsubscribed" && state != "detached") {
    std::fprintf(stderr, "bench_cupti_after_gate: --cupti='%s' is none of never, callbacks, unsubscribed, detached\n",
                 state.c_str());
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "bench_cupti_after_gate: no GPU visible; skipped\n");
    return 77;
  }
  try {
    bench::stamp_gpu_context();
    if (const std::string why = set_cupti(state); !why.empty()) {
      std::fprintf(stderr, "bench_cupti_after_gate: --cupti=%s could not be set up: %s\n", state.c_str(), why.c_str());
      return 1;
    }
    benchmark::AddCustomContext("cupti", state);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (const kernels::cuda_error& e) {
    std::fprintf(stderr, "bench_cupti_after_gate: %s\n", e.what());
    return 1;
  }
  return 0;
}
