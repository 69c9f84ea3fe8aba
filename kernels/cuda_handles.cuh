#pragma once
// Move-only owners of CUDA and cuBLAS handles (a unique_ptr with a deleter each), so that every
// handle is released on every path, errors included. Deleters run in destructors: they report a
// failure on stderr (BENCH_CUDA_CHECK_NOEXCEPT) and never throw.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <type_traits>

#include "kernels/cublas_library.hpp"
#include "kernels/cuda_check.hpp"

namespace bench_mps::kernels {

namespace detail {
struct StreamDeleter {
  void operator()(cudaStream_t s) const noexcept { BENCH_CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(s)); }
};
struct EventDeleter {
  void operator()(cudaEvent_t e) const noexcept { BENCH_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(e)); }
};
struct GraphExecDeleter {
  void operator()(cudaGraphExec_t g) const noexcept { BENCH_CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(g)); }
};
struct GraphDeleter {
  void operator()(cudaGraph_t g) const noexcept { BENCH_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(g)); }
};
struct CublasDeleter {
  void operator()(cublasHandle_t h) const noexcept { BENCH_CUBLAS_CHECK_NOEXCEPT(cublas().destroy(h)); }
};
struct PinnedDeleter {
  void operator()(void* p) const noexcept { BENCH_CUDA_CHECK_NOEXCEPT(cudaFreeHost(p)); }
};
}  // namespace detail

using CudaStream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, detail::StreamDeleter>;
using CudaEvent = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, detail::EventDeleter>;
using CudaGraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, detail::GraphExecDeleter>;
using CudaGraph = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, detail::GraphDeleter>;
using CublasHandle = std::unique_ptr<std::remove_pointer_t<cublasHandle_t>, detail::CublasDeleter>;
template <typename T>
using PinnedBuffer = std::unique_ptr<T[], detail::PinnedDeleter>;

/// A stream that does not synchronise with the legacy default stream.
inline CudaStream make_nonblocking_stream() {
  cudaStream_t s = nullptr;
  BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return CudaStream(s);
}

/// The stream a workload launches on (like nvbench's cuda_stream): the one it was placed on, borrowed
/// (an in-process mode's, e.g. a green context's), or else one of its own, made at setup and
/// destroyed with it.
class WorkStream {
 public:
  /// Launches go to `stream` (null: none placed, it makes its own).
  void place_on(cudaStream_t stream) { stream_ = stream; }
  /// At setup: a non-blocking stream of its own, unless it was placed on one.
  void make_own_unless_placed() {
    if (stream_) return;
    owner_ = make_nonblocking_stream();
    stream_ = owner_.get();
  }
  cudaStream_t get() const { return stream_; }

 private:
  CudaStream owner_;               // null when borrowed
  cudaStream_t stream_ = nullptr;  // owner_'s, or the one it was placed on
};

inline CudaEvent make_event() {
  cudaEvent_t e = nullptr;
  BENCH_CUDA_CHECK(cudaEventCreate(&e));
  return CudaEvent(e);
}

/// An event only waited on or queried, never timed (cheaper to record).
inline CudaEvent make_event_without_timing() {
  cudaEvent_t e = nullptr;
  BENCH_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return CudaEvent(e);
}

/// Whether the work before `e` has finished (cudaEventQuery); any error but "not ready" throws.
inline bool event_done(cudaEvent_t e) {
  const cudaError_t err = cudaEventQuery(e);
  if (err == cudaErrorNotReady) return false;
  BENCH_CUDA_CHECK(err);
  return true;
}

inline CublasHandle make_cublas() {
  cublasHandle_t h = nullptr;
  BENCH_CUBLAS_CHECK(cublas().create(&h));
  return CublasHandle(h);
}

/// `count` elements of page-locked host memory (fast, asynchronous copies to and from the device).
template <typename T>
PinnedBuffer<T> make_pinned(std::size_t count) {
  void* p = nullptr;
  BENCH_CUDA_CHECK(cudaMallocHost(&p, count * sizeof(T)));
  return PinnedBuffer<T>(static_cast<T*>(p));
}

}  // namespace bench_mps::kernels
