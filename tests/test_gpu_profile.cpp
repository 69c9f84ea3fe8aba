// --profile-gpu on a real GPU (label gpu; skipped where no GPU is visible): exec runs bench_worker's
// `duty` workload, a program whose regime is known (1 ms of GPU work, then 1 ms of host work per step:
// duty 50%, bursts of 1 ms), and the profile of the unmodified program must find it. The worker's own
// CUDA-event measurement (its DONE line's burst_ms and gpu_busy_share) is the reference.
// Tolerances: the profile's duty within 0.05 of the worker's and 0.10 of the nominal 50%; its burst p50
// within 10% of the worker's burst_ms (events span a little launch overhead that CUPTI's kernel times
// do not). Its host waits: the worker synchronises once per step (cudaStreamSynchronize), so the steady
// part holds as many waits as steps (its bursts split at 20 us idle: the 1 ms of host work between
// them), within 5%, a wait-to-wait step within 5% of the worker's step time, and the device work per
// wait within 10% of the worker's burst. The profiler's cost: the step time with and without it,
// printed, and under 10% here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/mps/mps_session.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/profile_window.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

constexpr int kSteps = 600;

/// The duty workload through the worker's own protocol: GO on stdin, then kSteps steps.
std::string duty_command() {
  return "echo GO | '" + bench_worker_exe().string() +
         "' --workload duty --duty-burst-us 1000 --duty-host-us 1000 --tasks " + std::to_string(kSteps) + " --warmup 5";
}

/// The worker's DONE summary from a copy's kept stdout.
nlohmann::json done_line(const fs::path& stdout_file) {
  std::ifstream in(stdout_file);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("DONE ", 0) == 0) return nlohmann::json::parse(line.substr(5));
  return nullptr;
}

class GpuProfile : public ::testing::Test {
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

