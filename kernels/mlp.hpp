#pragma once
// `mlp`: one training step of an MNIST-shaped multilayer perceptron (default 784-512-512-10, batch
// 64), the workload of the seed article that trained MNIST in 80 s alone on a P100 and needed 221 s
// for ten copies time-sliced vs 124 s under MPS. cuBLAS SGEMMs forward and backward, bias + ReLU,
// softmax cross-entropy, SGD with momentum, on synthetic but learnable data (a Gaussian mixture drawn
// from a seed), so the loss really falls.
//
// Expected behaviour: a step is a chain of ~20 small kernels, far too small to fill an H100.
// Time-sliced, N processes serialise and each step takes about N times as long; under MPS their
// kernels overlap and the aggregate throughput rises. One timed task is steps_per_task steps (10:
// about 1 ms alone), each of which waits for the device, as a training loop that reads its loss does.
//
// Profiles. `gpu-bound` (the default) keeps the dataset on the device and gathers each batch there,
// so the GPU is busy ~95% of the time with one process: time-slicing pays a context switch at every
// step and loses far more than N. `seed001` is the seed article's regime, PyTorch's MNIST example: the
// dataset (uint8 pixels) lives on the host, each step shuffles, assembles and normalises its batch on
// the CPU, spends `host_us` more on the host (the interpreter's and DataLoader's share of a Python
// step), copies the batch through pinned memory, launches eagerly and reads the loss (`loss.item()`).
// One task is one epoch (60000 samples / batch 64 = 938 steps), timed as completion. The GPU then
// idles while the host works, and time-slicing has gaps to fill: MPS gains less.
//
// Launch (gpu-bound): by default a step is captured once as a CUDA graph and replayed (MlpLaunch::graph), as
// training loops with CUDA graphs do. Launched kernel by kernel (MlpLaunch::eager) a step is bound by
// the CPU's launch cost, which on the measured VMs differs by 20-40% from one process to the next
// (docs/NOISE.md); the graph takes that cost out of the measurement. Either way the batch is gathered
// on the device from a step counter, so both do the same GPU work.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/workload.hpp"

namespace bench_mps::kernels {

enum class MlpLaunch { graph, eager };
enum class MlpProfile { gpu_bound, seed001 };

struct MlpParams {
  std::vector<int> layers{784, 512, 512, 10};  ///< input, hidden..., classes
  int batch = 64;
  float learning_rate = 0.01f;
  float momentum = 0.9f;
  int dataset_size = 4096;  ///< synthetic samples, cycled through batch by batch
  std::uint64_t seed = 1;
  bool read_loss = false;               ///< copy the loss to the host after every step, as training loops do
  MlpLaunch launch = MlpLaunch::graph;  ///< replay each step as one CUDA graph, or launch kernel by kernel
  int steps_per_task = 10;              ///< training steps one timed task runs (each waits for the device)
  MlpProfile profile = MlpProfile::gpu_bound;
  double host_us = 0;   ///< seed001: host work per step beyond assembling the batch, microseconds
  double extra_us = 0;  ///< gpu-bound: an extra one-block busy kernel of this length in every step
};

/// seed001: training steps setup() runs before the timed epochs (cuBLAS heuristics, first-touch).
inline constexpr int kSeed001SetupSteps = 5;

/// `base` with the seed001 profile's defaults (inline: the harness, which links no CUDA, uses it too).
inline MlpParams seed001_defaults(MlpParams p) {
  p.profile = MlpProfile::seed001;
  p.dataset_size = 60000;  // MNIST's training set
  p.batch = 64;            // the example's --batch-size
  p.steps_per_task = 938;  // one epoch: ceil(60000 / 64)
  p.launch = MlpLaunch::eager;
  p.read_loss = true;  // loss.item()
  // The seed's point (docs/SEED001.md): its own numbers give an 8.53 ms step (80 s for 10 epochs of
  // 938), and at N=10 time-sliced 23.6 ms per step per copy, ten turns of burst + switch: a burst of
  // ~2.2 ms, a duty cycle of ~26%. 49 hidden layers of 512 at batch 64 run a 2.2 ms burst of small
  // kernels on an H200 (scripts/device_check.sh calib001); the host work fills the step to 8.53 ms.
  p.layers = {784};
  p.layers.insert(p.layers.end(), 49, 512);
  p.layers.push_back(10);
  p.host_us = 6280;
  return p;
}

/// One MLP on the current device, with its own stream and cuBLAS handle.
class MlpTrainer {
 public:
  explicit MlpTrainer(const MlpParams& params);
  ~MlpTrainer();
  MlpTrainer(const MlpTrainer&) = delete;
  MlpTrainer& operator=(const MlpTrainer&) = delete;

  /// Run on `stream` (a cudaStream_t, e.g. a green context's) instead of a stream of its own; before setup().
  void place_on_stream(void* stream);
  /// Allocates, uploads the dataset and the initial parameters.
  void setup();
  /// gpu-bound, without read_loss: enqueues the next training step and returns at once; step_finished()
  /// says when it is done. The same device work as step().
  void start_step();
  bool step_finished() const;
  /// After setup(): captures the forward pass (graph launch) for infer().
  void prepare_inference();
  /// Inference on the next batch: the forward pass only (no loss, no update); waits for the device.
  void infer();
  /// Forward, backward and SGD update on the next batch; waits for the device. Returns the batch's
  /// loss if read_loss is set, else NaN.
  float step();
  /// Forward and backward only on batch `batch_index` (no update); returns the loss.
  float compute_gradients(int batch_index);
  /// Loss of the most recent step or gradient computation (copies it to the host).
  float last_loss() const;
  /// Flat parameters and gradients: for each layer W (out x in, column-major) then b (out).
  std::vector<float> parameters() const;
  std::vector<float> gradients() const;
  std::size_t device_bytes() const;
  long steps() const;
  /// seed001: fraction of the steps' wall time spent on the host (assembly + host_us), else NaN.
  double host_share() const;
  /// The cudaStream_t all of this trainer's work runs on (as void*, to keep CUDA out of this header).
  void* native_stream() const;
  /// The burst of its steps (step(), start_step(), infer()): every 16th step's GPU time, from here on
  /// (kernels/step_timer.cuh); add_step_facts() adds burst_ms, bursts_timed, sync_steps, gpu_busy_share.
  void reset_step_timer();
  void add_step_facts(WorkloadFacts& facts) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::unique_ptr<Workload> make_mlp_workload(const MlpParams& params);

}  // namespace bench_mps::kernels
