// What the start gate leaves in a copy once it has opened, per CUDA call (issue 42: the gate's cost on one copy
// alone; results/2026-12-02-gatecost-off measured about 1 % of cuda-graphs' 1 ms step). The gate alone is the
// injected library's CUPTI callbacks (harness/profiler/wait_callbacks.hpp), linked here as they are there and set
// up the same way (the gate at the first host wait, its hold a no-op), in one of four states chosen per process
// (--cupti=STATE), so that `never` is a process CUPTI never touched:
//   never         CUPTI not called (--exec-gate off);
//   callbacks     the callbacks on every synchronising call stay on (BENCH_MPS_GATE_CALLBACKS=keep, and the gate
//                 before it opens);
//   unsubscribed  switched off once the gate opened (BENCH_MPS_GATE_CALLBACKS=unsubscribe; the default until
//                 2026-12-04);
//   detached      CUPTI detached once the gate opened (cuptiFinalize: the default since 2026-12-04, when this
//                 benchmark's graph steps showed the other two costing each graph launch 4-7 us on an H200).
//   BM_SyncStep: one step of a program that reads back every step: an empty kernel launch and a
//     cudaStreamSynchronize, timed on the host (the calls' cost is host time). Compare the states' step times
//     across processes run in alternation (scripts/device_steps/cupticost.sh, scripts/cupti_cost.py).
//   BM_GraphStep: one step of zoo/here/cuda_graphs.py's shape, the program the gate costs about 1 %: two
//     device-to-device copies of a new batch, a CUDA graph of kGraphNodes kernels replayed, a 4-byte read back
//     (.item()) and a cudaStreamSynchronize. BM_SyncStep does not launch a graph. Its graph is made in the state
//     already set.
//   BM_GraphStepBuiltBeforeGate: the same step, its graph made and replayed once before the gate opened, as
//     cuda_graphs.py's is: whether a graph instantiated while CUPTI was subscribed keeps a cost after it lets go.
// Exits 77 (ctest: skipped) where no GPU is visible, 2 on a bad --cupti, 1 where a state could not be set up.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
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

/// One step of cuda_graphs.py's shape: its stream, its batches and its graph, captured and instantiated when made.
class GraphStepRig {
 public:
  GraphStepRig() : pool_(2 * kBatch), input_(kBatch), target_(kBatch), loss_(kernels::make_pinned<float>(1)) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(pool_.get(), 0, pool_.bytes(), stream_.get()));
    BENCH_CUDA_CHECK(cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kGraphNodes; ++i) kernels::launch_spin(0, 1, 32, stream_.get());
    cudaGraph_t raw = nullptr;
    BENCH_CUDA_CHECK(cudaStreamEndCapture(stream_.get(), &raw));
    graph_ = kernels::CudaGraph(raw);
    cudaGraphExec_t exec_raw = nullptr;
    BENCH_CUDA_CHECK(cudaGraphInstantiate(&exec_raw, graph_.get(), 0));
    exec_ = kernels::CudaGraphExec(exec_raw);
  }
  /// A step's work, queued: the two copies, the graph replayed, the read back. No host wait.
  void queue() {
    cudaStream_t s = stream_.get();
    BENCH_CUDA_CHECK(cudaMemcpyAsync(input_.get(), pool_.get(), kBatch * sizeof(float), cudaMemcpyDeviceToDevice, s));
    BENCH_CUDA_CHECK(
        cudaMemcpyAsync(target_.get(), pool_.get() + kBatch, kBatch * sizeof(float), cudaMemcpyDeviceToDevice, s));
    BENCH_CUDA_CHECK(cudaGraphLaunch(exec_.get(), s));
    BENCH_CUDA_CHECK(cudaMemcpyAsync(loss_.get(), input_.get(), sizeof(float), cudaMemcpyDeviceToHost, s));
  }
  void step() {
    queue();
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

 private:
  kernels::CudaStream stream_ = kernels::make_nonblocking_stream();
  kernels::DeviceBuffer<float> pool_, input_, target_;
  kernels::PinnedBuffer<float> loss_;
  kernels::CudaGraph graph_;
  kernels::CudaGraphExec exec_;
};

void BM_GraphStep(benchmark::State& state) {
  GraphStepRig rig;
  rig.step();  // warm-up: the graph uploaded, the copies' paths set up
  for (auto _ : state) rig.step();
}
BENCHMARK(BM_GraphStep)->Unit(benchmark::kMicrosecond);

// The same step, its graph captured, instantiated and replayed once before the gate opened, as cuda_graphs.py's
// is (its capture and warm-up come before the host wait the steady gate holds at): set up in main.
std::unique_ptr<GraphStepRig> g_built_before;

void BM_GraphStepBuiltBeforeGate(benchmark::State& state) {
  GraphStepRig& rig = *g_built_before;
  rig.step();
  for (auto _ : state) rig.step();
}
BENCHMARK(BM_GraphStepBuiltBeforeGate)->Unit(benchmark::kMicrosecond);

std::string g_said;  // what the callbacks said after the gate (a failed cuptiFinalize)
void hold_nothing() {}
void keep_said(const std::string& line) { g_said += line; }

/// BM_GraphStepBuiltBeforeGate's rig, made and its step queued, then the first host wait (where the gate passes).
void build_before_first_wait() {
  g_built_before = std::make_unique<GraphStepRig>();
  g_built_before->queue();
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());
}

/// Sets CUPTI up as the gate alone leaves it, `state` one of the four; "" where it is set, else why not.
/// BM_GraphStepBuiltBeforeGate's rig is made and replayed once before the first host wait, in every state.
std::string set_cupti(const std::string& state) {
  if (state == "never") {
    build_before_first_wait();
    return "";
  }
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
  build_before_first_wait();  // the gate passes at its wait, then what follows it
  // unsubscribed switches the callbacks off from a thread of its own: give it time to.
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
    g_built_before.reset();
  } catch (const kernels::cuda_error& e) {
    std::fprintf(stderr, "bench_cupti_after_gate: %s\n", e.what());
    return 1;
  }
  return 0;
}
