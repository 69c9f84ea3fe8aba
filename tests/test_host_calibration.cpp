// The host calibration (issue 45 item 3; harness/predict/host_calibration.hpp): a real exec sweep of CPU-only
// copies whose printed unit is known (time-sliced N ms at N copies, MPS 1.5 ms at every N) read back into h(mode, N),
// and predict with it: the copies' host stretched by h, h in predict.csv and predict.json, and every bad
// calibration one line and exit 2 with nothing written.
#include <gtest/gtest.h>

#include <regex>

#include <cmath>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/common/csv_table.hpp"
#include "harness/predict/host_calibration.hpp"
#include "tests/exec_fixture.hpp"

namespace bench_mps::testing {
namespace {

namespace fs = std::filesystem;

fs::path membw_alone() { return source_dir() / "results" / "2026-11-27-predict-study" / "membw" / "alone"; }
fs::path study_xray() { return study() / "xray"; }

class HostCalibrationSweep : public ExecSweep {
 protected:
  /// The calibration sweep: time-sliced each copy prints N ms (h = N), under MPS 1.5 ms (h = 1); N = 1, 2, 4. An
  /// MPS copy lists itself with the fake daemon and lives a second, so it is polled as a client on a loaded machine too.
  void calibrate() {
    const auto r =
        sweep({"--command",
               "if [ \"$BENCH_MPS_MODE\" = mps ]; then echo $$ >> \"$CUDA_MPS_PIPE_DIRECTORY/clients\"; sleep 1; "
               "echo '1.5 ms each'; "
               "else echo \"$BENCH_MPS_PROCS.0 ms each\"; fi",
               "--exec-metric", "([0-9.]+) ms each", "--procs", "1,2,4", "--modes", "timeslice,mps"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  /// Sets the calibration's CPU to the one the H100 profiles of the study name (this machine's is another).
  void same_cpu_as_the_study() {
    nlohmann::json meta = nlohmann::json::parse(read_text(out() / "meta.json"));
    meta["host"]["cpu_model"] =
        nlohmann::json::parse(read_text(membw_alone() / "meta.json"))["host"]["cpu_model"].get<std::string>();
    write_text(out() / "meta.json", meta.dump(1));
  }
  CommandOutput predict(const fs::path& calibration, const fs::path& to) {
    return run_program(bench_mps_exe(),
                       {"predict", membw_alone().string(), "--xray", study_xray().string(), "--procs", "2,4,8",
                        "--phases", "0", "--host-calibration", calibration.string(), "--out", to.string()});
  }
};

TEST_F(HostCalibrationSweep, EachModesCopiesAtNOverItsRunsAloneLinearBetweenAndHeldPastTheLargest) {
  calibrate();
  const harness::HostCalibration c = harness::read_host_calibration(out());
  ASSERT_EQ(c.factors.size(), 4u) << "two N >= 2 in two modes";
  EXPECT_NE(c.command.find("ms each"), std::string::npos) << c.command;
  EXPECT_FALSE(c.cpu.empty()) << "meta.json names this machine's CPU";
  using harness::ModeKind;
  EXPECT_DOUBLE_EQ(c.at(ModeKind::timeslice, 1), 1);
  EXPECT_DOUBLE_EQ(c.at(ModeKind::timeslice, 2), 2);
  EXPECT_DOUBLE_EQ(c.at(ModeKind::timeslice, 3), 3) << "linear in N between 2 and 4";
  EXPECT_DOUBLE_EQ(c.at(ModeKind::timeslice, 4), 4);
  EXPECT_DOUBLE_EQ(c.at(ModeKind::timeslice, 10), 4) << "past the largest calibrated N: the largest's";
  EXPECT_DOUBLE_EQ(c.at(ModeKind::mps, 4), 1);
  for (const harness::HostFactor& f : c.factors) {
    EXPECT_EQ(f.alone_runs, 1) << "--exec-alone-runs 1";
    EXPECT_EQ(f.copies, f.procs) << "every copy ok";
  }
}

TEST_F(HostCalibrationSweep, PredictStretchesTheCopiesHostAndSaysByHowMuch) {
  calibrate();
  same_cpu_as_the_study();
  const auto with = predict(out(), tmp / "with");
  ASSERT_EQ(with.exit_code, 0) << with.err;
  const auto without =
      run_program(bench_mps_exe(), {"predict", membw_alone().string(), "--xray", study_xray().string(), "--procs",
                                    "2,4,8", "--phases", "0", "--out", (tmp / "without").string()});
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_NE(with.out.find("The host (--host-calibration"), std::string::npos) << with.out;
  EXPECT_NE(with.out.find("time-sliced N=2 2.000x, N=4 4.000x; MPS N=2 1.000x, N=4 1.000x"), std::string::npos)
      << with.out;
  EXPECT_EQ(without.out.find("The host (--host-calibration"), std::string::npos);
  std::map<std::string, std::map<std::string, std::string>> w, wo;  // "mode N basis" -> row
  for (const auto& row : csv_records(tmp / "with" / "predict.csv"))
    w[row.at("mode") + " " + row.at("procs") + " " + row.at("basis")] = row;
  for (const auto& row : csv_records(tmp / "without" / "predict.csv"))
    wo[row.at("mode") + " " + row.at("procs") + " " + row.at("basis")] = row;
  ASSERT_EQ(w.size(), 12u);
  EXPECT_EQ(w.at("timeslice 2 unit").at("host_factor"), "2");
  EXPECT_EQ(w.at("timeslice 8 unit").at("host_factor"), "4") << "past N=4: the largest's";
  EXPECT_EQ(w.at("mps 4 unit").at("host_factor"), "1");
  EXPECT_EQ(wo.at("timeslice 4 unit").at("host_factor"), "1");
  // membw is GPU-bound: a slower host moves its time-sliced cells a little either way (copies launch later, and so
  // interleave otherwise: the replay is not monotone in the host), but moves them; MPS (h = 1) is the same prediction.
  int moved = 0;
  for (const char* cell : {"timeslice 2 unit", "timeslice 4 unit", "timeslice 8 unit", "timeslice 8 run"})
    moved += w.at(cell).at("predicted") != wo.at(cell).at("predicted");
  EXPECT_GE(moved, 3);
  EXPECT_EQ(w.at("mps 4 unit").at("predicted"), wo.at("mps 4 unit").at("predicted"));
  const nlohmann::json j = nlohmann::json::parse(read_text(tmp / "with" / "predict.json"));
  ASSERT_TRUE(j.contains("host_calibration"));
  EXPECT_EQ(j["host_calibration"]["factors"].size(), 4u);
  EXPECT_FALSE(nlohmann::json::parse(read_text(tmp / "without" / "predict.json")).contains("host_calibration"));
}

TEST_F(HostCalibrationSweep, ABadCalibrationIsOneLineAndExitTwoWithNothingWritten) {
  calibrate();
  // This machine's CPU is not the one the study's H100 profiles ran on.
  nlohmann::json meta = nlohmann::json::parse(read_text(out() / "meta.json"));
  meta["host"]["cpu_model"] = "Some Other CPU 9000";
  write_text(out() / "meta.json", meta.dump(1));
  auto r = predict(out(), tmp / "p1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("calibrated on Some Other CPU 9000; the program ran on"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "p1"));
  // A folder that is no sweep; a sweep without a unit (no --exec-metric); beside --measure.
  fs::create_directories(tmp / "empty");
  r = predict(tmp / "empty", tmp / "p2");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--host-calibration"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "p2"));
  const auto plain =
      run_program(bench_mps_exe(),
                  {"--workloads", "exec", "--repeats", "1", "--settle", "0", "--exec-alone-runs", "1", "--command",
                   "true", "--procs", "1,2", "--modes", "timeslice", "--out", (tmp / "plain").string()},
                  env, 120);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  r = predict(tmp / "plain", tmp / "p3");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no ok run alone and at N >= 2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "p3"));
  // A damaged unit (copies at N=2 at 1e308 ms a step): refused, not a host factor of inf carried into predictions.
  same_cpu_as_the_study();
  fs::copy(out(), tmp / "damaged", fs::copy_options::recursive);
  const std::string runs = read_text(tmp / "damaged" / "runs.csv");
  write_text(tmp / "damaged" / "runs.csv",
             std::regex_replace(runs, std::regex("step_mean_ms=2([;,\"])"), "step_mean_ms=1e308$1"));
  ASSERT_NE(read_text(tmp / "damaged" / "runs.csv"), runs);
  r = predict(tmp / "damaged", tmp / "p4");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("N=2 took 1e+308 ms a step"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "p4"));
  r = run_program(bench_mps_exe(), {"predict", "--measure", out().string(), "--host-calibration", out().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--host-calibration: does not apply to --measure"), std::string::npos) << r.err;
  for (const std::string& err : {r.err}) EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

}  // namespace
}  // namespace bench_mps::testing
