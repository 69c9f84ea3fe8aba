// GPU tests of the workloads in this process (label gpu; skipped where no GPU is visible):
// MLP gradients against a double-precision CPU reference, the MLP really learns, the spin kernel
// lasts the time it was asked for, and the regime's burst and busy share are what the workloads ran.
// cuBLAS, loaded at run time, loads without a GPU too.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "kernels/cublas_library.hpp"
#include "kernels/duty.hpp"
#include "kernels/mlp.hpp"
#include "kernels/mlp_data.hpp"
#include "kernels/spin.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

using namespace kernels;

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no GPU visible";
  }
};

/// Forward and backward pass of the mlp in double precision, the GPU's layout and conventions.
struct ReferenceResult {
  double loss = 0;
  std::vector<double> grads;
};

ReferenceResult reference_gradients(const MlpParams& p, const std::vector<float>& flat, int batch_index) {
  const MlpDataset data = make_mlp_dataset(p);
  const MlpLayout layout = mlp_layout(p.layers);
  const int layers = static_cast<int>(p.layers.size()) - 1;
  const int b = p.batch;
  using Matrix = std::vector<double>;  // rows x b, column-major
  std::vector<Matrix> act(layers + 1);
  act[0].resize(static_cast<std::size_t>(p.layers[0]) * b);
  for (int c = 0; c < b; ++c)
    for (int r = 0; r < p.layers[0]; ++r)
      act[0][r + c * p.layers[0]] = data.inputs[static_cast<std::size_t>(batch_index * b + c) * p.layers[0] + r];
  for (int l = 0; l < layers; ++l) {
    const int in = p.layers[l], out = p.layers[l + 1];
    act[l + 1].assign(static_cast<std::size_t>(out) * b, 0.0);
    for (int c = 0; c < b; ++c)
      for (int r = 0; r < out; ++r) {
        double z = flat[layout.bias_offset[l] + r];
        for (int k = 0; k < in; ++k) z += flat[layout.weight_offset[l] + r + k * out] * act[l][k + c * in];
        act[l + 1][r + c * out] = (l + 1 < layers) ? std::max(z, 0.0) : z;
      }
  }
  ReferenceResult res;
  res.grads.assign(layout.total, 0.0);
  const int classes = p.layers.back();
  Matrix delta(static_cast<std::size_t>(classes) * b);
  for (int c = 0; c < b; ++c) {
    const double* z = &act[layers][static_cast<std::size_t>(c) * classes];
    double zmax = z[0];
    for (int k = 1; k < classes; ++k) zmax = std::max(zmax, z[k]);
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(z[k] - zmax);
    const double log_sum = std::log(sum) + zmax;
    const int label = data.labels[batch_index * b + c];
    res.loss += (log_sum - z[label]) / b;
    for (int k = 0; k < classes; ++k) delta[k + c * classes] = (std::exp(z[k] - log_sum) - (k == label)) / b;
  }
  for (int l = layers - 1; l >= 0; --l) {
    const int in = p.layers[l], out = p.layers[l + 1];
    for (int r = 0; r < out; ++r)
      for (int c = 0; c < b; ++c) {
        const double d = delta[r + c * out];
        res.grads[layout.bias_offset[l] + r] += d;
        for (int k = 0; k < in; ++k) res.grads[layout.weight_offset[l] + r + k * out] += d * act[l][k + c * in];
      }
    if (l == 0) break;
    Matrix prev(static_cast<std::size_t>(in) * b, 0.0);
    for (int c = 0; c < b; ++c)
      for (int k = 0; k < in; ++k) {
        if (act[l][k + c * in] <= 0) continue;
        double s = 0;
        for (int r = 0; r < out; ++r) s += flat[layout.weight_offset[l] + r + k * out] * delta[r + c * out];
        prev[k + c * in] = s;
      }
    delta.swap(prev);
  }
  return res;
}

TEST_F(Gpu, MlpGradientsMatchDoublePrecisionReference) {
  MlpParams p;
  p.layers = {9, 7, 5, 4};
  p.batch = 6;
  p.dataset_size = 18;
  p.seed = 7;
  MlpTrainer trainer(p);
  trainer.setup();
  for (int batch = 0; batch < 3; ++batch) {
    const float loss = trainer.compute_gradients(batch);
    const std::vector<float> gpu = trainer.gradients();
    const ReferenceResult ref = reference_gradients(p, trainer.parameters(), batch);
    EXPECT_NEAR(loss, ref.loss, 1e-5 * std::max(1.0, ref.loss)) << "batch " << batch;
    ASSERT_EQ(gpu.size(), ref.grads.size());
    double scale = 0;
    for (double g : ref.grads) scale = std::max(scale, std::abs(g));
    ASSERT_GT(scale, 1e-4) << "the reference gradients are all ~0: the test would prove nothing";
    for (std::size_t i = 0; i < gpu.size(); ++i)
      EXPECT_NEAR(gpu[i], ref.grads[i], 1e-5 + 1e-4 * scale) << "parameter " << i << ", batch " << batch;
  }
}

