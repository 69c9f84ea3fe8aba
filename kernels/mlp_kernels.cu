#include "kernels/mlp_kernels.cuh"

#include <algorithm>
#include <cstddef>

#include "kernels/cuda_check.hpp"

namespace bench_mps::kernels {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kMaxBlocks = 1u << 20;  // the elementwise kernels stride over what a grid this size misses

/// Blocks for n elements (at least 1, at most kMaxBlocks: lengths are size_t, a grid is not).
unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(kMaxBlocks, (n + kThreads - 1) / kThreads)));
}

__device__ std::size_t first_index() { return blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; }
__device__ std::size_t grid_stride() { return static_cast<std::size_t>(gridDim.x) * blockDim.x; }

__global__ void bias_activation_kernel(float* z, const float* bias, int rows, std::size_t n, bool relu) {
  for (std::size_t i = first_index(); i < n; i += grid_stride()) {
    const float v = z[i] + bias[i % static_cast<std::size_t>(rows)];
    z[i] = relu ? fmaxf(v, 0.0f) : v;
  }
}

__global__ void softmax_xent_kernel(const float* logits, const int* labels, int classes, int cols, float* dlogits,
                                    float* loss) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const float* z = logits + static_cast<long long>(c) * classes;
  float* dz = dlogits + static_cast<long long>(c) * classes;
  float zmax = z[0];
  for (int k = 1; k < classes; ++k) zmax = fmaxf(zmax, z[k]);
  float sum = 0.0f;
  for (int k = 0; k < classes; ++k) sum += expf(z[k] - zmax);
  const float log_sum = logf(sum) + zmax;
  const int label = labels[c];
  const float inv_cols = 1.0f / static_cast<float>(cols);
  for (int k = 0; k < classes; ++k) {
    const float p = expf(z[k] - log_sum);
    dz[k] = (p - (k == label ? 1.0f : 0.0f)) * inv_cols;
  }
  atomicAdd(loss, (log_sum - z[label]) * inv_cols);
}

__global__ void relu_backward_kernel(float* grad, const float* activation, std::size_t n) {
  for (std::size_t i = first_index(); i < n; i += grid_stride())
    if (activation[i] <= 0.0f) grad[i] = 0.0f;
}

__global__ void sgd_momentum_kernel(float* param, float* velocity, const float* grad, std::size_t n, float lr,
                                    float momentum) {
  for (std::size_t i = first_index(); i < n; i += grid_stride()) {
    const float v = momentum * velocity[i] + grad[i];
    velocity[i] = v;
    param[i] -= lr * v;
  }
}

__global__ void select_batch_kernel(const float* inputs, const int* labels, int features, int batch, int num_batches,
                                    const int* counter, int fixed_index, float* x, int* y) {
  const long long index = fixed_index >= 0 ? fixed_index : *counter % num_batches;
  const long long n = static_cast<long long>(features) * batch;
  const float* src = inputs + index * n;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride) x[i] = src[i];
  if (blockIdx.x == 0)
    for (int i = threadIdx.x; i < batch; i += blockDim.x) y[i] = labels[index * batch + i];
}

__global__ void advance_batch_kernel(int* counter, int num_batches) { *counter = (*counter + 1) % num_batches; }

__global__ void fill_kernel(float* x, float value, std::size_t n) {
  for (std::size_t i = first_index(); i < n; i += grid_stride()) x[i] = value;
}

}  // namespace

void launch_bias_activation(float* z, const float* bias, int rows, int cols, bool relu, cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  bias_activation_kernel<<<blocks_for(n), kThreads, 0, s>>>(z, bias, rows, n, relu);
  BENCH_CUDA_CHECK_LAUNCH(bias_activation_kernel);
}

void launch_softmax_xent(const float* logits, const int* labels, int classes, int cols, float* dlogits, float* loss,
                         cudaStream_t s) {
  softmax_xent_kernel<<<blocks_for(static_cast<std::size_t>(cols)), kThreads, 0, s>>>(logits, labels, classes, cols,
                                                                                      dlogits, loss);
  BENCH_CUDA_CHECK_LAUNCH(softmax_xent_kernel);
}

void launch_relu_backward(float* grad, const float* activation, std::size_t n, cudaStream_t s) {
  relu_backward_kernel<<<blocks_for(n), kThreads, 0, s>>>(grad, activation, n);
  BENCH_CUDA_CHECK_LAUNCH(relu_backward_kernel);
}

void launch_sgd_momentum(float* param, float* velocity, const float* grad, std::size_t n, float lr, float momentum,
                         cudaStream_t s) {
  sgd_momentum_kernel<<<blocks_for(n), kThreads, 0, s>>>(param, velocity, grad, n, lr, momentum);
  BENCH_CUDA_CHECK_LAUNCH(sgd_momentum_kernel);
}

void launch_select_batch(const float* inputs, const int* labels, int features, int batch, int num_batches,
                         const int* counter, int fixed_index, float* x, int* y, cudaStream_t s) {
  const std::size_t n = static_cast<std::size_t>(features) * static_cast<std::size_t>(batch);
  const unsigned blocks = std::min(blocks_for(n), 1024u);
  select_batch_kernel<<<blocks, kThreads, 0, s>>>(inputs, labels, features, batch, num_batches, counter, fixed_index, x,
                                                  y);
  BENCH_CUDA_CHECK_LAUNCH(select_batch_kernel);
}

void launch_advance_batch(int* counter, int num_batches, cudaStream_t s) {
  advance_batch_kernel<<<1, 1, 0, s>>>(counter, num_batches);
  BENCH_CUDA_CHECK_LAUNCH(advance_batch_kernel);
}

void launch_fill(float* x, float value, std::size_t n, cudaStream_t s) {
  fill_kernel<<<blocks_for(n), kThreads, 0, s>>>(x, value, n);
  BENCH_CUDA_CHECK_LAUNCH(fill_kernel);
}

}  // namespace bench_mps::kernels
