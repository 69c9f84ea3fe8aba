#pragma once
// The exec workload's sweeps, for test_exec and test_exec_hostile: CPU-only shell commands stand in
// for the user's program and the fake nvidia-cuda-mps-control for MPS.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "harness/results/results_reader.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {

class ExecSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(live_mps_process_count(), 0) << "an MPS daemon is already running on this machine";
    env = fake_mps_env(tmp / "journal.log");
    env.set.emplace_back("TMPDIR", tmp.path().string());
  }
  void TearDown() override { EXPECT_EQ(live_mps_process_count(), 0) << "a daemon was left behind"; }

  fs::path out() const { return tmp / "out"; }
  /// bench_mps --workloads exec --repeats 1 --settle 0 --out out() EXTRA..., with --exec-alone-runs 1 unless EXTRA
  /// sets it: one run per configuration, as these tests count them (tests of the alone runs set it).
  std::vector<std::string> sweep_args(const std::vector<std::string>& extra) const {
    std::vector<std::string> a{"--workloads", "exec", "--repeats", "1", "--settle", "0", "--out", out().string()};
    if (std::find(extra.begin(), extra.end(), "--exec-alone-runs") == extra.end())
      a.insert(a.end(), {"--exec-alone-runs", "1"});
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  CommandOutput sweep(const std::vector<std::string>& extra) {
    return run_program(bench_mps_exe(), sweep_args(extra), env, 120);
  }
  std::map<std::string, harness::SummaryRecord> summary() const {
    std::map<std::string, harness::SummaryRecord> rows;
    for (const auto& r : harness::read_summary(out() / "summary.csv")) rows[r.run_id] = r;
    return rows;
  }
  std::string worker_status(const std::string& run_id, int worker) const {
    for (const auto& w : harness::read_runs(out() / "runs.csv"))
      if (w.run_id == run_id && w.worker == worker) return to_string(w.status) + ": " + w.reason;
    return "missing";
  }

  TempDir tmp;
  Env env;
};

}  // namespace bench_mps::testing
