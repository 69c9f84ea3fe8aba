// nvtx_steps: a CUDA program that marks its steps with NVTX as users' programs do, for the GPU test of
// --exec-unit-range (tests/test_gpu_profile.cpp). `nvtx_steps TRAIN EVAL ROUNDS` runs ROUNDS rounds of TRAIN
// training steps (a kernel of about 0.2 ms, then a stream synchronize), each inside nvtxRangePushA("train"),
// then EVAL evaluation steps of about 1 ms, all of them inside one nvtxRangeStartA("eval") .. nvtxRangeEnd and
// each inside a push of the registered string "eval-step" in the domain "nvtx_steps". NVTX is header-only here:
// it does nothing unless NVTX_INJECTION64_PATH names a tool. Any CUDA failure: said, exit 1; bad arguments: exit 2.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_runtime.h>

namespace {

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "nvtx_steps: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

/// A kernel of about `us` microseconds on the device's clock, waited for.
void step(cudaStream_t s, long long cycles_per_us, int us) {
  spin<<<1, 32, 0, s>>>(cycles_per_us * us);
  check(cudaGetLastError(), "spin<<<>>>");
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

int count(const char* text) {
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || n < 0 || n > 100000) {
    std::fprintf(stderr, "nvtx_steps: '%s' is not a count of 0 to 100000\n", text);
    std::exit(2);
  }
  return static_cast<int>(n);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: nvtx_steps TRAIN EVAL ROUNDS\n");
    return 2;
  }
  const int train = count(argv[1]), eval = count(argv[2]), rounds = count(argv[3]);
  int device = 0, khz = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device), "cudaDeviceGetAttribute(ClockRate)");
  const long long cycles_per_us = khz / 1000;
  cudaStream_t s = nullptr;
  check(cudaStreamCreate(&s), "cudaStreamCreate");
  nvtxDomainHandle_t domain = nvtxDomainCreateA("nvtx_steps");
  nvtxStringHandle_t eval_step = nvtxDomainRegisterStringA(domain, "eval-step");
  nvtxEventAttributes_t attrib{};
  attrib.version = NVTX_VERSION;
  attrib.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attrib.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attrib.message.registered = eval_step;
  for (int i = 0; i < 3; ++i) step(s, cycles_per_us, 200);  // warm-up, unmarked
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < train; ++i) {
      nvtxRangePushA("train");
      step(s, cycles_per_us, 200);
      nvtxRangePop();
    }
    const nvtxRangeId_t pass = nvtxRangeStartA("eval");
    for (int i = 0; i < eval; ++i) {
      nvtxDomainRangePushEx(domain, &attrib);
      step(s, cycles_per_us, 1000);
      nvtxDomainRangePop(domain);
    }
    nvtxRangeEnd(pass);
  }
  check(cudaStreamDestroy(s), "cudaStreamDestroy");
  nvtxDomainDestroy(domain);
  std::printf("train_steps %d eval_steps %d\n", train * rounds, eval * rounds);
  return 0;
}
