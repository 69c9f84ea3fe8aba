#pragma once
// Check macros for every CUDA runtime and cuBLAS call: a failure throws cuda_error naming the call,
// the file and line, and the library's own message, so a worker can report it and exit non-zero.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace bench_mps::kernels {

class cuda_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);
/// For destructors: prints the failure to stderr instead of throwing.
void report_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept;
void report_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept;

}  // namespace bench_mps::kernels

#define BENCH_CUDA_CHECK(call)                                                                                    \
  do {                                                                                                            \
    const cudaError_t bench_err_ = (call);                                                                        \
    if (bench_err_ != cudaSuccess) ::bench_mps::kernels::throw_cuda_error(bench_err_, #call, __FILE__, __LINE__); \
  } while (0)

/// Checks the launch that precedes it (launch configuration errors surface here), naming the kernel.
#define BENCH_CUDA_CHECK_LAUNCH(kernel_name)                                                             \
  do {                                                                                                   \
    const cudaError_t bench_err_ = cudaGetLastError();                                                   \
    if (bench_err_ != cudaSuccess)                                                                       \
      ::bench_mps::kernels::throw_cuda_error(bench_err_, "launch of " #kernel_name, __FILE__, __LINE__); \
  } while (0)

#define BENCH_CUBLAS_CHECK(call)                                                          \
  do {                                                                                    \
    const cublasStatus_t bench_status_ = (call);                                          \
    if (bench_status_ != CUBLAS_STATUS_SUCCESS)                                           \
      ::bench_mps::kernels::throw_cublas_error(bench_status_, #call, __FILE__, __LINE__); \
  } while (0)

/// BENCH_CUDA_CHECK's twin for destructors and deleters: reports a failure on stderr, never throws.
#define BENCH_CUDA_CHECK_NOEXCEPT(call)                                                                            \
  do {                                                                                                             \
    const cudaError_t bench_err_ = (call);                                                                         \
    if (bench_err_ != cudaSuccess) ::bench_mps::kernels::report_cuda_error(bench_err_, #call, __FILE__, __LINE__); \
  } while (0)

#define BENCH_CUBLAS_CHECK_NOEXCEPT(call)                                                  \
  do {                                                                                     \
    const cublasStatus_t bench_status_ = (call);                                           \
    if (bench_status_ != CUBLAS_STATUS_SUCCESS)                                            \
      ::bench_mps::kernels::report_cublas_error(bench_status_, #call, __FILE__, __LINE__); \
  } while (0)
