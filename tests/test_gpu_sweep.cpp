// bench_mps end to end on a real GPU with a real MPS daemon (label gpu; skipped where no GPU is
// visible or nvidia-cuda-mps-control is missing): workers really become MPS clients, the seed
// effect shows (time-slicing multiplies the per-task time, MPS does not), no daemon is left.
#include <gtest/gtest.h>

#include <iostream>

#include <map>

#include "harness/mps/mps_session.hpp"
#include "harness/results/results_reader.hpp"
#include "kernels/mlp.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

class GpuSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no GPU visible";
    if (harness::find_mps_control().empty()) GTEST_SKIP() << "nvidia-cuda-mps-control not on PATH";
    ASSERT_EQ(live_mps_process_count(), 0) << "an MPS daemon is already running";
    checked_ = true;  // a test skipped above started nothing: whatever MPS processes run are not its
  }
  void TearDown() override {
    if (checked_) {
      EXPECT_EQ(live_mps_process_count(), 0) << "a daemon was left behind";
    }
  }
  bool checked_ = false;

  std::map<std::string, harness::SummaryRecord> sweep(const std::vector<std::string>& extra) {
    std::vector<std::string> args{"--repeats", "1", "--out", (tmp / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_program(bench_mps_exe(), args, {}, 300);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, harness::SummaryRecord> rows;
    for (const auto& row : harness::read_summary(tmp / "out" / "summary.csv")) rows[row.run_id] = row;
    return rows;
  }

  TempDir tmp;
};

TEST_F(GpuSweep, WorkersAreMpsClientsExactlyUnderMps) {
  const auto rows = sweep({"--workloads", "spin,mlp", "--modes", "timeslice,mps", "--procs", "2", "--tasks", "5"});
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& [id, row] : rows) EXPECT_EQ(row.status, "ok") << id << ": " << row.reason;
  const auto workers = harness::read_runs(tmp / "out" / "runs.csv");
  ASSERT_EQ(workers.size(), 8u);
  for (const auto& w : workers) {
    EXPECT_EQ(w.mps_enabled, w.mode == "mps") << w.run_id << " worker " << w.worker;
    EXPECT_GT(w.sm_count_seen, 0);
  }
}

TEST_F(GpuSweep, TimeSlicingMultipliesPerTaskTimeMpsDoesNot) {
  const auto rows = sweep({"--workloads", "spin", "--modes", "timeslice,mps", "--procs", "1,4", "--tasks", "20"});
  const double ts = rows.at("r1-timeslice-spin-n4").slowdown_vs_alone;
  const double mps = rows.at("r1-mps-spin-n4").slowdown_vs_alone;
  EXPECT_GE(ts, 3.5) << "time-sliced N=4 per-task time vs alone";
  EXPECT_LE(mps, 1.15) << "MPS N=4 per-task time vs alone";
  RecordProperty("timeslice_n4_slowdown", std::to_string(ts));
  RecordProperty("mps_n4_slowdown", std::to_string(mps));
  // NVML's energy counter over each run (issue 34): where the run spans a few samples, a board's draw between
  // 20 W and 1.5 kW over its timed window (idle draw included).
  int with_energy = 0;
  for (const auto& [id, row] : rows) {
    if (row.makespan_s < 0.5) continue;
    ++with_energy;
    EXPECT_GT(row.energy_j, 20 * row.makespan_s) << id;
    EXPECT_LT(row.energy_j, 1500 * row.makespan_s) << id;
    std::cout << "energy: " << id << " " << row.energy_j << " J over " << row.makespan_s << " s ("
              << row.energy_j / row.makespan_s << " W; power_mean_w " << row.power_mean_w << ")\n";
  }
  EXPECT_GT(with_energy, 0) << "no run of 0.5 s or more to read the energy counter over";
}

TEST_F(GpuSweep, MlpTrainsUnderMps) {
  sweep({"--workloads", "mlp", "--modes", "mps", "--procs", "3", "--tasks", "300"});
  const auto workers = harness::read_runs(tmp / "out" / "runs.csv");
  ASSERT_EQ(workers.size(), 3u);
  for (const auto& w : workers) {
    ASSERT_EQ(w.status, "ok");
    EXPECT_TRUE(w.mps_enabled);
    EXPECT_LT(w.fact("loss_last"), 0.8 * w.fact("loss_first")) << w.facts;
  }
}

TEST_F(GpuSweep, Seed001ProfileRunsOneEpochPerWorker) {
  const auto rows = sweep({"--workloads", "mlp", "--mlp-profile", "seed001", "--mlp-dataset", "6400", "--modes",
                           "timeslice,mps", "--procs", "1,2"});
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& [id, row] : rows) {
    EXPECT_EQ(row.status, "ok") << id << ": " << row.reason;
    EXPECT_EQ(row.tasks_total, row.procs) << id << ": one task (an epoch) per worker";
    EXPECT_EQ(row.params.rfind("profile=seed001;", 0), 0u) << row.params;
  }
  for (const auto& w : harness::read_runs(tmp / "out" / "runs.csv")) {
    const long epoch = kernels::seed001_defaults(kernels::MlpParams{}).steps_per_task;
    EXPECT_EQ(w.fact("steps"), kernels::kSeed001SetupSteps + epoch)
        << "warm-up steps in setup, then one task of an epoch: " << w.facts;
    EXPECT_GT(w.fact("host_share"), 0.0) << w.facts;
  }
}

// The seed's own client (scripts/examples/mnist_train.py) through exec: every MPS copy is proven a
// client of the server, every time-sliced one runs with no server alive; every step line is read.
TEST_F(GpuSweep, ExecReferenceClientIsProvenAnMpsClient) {
  const auto torch = run_program("/bin/sh", {"-c", "python3 -c 'import torch; assert torch.cuda.is_available()'"});
  if (torch.exit_code != 0) GTEST_SKIP() << "python3 with CUDA-enabled torch is not importable here";
  const std::string script = (source_dir() / "scripts" / "examples" / "mnist_train.py").string();
  constexpr int kSamples = 6400, kScriptBatch = 64;  // --samples below; mnist_train.py's batch size
  const auto rows =
      sweep({"--workloads", "exec", "--command", "python3 " + script + " --samples " + std::to_string(kSamples),
             "--exec-metric", "step_ms=([0-9.]+)", "--modes", "timeslice,mps", "--procs", "1,2"});
  // Per mode: three alone runs (the default --exec-alone-runs: first, middle, last) and N=2.
  ASSERT_EQ(rows.size(), 8u);
  for (const char* id : {"r3-timeslice-exec-n1", "r3-mps-exec-n1", "r1-mps-exec-n2"})
    EXPECT_EQ(rows.count(id), 1u) << id;
  for (const auto& [id, row] : rows) EXPECT_EQ(row.status, "ok") << id << ": " << row.reason;
  for (const auto& w : harness::read_runs(tmp / "out" / "runs.csv")) {
    // Every step line is read; a held copy's lines printed before its release are counted apart (steps_before_release).
    EXPECT_EQ(w.fact("steps") + w.fact("steps_before_release"), kSamples / kScriptBatch) << w.facts;
    EXPECT_GT(w.fact("steps"), 0.0) << w.facts;
    EXPECT_GT(w.fact("startup_s"), 0.0) << w.facts;
    EXPECT_NE(w.facts.find(w.mode == "mps" ? "mps_proof=client_list" : "mps_proof=no_mps_server"), std::string::npos)
        << w.run_id << ": " << w.facts;
  }
}

}  // namespace
}  // namespace bench_mps::testing