  /// One exec sweep of the duty command into `out`; the runs' rows.
  std::vector<harness::WorkerRecord> sweep(const fs::path& out, const std::vector<std::string>& extra,
                                           const Env& env = {}) {
    std::vector<std::string> args{"--workloads", "exec",           "--command", duty_command(), "--repeats",
                                  "1",           "--exec-warmups", "0",         "--out",        out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_program(bench_mps_exe(), args, env, 300);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::cout << r.err;
    return harness::read_runs(out / "runs.csv");
  }

  TempDir tmp;
};

TEST_F(GpuProfile, FindsTheDutyAndBurstOfAKnownProgram) {
  const auto rows = sweep(tmp / "profiled", {"--modes", "timeslice", "--procs", "1", "--profile-gpu"});
  ASSERT_EQ(rows.size(), 1u);
  const auto& w = rows[0];
  ASSERT_EQ(w.status, "ok") << w.reason;
  const nlohmann::json done = done_line(tmp / "profiled" / "exec" / w.run_id / "w0.stdout");
  ASSERT_TRUE(done.is_object()) << "no DONE line from the worker";
  const double worker_burst_ms = done["facts"]["burst_ms"].get<double>();
  const double worker_duty = done["facts"]["gpu_busy_share"].get<double>();
  const double profiled_step_ms = done["elapsed_s"].get<double>() * 1e3 / kSteps;

  const double duty = w.fact("profile_duty"), burst = w.fact("profile_burst_p50_ms");
  std::cout << "profile: duty " << duty << " (worker " << worker_duty << ", nominal 0.5), burst p50 " << burst
            << " ms (worker " << worker_burst_ms << " ms, nominal 1), p90 " << w.fact("profile_burst_p90_ms")
            << " ms, host wait p50 " << w.fact("profile_wait_p50_ms") << " ms, fill " << w.fact("profile_fill")
            << ", kernels " << w.fact("profile_kernels") << ", contexts " << w.fact("profile_contexts")
            << ", memory peak " << w.fact("profile_mem_peak_mb") << " MiB\n";
  EXPECT_EQ(w.fact("profile_processes"), 1);
  EXPECT_NEAR(duty, worker_duty, 0.05);
  EXPECT_NEAR(duty, 0.5, 0.10);
  EXPECT_NEAR(burst, worker_burst_ms, 0.10 * worker_burst_ms);
  EXPECT_GE(w.fact("profile_kernels"), kSteps);
  EXPECT_GE(w.fact("profile_contexts"), 1);
  EXPECT_GT(w.fact("profile_fill"), 0);  // 4 blocks of 128 threads: a few percent of the GPU
  EXPECT_LT(w.fact("profile_fill"), 0.1);

  const double waits = w.fact("profile_host_waits"), steps = w.fact("profile_bursts");
  std::cout << "host waits: " << waits << " over " << steps << " steps in the steady part; a step of "
            << w.fact("profile_wait_step_ms") << " ms (worker " << profiled_step_ms << " ms), GPU "
            << w.fact("profile_wait_kernel_ms") << " ms per wait, burst " << w.fact("profile_wait_burst_ms")
            << " ms (worker " << worker_burst_ms << " ms)\n";
  ASSERT_FALSE(std::isnan(waits)) << "no host waits recorded: " << w.reason;
  EXPECT_NEAR(waits, steps, 0.05 * steps);
  EXPECT_NEAR(w.fact("profile_wait_step_ms"), profiled_step_ms, 0.05 * profiled_step_ms);
  EXPECT_NEAR(w.fact("profile_wait_kernel_ms"), worker_burst_ms, 0.10 * worker_burst_ms);
  EXPECT_NEAR(w.fact("profile_wait_burst_ms"), worker_burst_ms, 0.10 * worker_burst_ms);

  // The steady part on the harness's clock, NVML and GPM over it (docs/PROFILE.md "One clock").
  const auto files = harness::gpu_profile_files(tmp / "profiled" / "profiles", true);
  ASSERT_EQ(files.size(), 1u);
  const harness::GpuProfile p = harness::read_gpu_profile(files[0]);
  const harness::ProfileClock clock = harness::profile_clock(p);
  std::cout << "clock: " << p.monotonic_anchors.size() << " anchors, rate " << clock.rate << ", spread "
            << clock.spread_ns << " ns" << (clock.unavailable.empty() ? "" : " (" + clock.unavailable + ")")
            << "; over the steady part: NVML util " << w.fact("profile_nvml_util") << " ("
            << w.fact("profile_nvml_samples") << " samples), GPM SM util " << w.fact("profile_gpm_sm_util")
            << ", occupancy " << w.fact("profile_gpm_sm_occupancy") << ", DRAM bw "
            << w.fact("profile_gpm_dram_bw_util") << " over " << w.fact("profile_gpm_from_s") << "-"
            << w.fact("profile_gpm_to_s") << " s (" << w.fact("profile_gpm_periods") << " periods)\n";
  EXPECT_EQ(p.monotonic_anchors.size(), 2u) << p.monotonic_error;
  EXPECT_EQ(clock.unavailable, "");
  EXPECT_LT(clock.spread_ns, 100000);
  ASSERT_FALSE(std::isnan(w.fact("profile_nvml_samples"))) << w.facts;
  if (w.fact("profile_nvml_samples") > 0) {
    EXPECT_NEAR(w.fact("profile_nvml_util"), duty, 0.2) << w.facts;
  }
  if (w.fact("profile_gpm_periods") > 0) {
    EXPECT_GE(w.fact("profile_gpm_from_s"), w.fact("profile_steady_from_s")) << w.facts;
    EXPECT_LE(w.fact("profile_gpm_to_s"), w.fact("profile_steady_to_s")) << w.facts;
    EXPECT_LT(w.fact("profile_gpm_sm_util"), 0.2) << w.facts;  // 4 blocks a burst: a few SMs of the GPU
  }

  // The same program without the profiler: its cost on the step time.
  const auto plain = sweep(tmp / "plain", {"--modes", "timeslice", "--procs", "1"});
  ASSERT_EQ(plain.size(), 1u);
  const nlohmann::json plain_done = done_line(tmp / "plain" / "exec" / plain[0].run_id / "w0.stdout");
  ASSERT_TRUE(plain_done.is_object());
  const double plain_step_ms = plain_done["elapsed_s"].get<double>() * 1e3 / kSteps;
  const double cost = profiled_step_ms / plain_step_ms - 1;
  std::cout << "step time: " << plain_step_ms << " ms without the profiler, " << profiled_step_ms << " ms with it ("
            << 100 * cost << "%)\n";
  RecordProperty("profile_duty", std::to_string(duty));
  RecordProperty("profile_burst_p50_ms", std::to_string(burst));
  RecordProperty("profiler_cost_pct", std::to_string(100 * cost));
  EXPECT_LT(cost, 0.10);
}

// The gate alone (no --profile-gpu), once it has opened: CUPTI leaves the copy (the default, detach: cuptiFinalize at
// the exit of the callback that passed it), or its callbacks are switched off (BENCH_MPS_GATE_CALLBACKS=unsubscribe). At a
// host wait and at the first kernel, both copies are held, released together and run to their end, and neither
// says a word about the gate on its stderr (a failed cuptiFinalize would).
TEST_F(GpuProfile, TheGateAloneLetsGoOfCuptiOnceItOpens) {
  for (const std::string after : {"", "unsubscribe"})
    for (const std::string point : {"wait:50", "first-kernel"}) {
      SCOPED_TRACE("BENCH_MPS_GATE_CALLBACKS='" + after + "' --exec-gate " + point);
      Env env;
      if (!after.empty()) env.set.emplace_back("BENCH_MPS_GATE_CALLBACKS", after);
      const fs::path out = tmp / ((after.empty() ? "default" : after) + "-" + point.substr(0, 4));
      const auto rows = sweep(out, {"--modes", "timeslice", "--procs", "2", "--exec-gate", point}, env);
      ASSERT_EQ(rows.size(), 2u);
      for (const auto& w : rows) {
        const fs::path copy = out / "exec" / w.run_id / ("w" + std::to_string(w.worker));
        EXPECT_EQ(w.status, "ok") << w.reason;
        EXPECT_EQ(w.fact("gate_arrived"), 1) << w.facts;
        EXPECT_TRUE(done_line(copy.string() + ".stdout").is_object()) << "no DONE line from copy " << w.worker;
        const std::string err = read_text(copy.string() + ".stderr");
        EXPECT_EQ(err.find("bench_mps start gate"), std::string::npos) << err;
      }
    }
}

// Host waits from CUPTI's synchronisation records (BENCH_MPS_PROFILE_WAITS=activity) find the same steps
// as the default's callbacks on the synchronising calls: one wait per step, a step of the worker's length.
TEST_F(GpuProfile, HostWaitsFromSynchronisationRecordsFindTheSameSteps) {
  Env env;
  env.set.emplace_back("BENCH_MPS_PROFILE_WAITS", "activity");
  const auto rows = sweep(tmp / "callbacks", {"--modes", "timeslice", "--procs", "1", "--profile-gpu"}, env);
  ASSERT_EQ(rows.size(), 1u);
  const auto& w = rows[0];
  ASSERT_EQ(w.status, "ok") << w.reason;
  const nlohmann::json done = done_line(tmp / "callbacks" / "exec" / w.run_id / "w0.stdout");
  ASSERT_TRUE(done.is_object()) << "no DONE line from the worker";
  const double step_ms = done["elapsed_s"].get<double>() * 1e3 / kSteps;
  const double waits = w.fact("profile_host_waits"), steps = w.fact("profile_bursts");
  std::cout << "activity: host waits " << waits << " over " << steps << " steps; a step of "
            << w.fact("profile_wait_step_ms") << " ms (worker " << step_ms << " ms), GPU "
            << w.fact("profile_wait_kernel_ms") << " ms per wait\n";
  EXPECT_GE(w.fact("profile_kernels"), kSteps) << "the profile ended early (the gate detached CUPTI?)";
  ASSERT_FALSE(std::isnan(waits)) << "no host waits recorded: " << w.reason << " " << w.facts;
  EXPECT_NEAR(waits, steps, 0.05 * steps);
  EXPECT_NEAR(w.fact("profile_wait_step_ms"), step_ms, 0.05 * step_ms);
}

// A profile whose records all come from CUPTI's activity (host waits not recorded, BENCH_MPS_PROFILE_WAITS=0)
// outlives the start gate (on by default): once the gate opens its callbacks go, CUPTI stays, and every
// kernel of every copy is in the profile.
TEST_F(GpuProfile, AProfileWithoutWaitCallbacksOutlivesTheStartGate) {
  Env env;
  env.set.emplace_back("BENCH_MPS_PROFILE_WAITS", "0");
  const auto rows = sweep(tmp / "nowaits", {"--modes", "timeslice", "--procs", "2", "--profile-gpu"}, env);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& w : rows) {
    EXPECT_EQ(w.status, "ok") << w.reason;
    EXPECT_EQ(w.fact("gate_arrived"), 1) << w.facts;
    EXPECT_GE(w.fact("profile_kernels"), kSteps) << w.facts;
    EXPECT_GT(w.fact("profile_duty"), 0.2) << w.facts;
    EXPECT_TRUE(std::isnan(w.fact("profile_host_waits"))) << w.facts;
  }
}

