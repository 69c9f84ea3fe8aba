#include "kernels/cuda_check.hpp"

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

}  // namespace bench_mps::kernels