TEST_F(Gpu, Seed001ProfileTrainsAndSpendsItsHostTime) {
  MlpParams p = seed001_defaults(MlpParams{});
  p.dataset_size = 6400;           // 100 steps an epoch: enough to see the loss fall, quick to build
  p.layers = {784, 512, 512, 10};  // the example's own network learns in 500 steps (the seed's point is 49 deep)
  p.host_us = 135;
  MlpTrainer trainer(p);
  trainer.setup();
  const float first = trainer.step();
  float last = first;
  for (int i = 1; i < 500; ++i) last = trainer.step();  // five epochs, reshuffled each time
  EXPECT_EQ(trainer.steps(), 500);
  EXPECT_TRUE(std::isfinite(last));
  EXPECT_LT(last, 0.5f * first) << "loss went from " << first << " to " << last;
  // host_us of busy host work per step is at least that share of the step's wall time.
  const double share = trainer.host_share();
  EXPECT_GT(share, 0.0);
  EXPECT_LT(share, 1.0);
  MlpParams none = p;
  none.host_us = 0;
  MlpTrainer bare(none);
  bare.setup();
  for (int i = 0; i < 200; ++i) bare.step();
  EXPECT_GT(share, bare.host_share()) << "host_us=" << p.host_us << " must add host time per step";
  RecordProperty("host_share_default", std::to_string(share));
  RecordProperty("host_share_zero", std::to_string(bare.host_share()));
}

class MlpLaunchModes : public Gpu, public ::testing::WithParamInterface<MlpLaunch> {};

TEST_P(MlpLaunchModes, LossFallsByHalfWithin500Steps) {
  MlpParams p;  // the default 784-512-512-10 net, batch 64
  p.read_loss = true;
  p.launch = GetParam();
  MlpTrainer trainer(p);
  trainer.setup();
  const float first = trainer.step();
  float last = first;
  for (int i = 1; i < 500; ++i) last = trainer.step();
  EXPECT_TRUE(std::isfinite(last));
  EXPECT_LT(last, 0.5f * first) << "loss went from " << first << " to " << last;
  RecordProperty("loss_first", std::to_string(first));
  RecordProperty("loss_after_500", std::to_string(last));
}

TEST_P(MlpLaunchModes, StepsCycleThroughTheBatchesInOrder) {
  MlpParams p;
  p.layers = {20, 16, 5};
  p.batch = 8;
  p.dataset_size = 32;      // 4 batches
  p.learning_rate = 1e-9f;  // the weights barely move, so a step's loss is its batch's loss
  p.momentum = 0;
  p.read_loss = true;
  p.launch = GetParam();
  MlpTrainer reference(p);
  reference.setup();
  std::vector<float> batch_loss;
  for (int b = 0; b < 4; ++b) batch_loss.push_back(reference.compute_gradients(b));
  ASSERT_GT(std::abs(batch_loss[1] - batch_loss[0]), 1e-4) << "batches alike: the test would prove nothing";

  MlpTrainer trainer(p);
  trainer.setup();
  for (int k = 0; k < 10; ++k) {
    const float loss = trainer.step();
    EXPECT_NEAR(loss, batch_loss[k % 4], 1e-5) << "step " << k;
  }
  EXPECT_EQ(trainer.steps(), 10);
}

TEST_F(Gpu, MlpGraphAndEagerTrainTheSameWeights) {
  MlpParams p;
  p.dataset_size = 256;  // 4 batches of 64: 10 steps wrap around
  std::vector<std::vector<float>> weights;
  for (MlpLaunch launch : {MlpLaunch::graph, MlpLaunch::eager}) {
    p.launch = launch;
    MlpTrainer trainer(p);
    trainer.setup();
    for (int k = 0; k < 10; ++k) trainer.step();
    weights.push_back(trainer.parameters());
  }
  ASSERT_EQ(weights[0].size(), weights[1].size());
  double moved = 0;
  const std::vector<float> initial = make_mlp_initial_parameters(p);
  for (std::size_t i = 0; i < initial.size(); ++i)
    moved = std::max(moved, std::abs(double(weights[0][i]) - initial[i]));
  ASSERT_GT(moved, 1e-4) << "training did not move the weights: the test would prove nothing";
  for (std::size_t i = 0; i < weights[0].size(); ++i)
    ASSERT_NEAR(weights[0][i], weights[1][i], 1e-6 + 1e-5 * std::abs(weights[1][i])) << "parameter " << i;
}

