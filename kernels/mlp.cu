// `mlp` workload: see mlp.hpp for what it measures and what to expect.
#include "kernels/mlp.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.hpp"
#include "kernels/device_buffer.cuh"
#include "kernels/mlp_data.hpp"
#include "kernels/mlp_kernels.cuh"

namespace bench_mps::kernels {

struct MlpTrainer::Impl {
  MlpParams params;
  MlpLayout layout;
  int num_layers = 0;
  int num_batches = 0;
  long step_count = 0;

  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  DeviceBuffer<float> inputs, params_dev, grads, velocity, ones, loss;
  DeviceBuffer<int> labels;
  std::vector<DeviceBuffer<float>> activations;  // per layer: out x batch (the last holds logits)
  std::vector<DeviceBuffer<float>> deltas;       // per layer: dLoss/dZ, out x batch
  float* loss_host = nullptr;                    // pinned

  explicit Impl(const MlpParams& p) : params(p) {}

  ~Impl() {  // best effort in a destructor: nothing to report to
    if (loss_host) cudaFreeHost(loss_host);
    if (cublas) cublasDestroy(cublas);
    if (stream) cudaStreamDestroy(stream);
  }

  int in(int l) const { return params.layers[l]; }
  int out(int l) const { return params.layers[l + 1]; }
  float* weight(float* base, int l) const { return base + layout.weight_offset[l]; }
  float* bias(float* base, int l) const { return base + layout.bias_offset[l]; }

  void validate() const {
    if (params.layers.size() < 2) throw std::invalid_argument("mlp: need at least 2 layer sizes");
    for (int size : params.layers)
      if (size <= 0) throw std::invalid_argument("mlp: layer sizes must be positive");
    if (params.layers.back() < 2) throw std::invalid_argument("mlp: need at least 2 classes");
    if (params.batch <= 0 || params.dataset_size < params.batch)
      throw std::invalid_argument("mlp: need 0 < batch <= dataset size");
  }