TEST_F(GpuProfile, ProfilesEveryCopyTimeSlicedAndUnderMps) {
  if (harness::find_mps_control().empty()) GTEST_SKIP() << "nvidia-cuda-mps-control not on PATH";
  const auto rows = sweep(tmp / "out", {"--modes", "timeslice,mps", "--procs", "2", "--profile-gpu"});
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& w : rows) {
    EXPECT_EQ(w.status, "ok") << w.run_id << ": " << w.reason;
    EXPECT_EQ(w.fact("profile_processes"), 1) << w.run_id << ": " << w.reason;
    EXPECT_GE(w.fact("profile_kernels"), kSteps) << w.run_id;
    EXPECT_GT(w.fact("profile_duty"), 0.2) << w.run_id;
    std::cout << w.run_id << " w" << w.worker << ": duty " << w.fact("profile_duty") << ", burst p50 "
              << w.fact("profile_burst_p50_ms") << " ms, host waits " << w.fact("profile_host_waits") << ", a step of "
              << w.fact("profile_wait_step_ms") << " ms per wait\n";
    EXPECT_GT(w.fact("profile_host_waits"), 0) << w.run_id << ": " << w.reason;
  }
}

/// The mean time from one span's start to the next's, ms, over the pairs under 3x the middle length apart (a round's
/// steps one after another, not the evaluation between rounds): a step of the loop, as its step ends measure it.
double mean_period_ms(const std::vector<harness::HostWait>& spans, double middle_ms) {
  double sum = 0;
  int n = 0;
  for (std::size_t i = 1; i < spans.size(); ++i) {
    const double ms = static_cast<double>(spans[i].start_ns - spans[i - 1].start_ns) * 1e-6;
    if (spans[i].start_ns > spans[i - 1].start_ns && ms < 3 * middle_ms) {
      sum += ms;
      ++n;
    }
  }
  return n > 0 ? sum / n : NAN;
}

