#pragma once
// The elementwise kernels of the mlp training step (the GEMMs are cuBLAS's). All matrices are
// column-major with one sample per column. Each launcher checks its launch.
#include <cuda_runtime.h>

namespace bench_mps::kernels {

/// z[r, c] += bias[r]; with relu, z = max(z, 0). rows x cols.
void launch_bias_activation(float* z, const float* bias, int rows, int cols, bool relu, cudaStream_t s);
/// Per column: softmax cross-entropy of logits against labels; writes dlogits = (p - onehot) / cols
/// and adds the batch-mean loss to *loss (which the caller zeroes first).
void launch_softmax_xent(const float* logits, const int* labels, int classes, int cols, float* dlogits,
                         float* loss, cudaStream_t s);
/// grad[i] = 0 where activation[i] <= 0 (ReLU backward, in place).
void launch_relu_backward(float* grad, const float* activation, int n, cudaStream_t s);
/// velocity = momentum * velocity + grad; param -= lr * velocity.
void launch_sgd_momentum(float* param, float* velocity, const float* grad, int n, float lr, float momentum,
                         cudaStream_t s);
/// x[i] = value.
void launch_fill(float* x, float value, int n, cudaStream_t s);

}  // namespace bench_mps::kernels
