#pragma once
// The elementwise kernels of the mlp training step (the GEMMs are cuBLAS's). All matrices are
// column-major with one sample per column. Each launcher checks its launch. Element counts are
// size_t (a layer of 65536 x 65536 has more weights than an int counts); matrix sizes stay int, as
// cuBLAS takes them.
#include <cuda_runtime.h>

#include <cstddef>

namespace bench_mps::kernels {

/// z[r, c] += bias[r]; with relu, z = max(z, 0). rows x cols.
void launch_bias_activation(float* z, const float* bias, int rows, int cols, bool relu, cudaStream_t s);
/// Per column: softmax cross-entropy of logits against labels; writes dlogits = (p - onehot) / cols
/// and adds the batch-mean loss to *loss (which the caller zeroes first).
void launch_softmax_xent(const float* logits, const int* labels, int classes, int cols, float* dlogits, float* loss,
                         cudaStream_t s);
/// grad[i] = 0 where activation[i] <= 0 (ReLU backward, in place).
void launch_relu_backward(float* grad, const float* activation, std::size_t n, cudaStream_t s);
/// velocity = momentum * velocity + grad; param -= lr * velocity.
void launch_sgd_momentum(float* param, float* velocity, const float* grad, std::size_t n, float lr, float momentum,
                         cudaStream_t s);
/// Copies batch `fixed_index` (or, if fixed_index < 0, batch *counter % num_batches) of the dataset
/// into the fixed buffers x (features x batch) and y (batch): the batch is chosen on the device, so a
/// captured training step replays unchanged.
void launch_select_batch(const float* inputs, const int* labels, int features, int batch, int num_batches,
                         const int* counter, int fixed_index, float* x, int* y, cudaStream_t s);
/// *counter = (*counter + 1) % num_batches.
void launch_advance_batch(int* counter, int num_batches, cudaStream_t s);
/// x[i] = value.
void launch_fill(float* x, float value, std::size_t n, cudaStream_t s);

}  // namespace bench_mps::kernels
