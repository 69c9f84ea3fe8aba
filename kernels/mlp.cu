// `mlp` workload: see mlp.hpp for what it measures and what to expect.
#include "kernels/mlp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_handles.cuh"
#include "kernels/device_buffer.cuh"
#include "kernels/host_clock.hpp"
#include "kernels/mlp_data.hpp"
#include "kernels/mlp_kernels.cuh"
#include "kernels/spin.hpp"
#include "kernels/spin_kernel.cuh"
#include "kernels/step_timer.cuh"

namespace bench_mps::kernels {

namespace {
// cuBLAS's workspace. cuBLAS recommends 32 MiB on Hopper for its largest kernels; the GEMMs of an
// MNIST-sized MLP use far less, and 4 MiB keeps the footprint of N workers small.
constexpr std::size_t kCublasWorkspaceBytes = 4u << 20;

// MNIST's normalisation, as PyTorch's example applies it (transforms.Normalize((0.1307,), (0.3081,))).
constexpr float kPixelMean = 0.1307f, kPixelStd = 0.3081f;

}  // namespace

struct MlpTrainer::Impl {
  MlpParams params;
  MlpLayout layout;
  int num_layers = 0;
  int num_batches = 0;
  long step_count = 0;

  WorkStream work_stream;
  cudaStream_t stream() const { return work_stream.get(); }
  CudaEvent step_done;  // the end of the step start_step() enqueued
  CublasHandle cublas_owner;
  cublasHandle_t cublas = nullptr;
  DeviceBuffer<float> inputs, params_dev, grads, velocity, ones, loss;
  DeviceBuffer<int> labels;
  DeviceBuffer<float> batch_x;  // the current batch, in0 x batch (a fixed address for the graph)
  DeviceBuffer<int> batch_y, batch_counter;
  DeviceBuffer<unsigned char> cublas_workspace;  // cuBLAS's, set explicitly so capture allocates nothing
  CudaGraphExec step_graph;
  CudaGraphExec forward_graph;                   // inference: select the next batch, forward pass only
  std::vector<DeviceBuffer<float>> activations;  // per layer: out x batch (the last holds logits)
  std::vector<DeviceBuffer<float>> deltas;       // per layer: dLoss/dZ, out x batch
  PinnedBuffer<float> loss_host;
  // seed001: the host-resident dataset and the pinned staging buffers a batch is assembled in.
  std::vector<std::uint8_t> host_pixels;  // dim x count, one sample per column
  std::vector<int> host_labels;
  std::vector<int> order;  // this epoch's shuffled sample order
  std::size_t cursor = 0;
  std::mt19937_64 shuffle_rng;
  PinnedBuffer<float> staging_x;          // in0 x batch
  PinnedBuffer<int> staging_y;            // batch
  std::int64_t host_ns = 0, step_ns = 0;  // time on the host / in whole steps, every step
  long long extra_cycles = 0;             // the extra busy kernel of every step (extra_us)
  StepTimer step_timer{16};               // the burst: GPU time of every 16th step

  explicit Impl(const MlpParams& p) : params(p) {}

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
    if (params.profile == MlpProfile::seed001 && params.launch != MlpLaunch::eager)
      throw std::invalid_argument("mlp: the seed001 profile launches eagerly (its batch comes from the host)");
    if (!(params.host_us >= 0 && params.host_us <= 1e7))
      throw std::invalid_argument("mlp: host work per step must be in 0..1e7 us");
    if (!(params.extra_us >= 0 && params.extra_us <= 1e6))
      throw std::invalid_argument("mlp: the extra busy time per step must be in 0..1e6 us");
    if (params.extra_us > 0 && params.profile == MlpProfile::seed001)
      throw std::invalid_argument("mlp: --mlp-extra-us applies to the gpu-bound profile");
  }

  bool seed001() const { return params.profile == MlpProfile::seed001; }

