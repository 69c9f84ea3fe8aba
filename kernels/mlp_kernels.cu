#include "kernels/mlp_kernels.cuh"

#include "kernels/cuda_check.hpp"

namespace bench_mps::kernels {
namespace {

constexpr int kThreads = 256;

int blocks_for(long long n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

__global__ void bias_activation_kernel(float* z, const float* bias, int rows, long long n, bool relu) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float v = z[i] + bias[i % rows];
  z[i] = relu ? fmaxf(v, 0.0f) : v;
}

__global__ void softmax_xent_kernel(const float* logits, const int* labels, int classes, int cols,
                                    float* dlogits, float* loss) {
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

__global__ void relu_backward_kernel(float* grad, const float* activation, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && activation[i] <= 0.0f) grad[i] = 0.0f;
}

__global__ void sgd_momentum_kernel(float* param, float* velocity, const float* grad, int n, float lr,
                                    float momentum) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = momentum * velocity[i] + grad[i];
  velocity[i] = v;
  param[i] -= lr * v;
}

__global__ void fill_kernel(float* x, float value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

}  // namespace

void launch_bias_activation(float* z, const float* bias, int rows, int cols, bool relu, cudaStream_t s) {
  const long long n = static_cast<long long>(rows) * cols;
  bias_activation_kernel<<<blocks_for(n), kThreads, 0, s>>>(z, bias, rows, n, relu);
  BENCH_CUDA_CHECK_LAUNCH(bias_activation_kernel);
}

void launch_softmax_xent(const float* logits, const int* labels, int classes, int cols, float* dlogits,
                         float* loss, cudaStream_t s) {
  softmax_xent_kernel<<<blocks_for(cols), kThreads, 0, s>>>(logits, labels, classes, cols, dlogits, loss);
  BENCH_CUDA_CHECK_LAUNCH(softmax_xent_kernel);
}

void launch_relu_backward(float* grad, const float* activation, int n, cudaStream_t s) {
  relu_backward_kernel<<<blocks_for(n), kThreads, 0, s>>>(grad, activation, n);
  BENCH_CUDA_CHECK_LAUNCH(relu_backward_kernel);
}

void launch_sgd_momentum(float* param, float* velocity, const float* grad, int n, float lr, float momentum,
                         cudaStream_t s) {
  sgd_momentum_kernel<<<blocks_for(n), kThreads, 0, s>>>(param, velocity, grad, n, lr, momentum);
  BENCH_CUDA_CHECK_LAUNCH(sgd_momentum_kernel);
}

void launch_fill(float* x, float value, int n, cudaStream_t s) {
  fill_kernel<<<blocks_for(n), kThreads, 0, s>>>(x, value, n);
  BENCH_CUDA_CHECK_LAUNCH(fill_kernel);
}

}  // namespace bench_mps::kernels
