#pragma once
// A checked, owning device allocation (cudaMalloc / cudaFree; a failed free is reported on stderr, as
// the other handles report theirs: see cuda_handles.cuh).
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "kernels/cuda_check.hpp"

namespace bench_mps::kernels {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) BENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
  }
  ~DeviceBuffer() {
    if (ptr_) BENCH_CUDA_CHECK_NOEXCEPT(cudaFree(ptr_));  // reports a failure on stderr, never throws
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace bench_mps::kernels
