#include "kernels/cuda_check.hpp"

#include <cstdio>
#include <cstring>

namespace bench_mps::kernels {
namespace {
std::string where(const char* call, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  return std::string(call) + " at " + (base ? base + 1 : file) + ":" + std::to_string(line);
}
}  // namespace

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw cuda_error(where(call, file, line) + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw cuda_error(where(call, file, line) + ": " + cublasGetStatusName(status) + ": " +
                   cublasGetStatusString(status));
}

void report_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept {
  // cudaErrorCudartUnloading: the runtime is going away at process exit, after the context: nothing leaked.
  if (err == cudaErrorCudartUnloading) return;
  std::fprintf(stderr, "warning: %s: %s: %s\n", where(call, file, line).c_str(), cudaGetErrorName(err),
               cudaGetErrorString(err));
}

void report_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "warning: %s: %s\n", where(call, file, line).c_str(), cublasGetStatusName(status));
}

}  // namespace bench_mps::kernels