  void setup() {
    validate();
    layout = mlp_layout(params.layers);
    num_layers = static_cast<int>(params.layers.size()) - 1;
    num_batches = params.dataset_size / params.batch;
    if (params.extra_us > 0) extra_cycles = spin_cycles(params.extra_us, device_clock_khz());

    work_stream.make_own_unless_placed();  // unless placed on someone else's (a green context's)
    step_done = make_event_without_timing();
    step_timer.create();
    cublas_owner = make_cublas();
    cublas = cublas_owner.get();
    BENCH_CUBLAS_CHECK(kernels::cublas().set_stream(cublas, stream()));  // (resets the workspace: set it after)
    cublas_workspace = DeviceBuffer<unsigned char>(kCublasWorkspaceBytes);
    BENCH_CUBLAS_CHECK(kernels::cublas().set_workspace(cublas, cublas_workspace.get(), cublas_workspace.bytes()));
    loss_host = make_pinned<float>(1);

    // Every upload runs on the stream the work runs on (pageable sources: the copy has finished
    // reading the host vector when cudaMemcpyAsync returns, and later work on the stream waits for it).
    MlpDataset data = make_mlp_dataset(params);
    if (seed001()) {
      keep_on_host(data);
    } else {
      inputs = DeviceBuffer<float>(data.inputs.size());
      labels = DeviceBuffer<int>(data.labels.size());
      BENCH_CUDA_CHECK(
          cudaMemcpyAsync(inputs.get(), data.inputs.data(), inputs.bytes(), cudaMemcpyHostToDevice, stream()));
      BENCH_CUDA_CHECK(
          cudaMemcpyAsync(labels.get(), data.labels.data(), labels.bytes(), cudaMemcpyHostToDevice, stream()));
    }

    const std::vector<float> initial = make_mlp_initial_parameters(params);
    params_dev = DeviceBuffer<float>(layout.total);
    grads = DeviceBuffer<float>(layout.total);
    velocity = DeviceBuffer<float>(layout.total);
    BENCH_CUDA_CHECK(
        cudaMemcpyAsync(params_dev.get(), initial.data(), params_dev.bytes(), cudaMemcpyHostToDevice, stream()));
    BENCH_CUDA_CHECK(cudaMemsetAsync(grads.get(), 0, grads.bytes(), stream()));
    BENCH_CUDA_CHECK(cudaMemsetAsync(velocity.get(), 0, velocity.bytes(), stream()));

    ones = DeviceBuffer<float>(params.batch);
    launch_fill(ones.get(), 1.0f, static_cast<std::size_t>(params.batch), stream());
    loss = DeviceBuffer<float>(1);
    for (int l = 0; l < num_layers; ++l) {
      activations.emplace_back(static_cast<std::size_t>(out(l)) * params.batch);
      deltas.emplace_back(static_cast<std::size_t>(out(l)) * params.batch);
    }
    batch_x = DeviceBuffer<float>(static_cast<std::size_t>(in(0)) * params.batch);
    batch_y = DeviceBuffer<int>(params.batch);
    batch_counter = DeviceBuffer<int>(1);
    BENCH_CUDA_CHECK(cudaMemsetAsync(batch_counter.get(), 0, batch_counter.bytes(), stream()));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream()));
    if (params.launch == MlpLaunch::graph) capture_step();
  }

  /// seed001: the dataset as MNIST ships it, uint8 pixels (the synthetic samples mapped to 0..255),
  /// and the pinned buffers each step assembles its batch in.
  void keep_on_host(const MlpDataset& data) {
    host_pixels.resize(data.inputs.size());
    for (std::size_t i = 0; i < data.inputs.size(); ++i)
      host_pixels[i] = static_cast<std::uint8_t>(std::clamp(std::lround(96.0f + 48.0f * data.inputs[i]), 0L, 255L));
    host_labels = data.labels;
    order.resize(static_cast<std::size_t>(data.count));
    std::iota(order.begin(), order.end(), 0);
    shuffle_rng.seed(params.seed + 17);
    std::shuffle(order.begin(), order.end(), shuffle_rng);
    staging_x = make_pinned<float>(batch_x_count());
    staging_y = make_pinned<int>(static_cast<std::size_t>(params.batch));
  }

  std::size_t batch_x_count() const { return static_cast<std::size_t>(in(0)) * static_cast<std::size_t>(params.batch); }

  /// seed001, on the host: the next `batch` samples of this epoch's shuffled order, pixels scaled to
  /// [0, 1] and normalised as the example's transforms do, then `host_us` of further host work.
  void assemble_batch_on_host() {
    const auto dim = static_cast<std::size_t>(in(0));
    for (int i = 0; i < params.batch; ++i) {
      if (cursor == order.size()) {  // a new epoch: reshuffle, as DataLoader(shuffle=True) does
        std::shuffle(order.begin(), order.end(), shuffle_rng);
        cursor = 0;
      }
      const auto sample = static_cast<std::size_t>(order[cursor++]);
      const std::uint8_t* px = &host_pixels[sample * dim];
      float* x = staging_x.get() + static_cast<std::size_t>(i) * dim;
      for (std::size_t d = 0; d < dim; ++d) x[d] = (static_cast<float>(px[d]) / 255.0f - kPixelMean) / kPixelStd;
      staging_y[i] = host_labels[sample];
    }
    busy_wait_us(params.host_us);
  }

  /// seed001: one whole step as the seed's loop ran it; returns the loss (read every step).
  float host_fed_step() {
    const std::int64_t t0 = host_now_ns();
    assemble_batch_on_host();
    const std::int64_t t1 = host_now_ns();
    step_timer.begin(stream());
    BENCH_CUDA_CHECK(
        cudaMemcpyAsync(batch_x.get(), staging_x.get(), batch_x.bytes(), cudaMemcpyHostToDevice, stream()));
    BENCH_CUDA_CHECK(
        cudaMemcpyAsync(batch_y.get(), staging_y.get(), batch_y.bytes(), cudaMemcpyHostToDevice, stream()));
    forward_backward();
    launch_sgd_momentum(params_dev.get(), velocity.get(), grads.get(), layout.total, params.learning_rate,
                        params.momentum, stream());
    enqueue_loss_copy();
    step_timer.end(stream());
    const float l = wait_for_loss();  // waits for the step, as loss.item() does
    step_timer.finished();
    host_ns += t1 - t0;
    step_ns += host_now_ns() - t0;
    return l;
  }

  /// Records one training step (enqueue_step) into step_graph; nothing runs until it is launched.
  void capture_step() {
    step_graph = capture([this] { enqueue_step(); });
  }

  /// Records `enqueue` into a graph ready to launch on the stream.
  template <class F>
  CudaGraphExec capture(F enqueue) {
    BENCH_CUDA_CHECK(cudaStreamBeginCapture(stream(), cudaStreamCaptureModeThreadLocal));
    cudaGraph_t raw = nullptr;
    try {
      enqueue();
    } catch (...) {
      cudaStreamEndCapture(stream(), &raw);  // leave the stream usable; the first error is the one to report
      CudaGraph discard(raw);
      throw;
    }
    BENCH_CUDA_CHECK(cudaStreamEndCapture(stream(), &raw));
    const CudaGraph graph(raw);
    cudaGraphExec_t exec = nullptr;
    BENCH_CUDA_CHECK(cudaGraphInstantiate(&exec, graph.get(), 0));
    CudaGraphExec owned(exec);
    BENCH_CUDA_CHECK(cudaGraphUpload(owned.get(), stream()));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream()));
    return owned;
  }

  /// Inference: the next batch's forward pass (logits only), then the counter moves on.
  void enqueue_forward() {
    launch_select_batch(inputs.get(), labels.get(), in(0), params.batch, num_batches, batch_counter.get(), -1,
                        batch_x.get(), batch_y.get(), stream());
    forward();
    launch_advance_batch(batch_counter.get(), num_batches, stream());
  }

  /// gpu-bound: one step enqueued (its graph, or kernel by kernel), not waited for.
  void launch_step() {
    if (step_graph)
      BENCH_CUDA_CHECK(cudaGraphLaunch(step_graph.get(), stream()));
    else
      enqueue_step();
    ++step_count;
  }

  /// One training step on the batch the device counter points at, then the counter moves on.
  void enqueue_step() {
    launch_select_batch(inputs.get(), labels.get(), in(0), params.batch, num_batches, batch_counter.get(), -1,
                        batch_x.get(), batch_y.get(), stream());
    forward_backward();
    launch_sgd_momentum(params_dev.get(), velocity.get(), grads.get(), layout.total, params.learning_rate,
                        params.momentum, stream());
    launch_advance_batch(batch_counter.get(), num_batches, stream());
    if (extra_cycles > 0) launch_spin(extra_cycles, 1, 32, stream());
  }

  /// Forward pass on the batch in batch_x: every layer's activations, logits last.
  void forward() {
    const int b = params.batch;
    const float one = 1.0f, zero = 0.0f;
    float* w = params_dev.get();
    for (int l = 0; l < num_layers; ++l) {
      const float* a_prev = l == 0 ? batch_x.get() : activations[l - 1].get();
      BENCH_CUBLAS_CHECK(kernels::cublas().sgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, out(l), b, in(l), &one, weight(w, l),
                                                 out(l), a_prev, in(l), &zero, activations[l].get(), out(l)));
      launch_bias_activation(activations[l].get(), bias(w, l), out(l), b, l + 1 < num_layers, stream());
    }
  }

  /// Forward and backward on the batch in batch_x / batch_y.
  void forward_backward() {
    const int b = params.batch;
    const float one = 1.0f, zero = 0.0f;
    const float* x = batch_x.get();
    const int* y = batch_y.get();
    float* w = params_dev.get();
    float* g = grads.get();

    forward();
    BENCH_CUDA_CHECK(cudaMemsetAsync(loss.get(), 0, sizeof(float), stream()));
    const int last = num_layers - 1;
    launch_softmax_xent(activations[last].get(), y, out(last), b, deltas[last].get(), loss.get(), stream());

    for (int l = last; l >= 0; --l) {
      const float* a_prev = l == 0 ? x : activations[l - 1].get();
      BENCH_CUBLAS_CHECK(kernels::cublas().sgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_T, out(l), in(l), b, &one,
                                                 deltas[l].get(), out(l), a_prev, in(l), &zero, weight(g, l), out(l)));
      BENCH_CUBLAS_CHECK(kernels::cublas().sgemv(cublas, CUBLAS_OP_N, out(l), b, &one, deltas[l].get(), out(l),
                                                 ones.get(), 1, &zero, bias(g, l), 1));
      if (l > 0) {
        BENCH_CUBLAS_CHECK(kernels::cublas().sgemm(cublas, CUBLAS_OP_T, CUBLAS_OP_N, in(l), b, out(l), &one,
                                                   weight(w, l), out(l), deltas[l].get(), out(l), &zero,
                                                   deltas[l - 1].get(), in(l)));
        launch_relu_backward(deltas[l - 1].get(), activations[l - 1].get(),
                             static_cast<std::size_t>(in(l)) * static_cast<std::size_t>(b), stream());
      }
    }
  }

  float copy_loss() {
    enqueue_loss_copy();
    return wait_for_loss();
  }
  void enqueue_loss_copy() {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(loss_host.get(), loss.get(), sizeof(float), cudaMemcpyDeviceToHost, stream()));
  }
  float wait_for_loss() {
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream()));
    return loss_host[0];
  }

  std::vector<float> download(const DeviceBuffer<float>& buffer) {
    std::vector<float> host(buffer.size());
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream()));
    BENCH_CUDA_CHECK(cudaMemcpy(host.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
};

MlpTrainer::MlpTrainer(const MlpParams& params) : impl_(std::make_unique<Impl>(params)) {}
MlpTrainer::~MlpTrainer() = default;

void MlpTrainer::setup() { impl_->setup(); }

void MlpTrainer::place_on_stream(void* stream) { impl_->work_stream.place_on(static_cast<cudaStream_t>(stream)); }

float MlpTrainer::step() {
  Impl& m = *impl_;
  if (m.seed001()) {
    ++m.step_count;
    return m.host_fed_step();
  }
  m.step_timer.begin(m.stream());
  m.launch_step();
  if (m.params.read_loss) m.enqueue_loss_copy();
  m.step_timer.end(m.stream());
  BENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
  m.step_timer.finished();
  return m.params.read_loss ? m.loss_host[0] : std::numeric_limits<float>::quiet_NaN();
}

void MlpTrainer::start_step() {
  Impl& m = *impl_;
  if (m.seed001() || m.params.read_loss)
    throw std::logic_error("mlp: only the gpu-bound profile without --mlp-read-loss runs asynchronously");
  m.step_timer.begin(m.stream());
  m.launch_step();
  m.step_timer.end(m.stream());
  BENCH_CUDA_CHECK(cudaEventRecord(m.step_done.get(), m.stream()));
}

bool MlpTrainer::step_finished() const {
  if (!event_done(impl_->step_done.get())) return false;
  impl_->step_timer.finished();
  return true;
}

void MlpTrainer::prepare_inference() {
  Impl& m = *impl_;
  if (m.seed001()) throw std::logic_error("mlp: inference needs the device-resident dataset (gpu-bound profile)");
  if (m.params.launch == MlpLaunch::graph) m.forward_graph = m.capture([&m] { m.enqueue_forward(); });
}

void MlpTrainer::infer() {
  Impl& m = *impl_;
  m.step_timer.begin(m.stream());
  if (m.forward_graph)
    BENCH_CUDA_CHECK(cudaGraphLaunch(m.forward_graph.get(), m.stream()));
  else
    m.enqueue_forward();
  m.step_timer.end(m.stream());
  BENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
  m.step_timer.finished();
}

float MlpTrainer::compute_gradients(int batch_index) {
  if (batch_index < 0 || batch_index >= impl_->num_batches)
    throw std::out_of_range("mlp: batch index " + std::to_string(batch_index) + " out of range");
  Impl& m = *impl_;
  if (m.seed001())
    throw std::logic_error("mlp: compute_gradients needs the device-resident dataset (gpu-bound profile)");
  launch_select_batch(m.inputs.get(), m.labels.get(), m.in(0), m.params.batch, m.num_batches, m.batch_counter.get(),
                      batch_index, m.batch_x.get(), m.batch_y.get(), m.stream());
  m.forward_backward();
  return m.copy_loss();
}

float MlpTrainer::last_loss() const { return impl_->copy_loss(); }
std::vector<float> MlpTrainer::parameters() const { return impl_->download(impl_->params_dev); }
std::vector<float> MlpTrainer::gradients() const { return impl_->download(impl_->grads); }
long MlpTrainer::steps() const { return impl_->step_count; }
double MlpTrainer::host_share() const {
  return impl_->step_ns > 0 ? static_cast<double>(impl_->host_ns) / static_cast<double>(impl_->step_ns)
                            : std::numeric_limits<double>::quiet_NaN();
}
void* MlpTrainer::native_stream() const { return impl_->stream(); }
void MlpTrainer::reset_step_timer() { impl_->step_timer.reset(); }
void MlpTrainer::add_step_facts(WorkloadFacts& facts) const { impl_->step_timer.add_facts(facts); }

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
      : trainer_(std::make_unique<MlpTrainer>(params)),
        steps_per_task_(params.steps_per_task),
        seed001_(params.profile == MlpProfile::seed001),
        read_loss_(params.read_loss) {}

  void begin_timed() override { trainer_->reset_step_timer(); }

  void setup() override {
    trainer_->setup();
    // seed001 tasks are whole epochs, too long to warm up with: a few steps load the kernels instead.
    if (seed001_)
      for (int k = 0; k < kSeed001SetupSteps; ++k) {
        trainer_->step();
        if (k == 0) first_loss_ = trainer_->last_loss();
      }
  }

  bool place_on_stream(void* stream) override {
    trainer_->place_on_stream(stream);
    return true;
  }

  void run_task() override {
    for (int k = 0; k < steps_per_task_; ++k) {
      trainer_->step();
      if (std::isnan(first_loss_)) first_loss_ = trainer_->last_loss();
    }
  }

  // Asynchronously (the streams mode): a task's steps still run one after the other, each started
  // once the one before has finished, as run_task() waits for each.
  bool supports_async() const override { return !seed001_ && !read_loss_; }
  void start_task() override {
    steps_started_ = 1;
    trainer_->start_step();
  }
  bool poll_task() override {
    if (!trainer_->step_finished()) return false;
    if (steps_started_ == steps_per_task_) return true;
    ++steps_started_;
    trainer_->start_step();
    return false;
  }

  std::size_t device_bytes() const override { return trainer_->device_bytes(); }

  WorkloadFacts facts() const override {
    WorkloadFacts f{{"steps", static_cast<double>(trainer_->steps())},
                    {"loss_first", first_loss_},
                    {"loss_last", trainer_->last_loss()}};
    if (!std::isnan(trainer_->host_share())) f.emplace_back("host_share", trainer_->host_share());
    trainer_->add_step_facts(f);
    return f;
  }

 private:
  std::unique_ptr<MlpTrainer> trainer_;
  int steps_per_task_;
  bool seed001_, read_loss_;
  int steps_started_ = 0;  // of the task start_task() began
  double first_loss_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace

std::unique_ptr<Workload> make_mlp_workload(const MlpParams& params) { return std::make_unique<MlpWorkload>(params); }

}  // namespace bench_mps::kernels