INSTANTIATE_TEST_SUITE_P(Launch, MlpLaunchModes, ::testing::Values(MlpLaunch::graph, MlpLaunch::eager),
                         [](const ::testing::TestParamInfo<MlpLaunch>& launch) {
                           return launch.param == MlpLaunch::graph ? "graph" : "eager";
                         });

class SpinDuration : public Gpu, public ::testing::WithParamInterface<double> {};

TEST_P(SpinDuration, WithinTenPercentOfRequested) {
  SpinParams p;
  p.launch_us = GetParam();
  p.launches = static_cast<int>(std::max(10.0, 20000.0 / p.launch_us));  // ~20 ms a task
  auto spin = make_spin_workload(p);
  spin->setup();
  spin->run_task();  // warm-up
  const int tasks = 5;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < tasks; ++i) spin->run_task();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double per_launch_us = seconds / (tasks * p.launches) * 1e6;
  EXPECT_NEAR(per_launch_us, p.launch_us, 0.10 * p.launch_us) << "asked " << p.launch_us << " us";
  RecordProperty("measured_us", std::to_string(per_launch_us));
}

INSTANTIATE_TEST_SUITE_P(Durations, SpinDuration, ::testing::Values(100.0, 500.0, 2000.0));

double fact(const WorkloadFacts& facts, const std::string& key) {
  for (const auto& [k, v] : facts)
    if (k == key) return v;
  return NAN;
}

// The burst (kernels/step_timer.cuh) of a spin task is its kernels' time: launches x launch_us.
TEST_F(Gpu, SpinTaskBurstIsItsKernelsTime) {
  SpinParams p;
  p.launches = 20;
  auto spin = make_spin_workload(p);
  spin->setup();
  spin->run_task();
  spin->begin_timed();
  for (int i = 0; i < 5; ++i) spin->run_task();
  const auto f = spin->facts();
  EXPECT_NEAR(fact(f, "burst_ms"), p.launches * p.launch_us / 1000.0, 0.10 * p.launches * p.launch_us / 1000.0);
  EXPECT_EQ(fact(f, "sync_steps"), 5) << "begin_timed resets the count";
  EXPECT_GT(fact(f, "gpu_busy_share"), 0.9) << "spin waits for nothing but its kernels";
}

// duty: its burst is fixed work that takes the time asked alone, and host work fills the step to the duty cycle.
TEST_F(Gpu, DutyBurstAndBusyShareAreWhatWasAsked) {
  for (const auto& [burst_us, duty_pct] : {std::pair{200.0, 25.0}, std::pair{2000.0, 75.0}}) {
    DutyParams p;
    p.burst_us = burst_us;
    p.host_us = duty_host_us(burst_us, duty_pct);
    p.steps_per_task = 10;
    auto duty = make_duty_workload(p);
    duty->setup();
    duty->run_task();
    duty->begin_timed();
    for (int i = 0; i < 3; ++i) duty->run_task();
    const auto f = duty->facts();
    EXPECT_NEAR(fact(f, "burst_ms"), burst_us / 1000.0, 0.15 * burst_us / 1000.0) << "burst " << burst_us << " us";
    EXPECT_NEAR(fact(f, "gpu_busy_share"), duty_pct / 100.0, 0.05) << "duty " << duty_pct << "%";
    RecordProperty("burst_ms_" + std::to_string(static_cast<int>(burst_us)), std::to_string(fact(f, "burst_ms")));
  }
}

// No GPU needed: the library loads and every entry point the workloads call resolves (it is
// loaded at run time, so a missing or too old cuBLAS would otherwise show only in an mlp run).
TEST(CublasLibrary, LoadsAndResolvesEveryEntryPoint) {
  const CublasLibrary& api = cublas();
  EXPECT_NE(api.create, nullptr);
  EXPECT_NE(api.destroy, nullptr);
  EXPECT_NE(api.set_stream, nullptr);
  EXPECT_NE(api.set_workspace, nullptr);
  EXPECT_NE(api.sgemm, nullptr);
  EXPECT_NE(api.sgemv, nullptr);
  EXPECT_STREQ(api.status_name(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
  EXPECT_EQ(&cublas(), &api) << "loaded once";
}

}  // namespace
}  // namespace bench_mps::testing