/// The middle of `spans`' lengths, ms.
double median_ms(const std::vector<harness::HostWait>& spans) {
  std::vector<double> ms;
  for (const harness::HostWait& w : spans) ms.push_back(static_cast<double>(w.end_ns - w.start_ns) * 1e-6);
  if (ms.empty()) return NAN;
  std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
  return ms[ms.size() / 2];
}

// --exec-unit-range through a real program's NVTX calls (tests/programs/nvtx_steps.cu, 3 rounds of 200 training
// steps of about 0.2 ms each in a push/pop "train", then 20 evaluation steps of about 1 ms, each in a push of the
// registered string "eval-step" of a domain, all 20 in one start/end "eval"): a profile following each name holds
// each occurrence, of about its length; through a sweep, `predict --measure` keeps the training steps.
TEST_F(GpuProfile, AProgramsNvtxRangesAreRecordedAndTheUnitFollowsThem) {
  const fs::path program = build_dir() / "tests" / "nvtx_steps";
  const std::string library = (build_dir() / "harness" / "libbench_mps_profiler.so").string();
  struct Name {
    const char* name;
    std::uint64_t count;
    double from_ms, to_ms;  ///< the occurrences' middle length, nominal 0.2 ms, 1 ms, 20 ms
  };
  for (const Name& n : {Name{"train", 600, 0.15, 0.6}, Name{"eval-step", 60, 0.8, 1.6}, Name{"eval", 3, 16, 30}}) {
    const fs::path dir = tmp / n.name;
    fs::create_directories(dir);
    const Env env{{{"CUDA_INJECTION64_PATH", library},
                   {"NVTX_INJECTION64_PATH", library},
                   {"BENCH_MPS_UNIT_RANGE", n.name},
                   {"BENCH_MPS_PROFILE_DIR", dir.string()}},
                  {}};
    const auto r = run_program(program, {"200", "20", "3"}, env, 120);
    ASSERT_EQ(r.exit_code, 0) << n.name << ": " << r.err;
    const auto files = harness::gpu_profile_files(dir);
    ASSERT_EQ(files.size(), 1u) << n.name;
    const harness::GpuProfile p = harness::read_gpu_profile(files.front());
    EXPECT_EQ(p.unit_range.name, n.name);
    EXPECT_EQ(p.unit_range.status, "ok") << n.name;
    EXPECT_EQ(p.unit_range.count, n.count) << n.name;
    EXPECT_EQ(p.unit_range.spans.size(), n.count) << n.name;
    const double ms = median_ms(p.unit_range.spans);
    std::cout << n.name << ": " << p.unit_range.count << " occurrences, middle length " << ms << " ms\n";
    EXPECT_GE(ms, n.from_ms) << n.name;
    EXPECT_LE(ms, n.to_ms) << n.name;
  }
  // Through a sweep: the copy's unit is a training step's, and units.csv says it followed the range.
  const fs::path out = tmp / "sweep";
  const auto r = run_program(bench_mps_exe(),
                             {"--workloads", "exec", "--command", "'" + program.string() + "' 200 20 3", "--repeats",
                              "1", "--exec-warmups", "0", "--procs", "1", "--modes", "timeslice", "--profile-gpu",
                              "--exec-unit-range", "train", "--out", out.string()},
                             {}, 300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto m = run_program(bench_mps_exe(), {"predict", "--measure", out.string()});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto rows = csv_records(out / "units.csv");
  ASSERT_FALSE(rows.empty());
  // The same run's training steps, start to start (another run's differ by up to 4 %: 2026-12-06, an H100).
  const auto files = harness::gpu_profile_files(out / "profiles", true);
  ASSERT_EQ(files.size(), 1u);
  const harness::UnitRange train = harness::read_gpu_profile(files.front()).unit_range;
  ASSERT_EQ(train.spans.size(), 600u) << files.front();
  const double train_ms = mean_period_ms(train.spans, median_ms(train.spans));
  for (const auto& row : rows) {
    std::cout << "units.csv: " << row.at("unit_ms") << " ms, " << row.at("phase") << "; its training steps start "
              << train_ms << " ms apart\n";
    EXPECT_NE(row.at("phase").find(" in NVTX range 'train'"), std::string::npos) << row.at("phase");
    // A training step between two step ends is its occurrence's, start to start, within 2 %: the evaluation steps
    // between the training stretches are left out of it (3 of them counted would add 3 %: 1 ms each among 600 of
    // 0.21 ms).
    EXPECT_NEAR(std::stod(row.at("unit_ms")) / train_ms, 1.0, 0.02) << row.at("unit_ms") << " ms";
    EXPECT_LE(std::stol(row.at("steps")), 600);
  }
}

}  // namespace
}  // namespace bench_mps::testing
