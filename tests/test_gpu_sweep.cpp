// bench_mps end to end on a real GPU with a real MPS daemon (label gpu; skipped where no GPU is
// visible or nvidia-cuda-mps-control is missing): workers really become MPS clients, the seed
// effect shows (time-slicing multiplies the per-task time, MPS does not), no daemon is left.
#include <gtest/gtest.h>

#include <map>

#include "harness/mps_session.hpp"
#include "harness/results_reader.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

class GpuSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no GPU visible";
    if (harness::find_mps_control().empty()) GTEST_SKIP() << "nvidia-cuda-mps-control not on PATH";
    ASSERT_EQ(live_mps_process_count(), 0) << "an MPS daemon is already running";
  }
  void TearDown() override { EXPECT_EQ(live_mps_process_count(), 0) << "a daemon was left behind"; }

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

}  // namespace
}  // namespace bench_mps::testing
