#include "kernels/cuda_check.hpp"

#include <cstdio>
#include <cstring>

#include "kernels/cublas_library.hpp"

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
  // A status comes from a cuBLAS call, so the library is loaded.
  throw cuda_error(where(call, file, line) + ": " + cublas().status_name(status) + ": " +
                   cublas().status_string(status));
}

void report_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept {
  // cudaErrorCudartUnloading: the runtime is going away at process exit, after the context: nothing leaked.
  if (err == cudaErrorCudartUnloading) return;
  std::fprintf(stderr, "warning: %s: %s: %s\n", where(call, file, line).c_str(), cudaGetErrorName(err),
               cudaGetErrorString(err));
}

void report_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "warning: %s: %s\n", where(call, file, line).c_str(), cublas().status_name(status));
}

}  // namespace bench_mps::kernels
