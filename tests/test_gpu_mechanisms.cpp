// The mechanisms beyond N identical processes, on a real GPU (label gpu; skipped where no GPU is
// visible): N instances in one process (streams, threads, green contexts), the filler holding its
// target load, the memory-bound triad near the DRAM's peak, an MPS client over its pinned memory
// limit, and the interference scenario end to end.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <thread>

#include "harness/gpu/monitor.hpp"
#include "harness/gpu/nvml.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/results/co_run.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

class GpuMechanisms : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no GPU visible";
    ASSERT_EQ(live_mps_process_count(), 0) << "an MPS daemon is already running";
    checked_ = true;  // a test skipped above started nothing: whatever MPS processes run are not its
  }
  void TearDown() override {
    if (checked_) {
      EXPECT_EQ(live_mps_process_count(), 0) << "a daemon was left behind";
    }
  }
  bool checked_ = false;

  void need_mps() {
    if (harness::find_mps_control().empty()) GTEST_SKIP() << "nvidia-cuda-mps-control not on PATH";
  }

  /// Runs bench_mps; `expect_rc` its exit code. The summary rows by run id.
  std::map<std::string, harness::SummaryRecord> sweep(const std::vector<std::string>& extra, int expect_rc = 0) {
    std::vector<std::string> args{"--repeats", "1", "--out", (tmp / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_program(bench_mps_exe(), args, {}, 300);
    EXPECT_EQ(r.exit_code, expect_rc) << r.err;
    std::map<std::string, harness::SummaryRecord> rows;
    for (const auto& row : harness::read_summary(tmp / "out" / "summary.csv")) rows[row.run_id] = row;
    return rows;
  }
  std::vector<harness::WorkerRecord> workers() const { return harness::read_runs(tmp / "out" / "runs.csv"); }

  TempDir tmp;
};

// Seed 003/004's alternatives to N processes: 4 spin instances in one process run side by side.
TEST_F(GpuMechanisms, StreamsAndThreadsRunFourSpinInstancesSideBySide) {
  const auto rows = sweep({"--workloads", "spin", "--modes", "streams,threads", "--procs", "1,4", "--tasks", "20"});
  for (const char* mode : {"streams", "threads"}) {
    const auto& n4 = rows.at(std::string("r1-") + mode + "-spin-n4");
    ASSERT_EQ(n4.status, "ok") << n4.reason;
    EXPECT_LE(n4.slowdown_vs_alone, 1.15) << mode << ": per-task time of 4 instances vs one";
    RecordProperty(std::string(mode) + "_n4_vs_alone", std::to_string(n4.slowdown_vs_alone));
  }
  std::map<std::string, std::set<long>> pids;
  for (const auto& w : workers()) pids[w.run_id].insert(w.pid);
  EXPECT_EQ(pids.at("r1-threads-spin-n4").size(), 1u);
}

// Green contexts split the SMs in two: both halves run at once, and each counts only its own SMs.
TEST_F(GpuMechanisms, GreenContextsSplitTheSmsAndBothHalvesRunSideBySide) {
  const auto rows = sweep({"--workloads", "spin", "--modes", "green", "--procs", "1,2", "--tasks", "20"});
  const auto& n2 = rows.at("r1-green-spin-n2");
  ASSERT_EQ(n2.status, "ok") << n2.reason;
  EXPECT_LE(n2.slowdown_vs_alone, 1.15);
  RecordProperty("green_n2_vs_alone", std::to_string(n2.slowdown_vs_alone));
  int device_sms = 0;
  for (const auto& w : workers())
    if (w.run_id == "r1-green-spin-n2") {
      EXPECT_GT(w.sm_count_seen, 0);
      device_sms += static_cast<int>(w.sm_count_seen);
    }
  EXPECT_GT(device_sms, 0);
  const auto meta = harness::read_meta(tmp / "out");
  if (meta["gpu"].contains("sm_count") && meta["gpu"]["sm_count"].is_number()) {
    EXPECT_LE(device_sms, meta["gpu"]["sm_count"].get<int>()) << "the halves' SMs are disjoint";
  }
}

// Seed 002's filler holds its target share of the time busy, as NVML reads it over the timed window.
TEST_F(GpuMechanisms, FillerHoldsItsTargetLoad) {
  for (int target : {30, 90}) {
    const auto rows = sweep({"--workloads", "filler", "--modes", "timeslice", "--procs", "1", "--filler-target",
                             std::to_string(target), "--duration", "2"});
    fs::remove_all(tmp / "out");
    const auto& r = rows.at("r1-timeslice-filler-n1");
    ASSERT_EQ(r.status, "ok") << r.reason;
    if (std::isnan(r.gpu_util_mean)) GTEST_SKIP() << "NVML gave no utilisation samples";
    EXPECT_NEAR(r.gpu_util_mean, target / 100.0, 0.05) << "target " << target;
  }
}

// The memory-bound triad reaches most of the DRAM's peak alone.
TEST_F(GpuMechanisms, MembwReachesSeventyPercentOfPeakAlone) {
  sweep({"--workloads", "membw", "--modes", "timeslice", "--procs", "1", "--duration", "0.5"});
  const auto w = workers();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_GE(w[0].fact("share_of_peak"), 0.70) << w[0].facts;
}

// A client over its pinned device memory limit fails with a status that says so, and nothing hangs.
TEST_F(GpuMechanisms, ClientOverItsPinnedMemoryLimitIsNamed) {
  need_mps();
  const auto rows = sweep({"--workloads", "membw", "--membw-mib", "512", "--modes", "mps+mem=1G", "--procs", "1",
                           "--duration", "0.2", "--timeout", "60"},
                          1);
  EXPECT_EQ(rows.at("r1-mps+mem=1G-membw-n1").status, "mps_mem_limit") << rows.at("r1-mps+mem=1G-membw-n1").reason;
}

// The interference scenario on the GPU: a latency-critical inference stream beside two fillers.
TEST_F(GpuMechanisms, InterferenceRunsAndTimeSlicingHurtsTheForeground) {
  need_mps();
  const auto rows =
      sweep({"--scenario", "interference", "--procs", "3", "--modes", "timeslice,mps:auto", "--duration", "1"});
  const auto& ts = rows.at("r1-timeslice-mlp-infer-n3-interference");
  const auto& limited = rows.at("r1-mps:auto-mlp-infer-n3-interference");
  ASSERT_EQ(ts.status, "ok") << ts.reason;
  ASSERT_EQ(limited.status, "ok") << limited.reason;
  EXPECT_GT(ts.fg_p99_vs_alone, 2) << "time-sliced, each request waits for the fillers' slices";
  EXPECT_LT(limited.fg_p99_vs_alone, ts.fg_p99_vs_alone);
  EXPECT_GT(limited.bg_throughput_kept, 0);
  // Jobs of one --duration run side by side: every filler ran throughout (almost all of) the foreground's span.
  for (const auto* r : {&ts, &limited})
    EXPECT_GE(r->fg_overlap, harness::kMinCoRunCoverage) << r->run_id << ": " << r->reason;
}

// The X-ray on the GPU: two contexts that always have work take turns in slices time-sliced, each
// running about half the time, and a short step beside them waits for the other's slice; under MPS
// both run all the time and nothing waits.
TEST_F(GpuMechanisms, XrayTimeSlicesTwoBusyContextsAndNotUnderMps) {
  need_mps();
  const auto rows = sweep({"--scenario", "xray", "--procs", "2", "--xray-busy-ms", "200"});
  const auto& ts = rows.at("r1-timeslice-xray-n2-xray_busy");
  const auto& mps = rows.at("r1-mps-xray-n2-xray_busy");
  ASSERT_EQ(ts.status, "ok") << ts.reason;
  ASSERT_EQ(mps.status, "ok") << mps.reason;
  EXPECT_GT(ts.xray_slice_ms, 0.1);
  EXPECT_NEAR(ts.xray_on_share, 0.5, 0.1);
  EXPECT_GT(mps.xray_on_share, 0.9);
  EXPECT_TRUE(std::isnan(mps.xray_slice_ms)) << "no slices under MPS";
  EXPECT_GT(rows.at("r1-timeslice-xray-n2-xray_wait").xray_wait_ms, 0.5 * ts.xray_slice_ms);
  EXPECT_LT(rows.at("r1-mps-xray-n2-xray_wait").xray_wait_ms, 0.1);
}

// One regime point end to end: short bursts at a high duty cycle cost time-sliced far more than MPS.
TEST_F(GpuMechanisms, RegimePointOfShortBurstsCostsTimeSlicingMoreThanMps) {
  need_mps();
  const auto rows = sweep({"--scenario", "regimes", "--procs", "4", "--regime-bursts-ms", "0.1", "--regime-duties",
                           "75", "--xray-busy-ms", "100"});
  const auto& ts = rows.at("r1-timeslice-duty-n4-regime-b0.1ms-d75");
  const auto& mps = rows.at("r1-mps-duty-n4-regime-b0.1ms-d75");
  ASSERT_EQ(ts.status, "ok") << ts.reason;
  ASSERT_EQ(mps.status, "ok") << mps.reason;
  EXPECT_GT(ts.slowdown_vs_alone, 2.0);
  EXPECT_LT(mps.slowdown_vs_alone, 1.3);
  EXPECT_NEAR(ts.burst_alone_ms, 0.1, 0.03);
  EXPECT_NEAR(ts.duty_alone, 0.75, 0.1);
}

// The sweep's GPM window (main thread) and the Monitor's GPM ticker (its thread) at once, as every profiled run has
// them: a SIGSEGV inside nvmlGpmSampleGet ended bench_mps between two runs of a profiled sweep
// (results/2026-12-02-mpscal-worker/logs); every GPM call is now made by one thread at a time (harness/gpu/nvml.cpp).
// Windows as short as the driver allows beside a ticker at 1 ms, for 5 s: thousands of samples each side.
TEST(GpuNvml, GpmWindowsBesideTheMonitorsTickerDoNotMeet) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU visible";
  std::string why;
  const std::unique_ptr<harness::Nvml> nvml = harness::Nvml::open(why);
  ASSERT_NE(nvml, nullptr) << why;
  if (const std::string no = nvml->gpm_unavailable(); !no.empty()) GTEST_SKIP() << "no GPM: " << no;
  int windows = 0;
  {
    harness::Monitor monitor(nvml.get(), std::chrono::milliseconds(1), true);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < until) {
      ASSERT_TRUE(nvml->gpm_begin());
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      nvml->gpm_end();
      ++windows;
    }
    EXPECT_EQ(monitor.gpm_error(), "");
    EXPECT_EQ(monitor.error(), "");
  }
  EXPECT_GT(windows, 1000);
}

}  // namespace
}  // namespace bench_mps::testing
