// MPS contention, calibrated (issue 45 item 2; harness/predict/mps_calibration.hpp): the arbiter's factor between
// calibrated points, a calibration pair reproduced by the arbiter, a real exec sweep of CPU-only copies (their unit
// known: 1 ms alone, 1.5 ms at every N) with a committed MPS profile alone read back and fitted, predict with it, and
// every bad calibration one line and exit 2 with nothing written; the worker's shapes (worker_shape.sh) as copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/common/csv_table.hpp"
#include "harness/common/packed_files.hpp"
#include "harness/predict/mps_calibration.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/simulate/replay.hpp"
#include "tests/exec_fixture.hpp"

namespace bench_mps::testing {
namespace {

namespace fs = std::filesystem;
using harness::ContentionPoint;
using harness::MpsModel;

/// A copy that is always on the GPU: `steps` steps of one item of 1 ms asking for `sm` of the SMs, no host between.
harness::CopyTrace busy_trace(double sm, int steps = 60) {
  harness::CopyTrace t;
  for (int k = 0; k < steps; ++k) {
    harness::TraceStep s;
    s.items.push_back({0, 1e6, sm});
    t.steps.push_back(s);
  }
  t.steady_from = 5;
  t.steady_to = static_cast<std::size_t>(steps - 5);
  t.dropped_step = t.steps.size();
  return t;
}

TEST(MpsContention, OnePieceOrNoPointsIsTheShareModelAndPointsAreHitExactly) {
  MpsModel m;
  EXPECT_DOUBLE_EQ(m.factor(4, 0.5, 0), 1) << "no calibration";
  m.contention = {{2, 0.6, 0, 1.4}, {2, 2.0, 0.2, 1.1}, {4, 1.2, 0, 2.0}};
  EXPECT_DOUBLE_EQ(m.factor(1, 0.6, 0), 1) << "one piece runs as alone";
  EXPECT_DOUBLE_EQ(m.factor(2, 0.6, 0), 1.4);
  EXPECT_DOUBLE_EQ(m.factor(2, 2.0, 0.2), 1.1);
  const double between = m.factor(2, 1.3, 0.1);
  EXPECT_GT(between, 1.1);
  EXPECT_LT(between, 1.4) << "inverse-distance weighted between the two points of its count";
  EXPECT_LT(m.factor(2, 0.05, 0), 1.05) << "near sums (0, 0) the factor nears 1: nothing asked, nothing met";
  EXPECT_DOUBLE_EQ(m.factor(2, 0, 0), 1);
  EXPECT_DOUBLE_EQ(m.factor(10, 1.2, 0), 2.0) << "past the largest count: the largest's at the sums";
  MpsModel from_four;
  from_four.contention = {{4, 1.2, 0, 2.5}};
  EXPECT_DOUBLE_EQ(from_four.factor(2, 0.6, 0), 1 + (1.2 * 2.5 - 1) / 3)
      << "the slowdown from 1 at one piece up to 1.2 x 2.5 at 4, a third of the way";
}

TEST(MpsContention, TheSlowdownCannotFallWithTheCount) {
  // A launch-bound shape's fit gave N=2 a larger factor than N=4 (results/2026-12-02-mpscal-check: the ladder's
  // N=4 predicted below its N=2); more pieces of one ask are held at the slowdown fewer of them get.
  MpsModel m;
  m.contention = {{2, 0.6, 0, 3.0}, {4, 1.2, 0, 1.5}, {10, 3.0, 0, 1.2}};
  EXPECT_DOUBLE_EQ(m.factor(2, 0.6, 0), 3.0) << "a point itself";
  EXPECT_DOUBLE_EQ(m.factor(4, 1.2, 0), 3.0 / 1.2) << "N=4's own 1.5 x 1.2 held at N=2's slowdown, 3.0";
  EXPECT_DOUBLE_EQ(m.factor(10, 3.0, 0), 1.2) << "3.0 x 1.2 = 3.6: above the held 3.0, its own";
  EXPECT_DOUBLE_EQ(m.factor(3, 0.9, 0), 3.0 / 1.0) << "between two counts held alike: 3.0";
  EXPECT_DOUBLE_EQ(m.factor(7, 2.1, 0), (3.0 + 0.6 * 0.5) / 2.1) << "slowdown linear from 3.0 at 4 to 3.6 at 10";
  EXPECT_DOUBLE_EQ(m.factor(16, 4.8, 0), (1 / 23.04 + 1.2 / 3.24) / (1 / 23.04 + 1 / 3.24))
      << "past the largest: its points at the sums (above its held slowdown over the shares, 3.6 / 4.8)";
  for (double each : {0.05, 0.3, 0.6, 1.0})
    for (int n = 2; n < 16; ++n) {
      const auto slowdown = [&](int k) { return std::max(1.0, k * each) * m.factor(k, k * each, 0); };
      EXPECT_LE(slowdown(n), slowdown(n + 1) + 1e-12) << "n " << n << ", each piece " << each;
      EXPECT_GE(slowdown(n), 1 - 1e-12) << "never faster than alone";
    }
  MpsModel fast;  // a fit under the share model (a memory-bound shape took 1.5x, not 2x, at N=2) stays its own
  fast.contention = {{2, 0, 2.0, 0.75}, {4, 0, 4.0, 0.375}};
  EXPECT_DOUBLE_EQ(fast.factor(2, 0, 2.0), 0.75);
  EXPECT_DOUBLE_EQ(fast.factor(4, 0, 4.0), 0.375) << "4 x 0.375 = 1.5: as slow as N=2, not faster";
}

TEST(MpsContention, ACalibrationPairIsReproducedByTheArbiter) {
  const harness::CopyTrace t = busy_trace(0.3);
  EXPECT_NEAR(harness::mps_replay_ratio(t, 2, MpsModel{}), 1.0, 1e-9) << "0.6 of the SMs: room for both";
  EXPECT_NEAR(harness::mps_replay_ratio(t, 4, MpsModel{}), 1.2, 1e-9) << "1.2 of the SMs: shared out";
  MpsModel m;
  m.contention = {{2, 0.6, 0, 1.4}};
  EXPECT_NEAR(harness::mps_replay_ratio(t, 2, m), 1.4, 1e-9) << "the measured pair, replayed";
  EXPECT_NEAR(harness::mps_replay_ratio(t, 1, m), 1.0, 1e-12) << "alone is alone";
}

class MpsCalibrationSweep : public ExecSweep {
 protected:
  /// The calibration sweep under MPS: each copy prints 1 ms alone and 1.5 ms at N >= 2; N = 1, 2, 4. The run alone
  /// gets membw's MPS profile from the study (an H100's), as if the shape had been profiled.
  void calibrate(const fs::path& to) {
    const auto r = run_program(bench_mps_exe(),
                               {"--workloads", "exec", "--repeats", "1", "--settle", "0", "--exec-alone-runs", "1",
                                "--out", to.string(), "--command",
                                "echo $$ >> \"$CUDA_MPS_PIPE_DIRECTORY/clients\"; sleep 1; "
                                "if [ \"$BENCH_MPS_PROCS\" = 1 ]; then echo '1.0 ms each'; else echo '1.5 ms each'; fi",
                                "--exec-metric", "([0-9.]+) ms each", "--procs", "1,2,4", "--modes", "mps"},
                               env, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string alone;
    for (const auto& row : harness::read_summary(to / "summary.csv"))
      if (row.procs == 1) alone = row.run_id;
    ASSERT_FALSE(alone.empty());
    const fs::path w0 = to / "profiles" / alone / "w0";
    fs::create_directories(w0);
    fs::copy_file(study() / "membw" / "alone" / "profiles" / "r1-mps-exec-n1" / "w0" / "profile-5094.json.gz",
                  w0 / "profile-5094.json.gz");
  }
  CommandOutput predict(const fs::path& calibration, const fs::path& to) {
    return run_program(bench_mps_exe(), {"predict", (study() / "gemm" / "alone").string(), "--xray",
                                         (study() / "xray").string(), "--procs", "2,4", "--phases", "0",
                                         "--mps-calibration", calibration.string(), "--out", to.string()});
  }
};

TEST_F(MpsCalibrationSweep, EachShapeAtNIsFittedUntilTheArbiterReproducesItAndPredictUsesIt) {
  calibrate(tmp / "cal" / "membwshape");
  const harness::MpsCalibration c = harness::read_mps_calibration(tmp / "cal", 20);
  ASSERT_EQ(c.points.size(), 2u) << "N = 2 and 4 of one shape";
  EXPECT_FALSE(c.gpu.empty()) << "the profile names its GPU";
  for (const harness::MpsCalibrationPoint& p : c.points) {
    EXPECT_EQ(p.shape, "membwshape");
    EXPECT_DOUBLE_EQ(p.measured, 1.5);
    EXPECT_EQ(p.copies, p.procs);
    EXPECT_NEAR(p.reproduced, 1.5, 0.015) << "N=" << p.procs << ": the fitted factor replays the measured value";
    EXPECT_GT(p.sm, 0);
  }
  EXPECT_LT(c.worst_fit(), 0.01);
  EXPECT_EQ(harness::read_mps_calibration(tmp / "cal" / "membwshape", 20).points.size(), 2u) << "one sweep alone";

  const auto with = predict(tmp / "cal", tmp / "with");
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_NE(with.out.find("MPS contention (--mps-calibration"), std::string::npos) << with.out;
  const auto without = run_program(
      bench_mps_exe(), {"predict", (study() / "gemm" / "alone").string(), "--xray", (study() / "xray").string(),
                        "--procs", "2,4", "--phases", "0", "--out", (tmp / "without").string()});
  ASSERT_EQ(without.exit_code, 0) << without.err;
  std::map<std::string, std::string> w, wo;  // "mode N basis" -> predicted
  for (const auto& row : csv_records(tmp / "with" / "predict.csv"))
    w[row.at("mode") + " " + row.at("procs") + " " + row.at("basis")] = row.at("predicted");
  for (const auto& row : csv_records(tmp / "without" / "predict.csv"))
    wo[row.at("mode") + " " + row.at("procs") + " " + row.at("basis")] = row.at("predicted");
  EXPECT_EQ(w.at("timeslice 2 unit"), wo.at("timeslice 2 unit")) << "time-slicing is not MPS's calibration's";
  EXPECT_NE(w.at("mps 2 unit"), wo.at("mps 2 unit"));
  const nlohmann::json j = nlohmann::json::parse(read_text(tmp / "with" / "predict.json"));
  ASSERT_TRUE(j.contains("mps_calibration"));
  EXPECT_EQ(j["mps_calibration"]["points"].size(), 2u);
  EXPECT_FALSE(nlohmann::json::parse(read_text(tmp / "without" / "predict.json")).contains("mps_calibration"));
}

TEST_F(MpsCalibrationSweep, TheWorkersShapesRunAsCopiesUnderMpsAndGiveTheirMeanStep) {
  // scripts/mps_calibration/worker_shape.sh as the mpscal step runs it (the worker's CPU stand-in for its kernels):
  // every copy's unit is the mean of its timed steps, read by the step's --exec-metric.
  const fs::path script = source_dir() / "scripts" / "mps_calibration" / "worker_shape.sh";
  Env with_worker = env;
  with_worker.set.emplace_back("BENCH_WORKER", bench_worker_exe().string());
  const auto r =
      run_program(bench_mps_exe(),
                  {"--workloads", "exec", "--repeats", "1", "--settle", "0", "--exec-alone-runs", "1", "--out",
                   (tmp / "fma").string(), "--command",
                   // the fake MPS server lists the copy as its client (tests/fakes)
                   "echo $$ >> \"$CUDA_MPS_PIPE_DIRECTORY/clients\"; " + script.string() + " fma8 0.3 --cpu-stand-in",
                   "--exec-metric", "([0-9.]+) ms each", "--procs", "1,2", "--modes", "mps"},
                  with_worker, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto runs = harness::read_runs(tmp / "fma" / "runs.csv");
  ASSERT_EQ(runs.size(), 3u);
  for (const harness::WorkerRecord& w : runs) {
    EXPECT_EQ(w.status, harness::RunStatus::ok) << w.run_id;
    // the stand-in's step: 10 bursts of 200 us of CPU work, then its sync (a few ms, not seconds)
    EXPECT_GT(w.fact("step_mean_ms"), 1.9) << w.run_id;
    EXPECT_LT(w.fact("step_mean_ms"), 100) << w.run_id;
  }
  for (const std::string bad : {"gemm8", "fma0", "mem-1", "fma100001", "fma99999999999999999999", "\"\"", "fma8 nan",
                                "fma8 inf", "fma8 -1", "fma8 0.01", "fma8 601", "fma8 \"\"", "fma8 1e3"}) {
    const auto b = run_program("/bin/sh", {"-c", "'" + script.string() + "' " + bad}, with_worker, 30);
    EXPECT_EQ(b.exit_code, 2) << bad << ": " << b.err;
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << bad << ": " << b.err;
    EXPECT_TRUE(b.out.empty()) << bad;
  }
  Env no_worker = env;
  no_worker.set.emplace_back("BENCH_WORKER", (tmp / "none").string());
  const auto missing = run_program("/bin/sh", {"-c", "'" + script.string() + "' fma8"}, no_worker, 30);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no worker at"), std::string::npos) << missing.err;
}

TEST_F(MpsCalibrationSweep, ABadCalibrationIsOneLineAndExitTwoWithNothingWritten) {
  calibrate(tmp / "cal" / "shape");
  std::vector<CommandOutput> bad;
  // Not there; a folder of no sweep; a sweep whose run alone has no profile; another GPU's; beside --measure.
  bad.push_back(predict(tmp / "nowhere", tmp / "p1"));
  EXPECT_NE(bad.back().err.find("--mps-calibration " + (tmp / "nowhere").string() + ": no such folder"),
            std::string::npos)
      << bad.back().err;
  fs::create_directories(tmp / "empty");
  bad.push_back(predict(tmp / "empty", tmp / "p2"));
  EXPECT_NE(bad.back().err.find("neither a sweep"), std::string::npos) << bad.back().err;
  fs::copy(tmp / "cal" / "shape", tmp / "noprofile", fs::copy_options::recursive);
  fs::remove_all(tmp / "noprofile" / "profiles");
  bad.push_back(predict(tmp / "noprofile", tmp / "p3"));
  EXPECT_NE(bad.back().err.find("has no GPU profile"), std::string::npos) << bad.back().err;
  for (const auto& f : fs::recursive_directory_iterator(tmp / "cal"))
    if (f.path().extension() == ".gz") {
      const std::string text = harness::read_gzip_text(f.path());
      nlohmann::json p = nlohmann::json::parse(text);
      p["devices"][0]["name"] = "Some Other GPU";
      fs::remove(f.path());
      write_text(f.path().parent_path() / f.path().stem(), p.dump());
      break;
    }
  bad.push_back(predict(tmp / "cal", tmp / "p4"));
  EXPECT_NE(bad.back().err.find("calibrated on Some Other GPU; the program ran on"), std::string::npos)
      << bad.back().err;
  bad.push_back(
      run_program(bench_mps_exe(), {"predict", "--measure", out().string(), "--mps-calibration", out().string()}));
  EXPECT_NE(bad.back().err.find("--mps-calibration: does not apply to --measure"), std::string::npos) << bad.back().err;
  for (int i = 1; i <= 4; ++i) EXPECT_FALSE(fs::exists(tmp / ("p" + std::to_string(i))));
  for (const CommandOutput& r : bad) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace bench_mps::testing
