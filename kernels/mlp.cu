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

namespace {
// cuBLAS's workspace. cuBLAS recommends 32 MiB on Hopper for its largest kernels; the GEMMs of an
// MNIST-sized MLP use far less, and 4 MiB keeps the footprint of N workers small.
constexpr std::size_t kCublasWorkspaceBytes = 4u << 20;
}  // namespace

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
  DeviceBuffer<float> batch_x;          // the current batch, in0 x batch (a fixed address for the graph)
  DeviceBuffer<int> batch_y, batch_counter;
  DeviceBuffer<unsigned char> cublas_workspace;  // cuBLAS's, set explicitly so capture allocates nothing
  cudaGraphExec_t step_graph = nullptr;
  std::vector<DeviceBuffer<float>> activations;  // per layer: out x batch (the last holds logits)
  std::vector<DeviceBuffer<float>> deltas;       // per layer: dLoss/dZ, out x batch
  float* loss_host = nullptr;                    // pinned

  explicit Impl(const MlpParams& p) : params(p) {}

  ~Impl() {  // best effort in a destructor: nothing to report to
    if (step_graph) cudaGraphExecDestroy(step_graph);
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
    if (params.steps_per_task < 1) throw std::invalid_argument("mlp: need at least 1 step per task");
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
    BENCH_CUBLAS_CHECK(cublasSetStream(cublas, stream));  // (resets the workspace: set it after)
    cublas_workspace = DeviceBuffer<unsigned char>(kCublasWorkspaceBytes);
    BENCH_CUBLAS_CHECK(cublasSetWorkspace(cublas, cublas_workspace.get(), cublas_workspace.bytes()));
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
    batch_x = DeviceBuffer<float>(static_cast<std::size_t>(in(0)) * params.batch);
    batch_y = DeviceBuffer<int>(params.batch);
    batch_counter = DeviceBuffer<int>(1);
    BENCH_CUDA_CHECK(cudaMemsetAsync(batch_counter.get(), 0, batch_counter.bytes(), stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (params.launch == MlpLaunch::graph) capture_step();
  }

  /// Records one training step (enqueue_step) into step_graph; nothing runs until it is launched.
  void capture_step() {
    BENCH_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t graph = nullptr;
    try {
      enqueue_step();
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);  // leave the stream usable; the first error is the one to report
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    BENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    const cudaError_t instantiated = cudaGraphInstantiate(&step_graph, graph, 0);
    cudaGraphDestroy(graph);
    BENCH_CUDA_CHECK(instantiated);
    BENCH_CUDA_CHECK(cudaGraphUpload(step_graph, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  /// One training step on the batch the device counter points at, then the counter moves on.
  void enqueue_step() {
    launch_select_batch(inputs.get(), labels.get(), in(0), params.batch, num_batches, batch_counter.get(), -1,
                        batch_x.get(), batch_y.get(), stream);
    forward_backward();
    launch_sgd_momentum(params_dev.get(), velocity.get(), grads.get(), static_cast<int>(layout.total),
                        params.learning_rate, params.momentum, stream);
    launch_advance_batch(batch_counter.get(), num_batches, stream);
  }

  /// Forward and backward on the batch in batch_x / batch_y.
  void forward_backward() {
    const int b = params.batch;
    const float one = 1.0f, zero = 0.0f;
    const float* x = batch_x.get();
    const int* y = batch_y.get();
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
  if (m.step_graph)
    BENCH_CUDA_CHECK(cudaGraphLaunch(m.step_graph, m.stream));
  else
    m.enqueue_step();
  ++m.step_count;
  if (m.params.read_loss) return m.copy_loss();
  BENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  return std::numeric_limits<float>::quiet_NaN();
}

float MlpTrainer::compute_gradients(int batch_index) {
  if (batch_index < 0 || batch_index >= impl_->num_batches)
    throw std::out_of_range("mlp: batch index " + std::to_string(batch_index) + " out of range");
  Impl& m = *impl_;
  launch_select_batch(m.inputs.get(), m.labels.get(), m.in(0), m.params.batch, m.num_batches, m.batch_counter.get(),
                      batch_index, m.batch_x.get(), m.batch_y.get(), m.stream);
  m.forward_backward();
  return m.copy_loss();
}

float MlpTrainer::last_loss() const { return impl_->copy_loss(); }
std::vector<float> MlpTrainer::parameters() const { return impl_->download(impl_->params_dev); }
std::vector<float> MlpTrainer::gradients() const { return impl_->download(impl_->grads); }
long MlpTrainer::steps() const { return impl_->step_count; }
void* MlpTrainer::native_stream() const { return impl_->stream; }

std::size_t MlpTrainer::device_bytes() const {
  const Impl& m = *impl_;
  std::size_t total = m.inputs.bytes() + m.labels.bytes() + m.params_dev.bytes() + m.grads.bytes() +
                      m.velocity.bytes() + m.ones.bytes() + m.loss.bytes() + m.batch_x.bytes() + m.batch_y.bytes() +
                      m.batch_counter.bytes() + m.cublas_workspace.bytes();
  for (const auto& a : m.activations) total += a.bytes();
  for (const auto& d : m.deltas) total += d.bytes();
  return total;
}

namespace {

class MlpWorkload final : public Workload {
 public:
  explicit MlpWorkload(const MlpParams& params)
      : trainer_(std::make_unique<MlpTrainer>(params)), steps_per_task_(params.steps_per_task) {}

  void setup() override { trainer_->setup(); }

  void run_task() override {
    for (int k = 0; k < steps_per_task_; ++k) {
      trainer_->step();
      if (trainer_->steps() == 1) first_loss_ = trainer_->last_loss();
    }
  }

  std::size_t device_bytes() const override { return trainer_->device_bytes(); }

  WorkloadFacts facts() const override {
    return {{"steps", static_cast<double>(trainer_->steps())},
            {"loss_first", first_loss_},
            {"loss_last", trainer_->last_loss()}};
  }

 private:
  std::unique_ptr<MlpTrainer> trainer_;
  int steps_per_task_;
  double first_loss_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace

std::unique_ptr<Workload> make_mlp_workload(const MlpParams& params) {
  return std::make_unique<MlpWorkload>(params);
}

}  // namespace bench_mps::kernels