  void setup() {
    validate();
    layout = mlp_layout(params.layers);
    num_layers = static_cast<int>(params.layers.size()) - 1;
    num_batches = params.dataset_size / params.batch;

    BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    BENCH_CUBLAS_CHECK(cublasCreate(&cublas));
    BENCH_CUBLAS_CHECK(cublasSetStream(cublas, stream));
    BENCH_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&loss_host), sizeof(float)));

    const MlpDataset data = make_mlp_dataset(params);
    inputs = DeviceBuffer<float>(data.inputs.size());
    labels = DeviceBuffer<int>(data.labels.size());
    BENCH_CUDA_CHECK(cudaMemcpy(inputs.get(), data.inputs.data(), inputs.bytes(), cudaMemcpyHostToDevice));
    BENCH_CUDA_CHECK(cudaMemcpy(labels.get(), data.labels.data(), labels.bytes(), cudaMemcpyHostToDevice));

    const std::vector<float> initial = make_mlp_initial_parameters(params);
    params_dev = DeviceBuffer<float>(layout.total);
    grads = DeviceBuffer<float>(layout.total);
    velocity = DeviceBuffer<float>(layout.total);
    BENCH_CUDA_CHECK(cudaMemcpy(params_dev.get(), initial.data(), params_dev.bytes(), cudaMemcpyHostToDevice));
    BENCH_CUDA_CHECK(cudaMemset(grads.get(), 0, grads.bytes()));
    BENCH_CUDA_CHECK(cudaMemset(velocity.get(), 0, velocity.bytes()));

    ones = DeviceBuffer<float>(params.batch);
    launch_fill(ones.get(), 1.0f, params.batch, stream);
    loss = DeviceBuffer<float>(1);
    for (int l = 0; l < num_layers; ++l) {
      activations.emplace_back(static_cast<std::size_t>(out(l)) * params.batch);
      deltas.emplace_back(static_cast<std::size_t>(out(l)) * params.batch);
    }
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void forward_backward(int batch_index) {
    const int b = params.batch;
    const float one = 1.0f, zero = 0.0f;
    const float* x = inputs.get() + static_cast<std::size_t>(batch_index) * b * in(0);
    const int* y = labels.get() + static_cast<std::size_t>(batch_index) * b;
    float* w = params_dev.get();
    float* g = grads.get();

    for (int l = 0; l < num_layers; ++l) {
      const float* a_prev = l == 0 ? x : activations[l - 1].get();
      BENCH_CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, out(l), b, in(l), &one, weight(w, l),
                                     out(l), a_prev, in(l), &zero, activations[l].get(), out(l)));
      launch_bias_activation(activations[l].get(), bias(w, l), out(l), b, l + 1 < num_layers, stream);
    }
    BENCH_CUDA_CHECK(cudaMemsetAsync(loss.get(), 0, sizeof(float), stream));
    const int last = num_layers - 1;
    launch_softmax_xent(activations[last].get(), y, out(last), b, deltas[last].get(), loss.get(), stream);

    for (int l = last; l >= 0; --l) {
      const float* a_prev = l == 0 ? x : activations[l - 1].get();
      BENCH_CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_T, out(l), in(l), b, &one, deltas[l].get(),
                                     out(l), a_prev, in(l), &zero, weight(g, l), out(l)));
      BENCH_CUBLAS_CHECK(cublasSgemv(cublas, CUBLAS_OP_N, out(l), b, &one, deltas[l].get(), out(l), ones.get(), 1,
                                     &zero, bias(g, l), 1));
      if (l > 0) {
        BENCH_CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_T, CUBLAS_OP_N, in(l), b, out(l), &one, weight(w, l),
                                       out(l), deltas[l].get(), out(l), &zero, deltas[l - 1].get(), in(l)));
        launch_relu_backward(deltas[l - 1].get(), activations[l - 1].get(), in(l) * b, stream);
      }
    }
  }

  float copy_loss() {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(loss_host, loss.get(), sizeof(float), cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    return *loss_host;
  }

  std::vector<float> download(const DeviceBuffer<float>& buffer) {
    std::vector<float> host(buffer.size());
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    BENCH_CUDA_CHECK(cudaMemcpy(host.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
};

MlpTrainer::MlpTrainer(const MlpParams& params) : impl_(std::make_unique<Impl>(params)) {}
MlpTrainer::~MlpTrainer() = default;

void MlpTrainer::setup() { impl_->setup(); }

float MlpTrainer::step() {
  Impl& m = *impl_;
  m.forward_backward(static_cast<int>(m.step_count % m.num_batches));
  launch_sgd_momentum(m.params_dev.get(), m.velocity.get(), m.grads.get(), static_cast<int>(m.layout.total),
                      m.params.learning_rate, m.params.momentum, m.stream);
  ++m.step_count;
  if (m.params.read_loss) return m.copy_loss();
  BENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  return std::numeric_limits<float>::quiet_NaN();
}

float MlpTrainer::compute_gradients(int batch_index) {
  if (batch_index < 0 || batch_index >= impl_->num_batches)
    throw std::out_of_range("mlp: batch index " + std::to_string(batch_index) + " out of range");
  impl_->forward_backward(batch_index);
  return impl_->copy_loss();
}

float MlpTrainer::last_loss() const { return impl_->copy_loss(); }
std::vector<float> MlpTrainer::parameters() const { return impl_->download(impl_->params_dev); }
std::vector<float> MlpTrainer::gradients() const { return impl_->download(impl_->grads); }
long MlpTrainer::steps() const { return impl_->step_count; }
void* MlpTrainer::native_stream() const { return impl_->stream; }

std::size_t MlpTrainer::device_bytes() const {
  const Impl& m = *impl_;
  std::size_t total = m.inputs.bytes() + m.labels.bytes() + m.params_dev.bytes() + m.grads.bytes() +
                      m.velocity.bytes() + m.ones.bytes() + m.loss.bytes();
  for (const auto& a : m.activations) total += a.bytes();
  for (const auto& d : m.deltas) total += d.bytes();
  return total;
}

namespace {

class MlpWorkload final : public Workload {
 public:
  explicit MlpWorkload(const MlpParams& params) : trainer_(std::make_unique<MlpTrainer>(params)) {}

  void setup() override { trainer_->setup(); }

  void run_task() override {
    trainer_->step();
    if (trainer_->steps() == 1) first_loss_ = trainer_->last_loss();
  }

  std::size_t device_bytes() const override { return trainer_->device_bytes(); }

  WorkloadFacts facts() const override {
    return {{"steps", static_cast<double>(trainer_->steps())},
            {"loss_first", first_loss_},
            {"loss_last", trainer_->last_loss()}};
  }

 private:
  std::unique_ptr<MlpTrainer> trainer_;
  double first_loss_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace

std::unique_ptr<Workload> make_mlp_workload(const MlpParams& params) {
  return std::make_unique<MlpWorkload>(params);
}

}  // namespace bench_mps::kernels
