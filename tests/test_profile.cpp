// GPU profiles without a GPU: the reader and summary on recorded fixtures (tests/fixtures/gpu_profiles),
// the profiler's recorder fed by hand and read back, `bench_mps profile`, and --profile-gpu's plumbing
// with shell commands standing in for the program (one writes a profile where the injected library
// would, one never touches CUDA) and the fake MPS daemon.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/common/errors.hpp"
#include "harness/profiler/profile_recorder.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/exec_fixture.hpp"

namespace bench_mps::testing {
namespace {

using harness::GpuProfile;
using harness::ProfileSummary;

fs::path profile_fixture(const std::string& name) { return fixtures_dir() / "gpu_profiles" / name; }

// two_kernels_1ms_steps.json: 10 steps of 1 ms, each a burst of two spans (100 us, a 5 us gap, 95 us),
// then an 800 us host wait. Steady part: the last 18 of 20 spans (1.0 .. 9.2 ms), busy 9 x 195 us.
constexpr double kSteadyDuty = 9 * 195e3 / 8.2e6;
// Fill: busy_kernel 4 blocks of 128 threads, 32 registers: 16 resident per SM (warps) -> 4 / (132 x 16);
// gemm 264 blocks of 256 threads, 64 registers (4 per SM), 48 KiB + 1 KiB shared (4 per SM) -> 264 / (132 x 4).
constexpr double kFill = (4.0 / (132 * 16) * 1.0e6 + 0.5 * 0.95e6) / 1.95e6;

TEST(GpuProfileReader, SummarisesDutyBurstsFillAndGaps) {
  const GpuProfile p = harness::read_gpu_profile(profile_fixture("two_kernels_1ms_steps.json"));
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.kernel_count, 20u);
  ASSERT_EQ(p.signatures.size(), 2u);
  EXPECT_EQ(harness::resident_blocks_per_sm(p.signatures[0], p.devices[0]), 16);
  EXPECT_EQ(harness::resident_blocks_per_sm(p.signatures[1], p.devices[0]), 4);

  const ProfileSummary s = harness::summarise(p, 20);
  EXPECT_FALSE(s.truncated);
  EXPECT_NEAR(s.duty, kSteadyDuty, 1e-9);
  EXPECT_NEAR(s.duty_whole, 1.95e6 / 9.2e6, 1e-9);
  EXPECT_NEAR(s.steady_from_s, 1e-3, 1e-12);
  EXPECT_EQ(s.bursts, 9u);  // the 5 us gaps stay inside a burst at 20 us
  EXPECT_NEAR(s.burst_p50_ms, 0.2, 1e-9);
  EXPECT_NEAR(s.burst_p90_ms, 0.2, 1e-9);
  EXPECT_NEAR(s.wait_p50_ms, 0.8, 1e-9);
  EXPECT_NEAR(s.fill, kFill, 1e-9);
  EXPECT_EQ(s.memory_peak_bytes, 3ull << 30);
  EXPECT_EQ(s.contexts, 1);
  ASSERT_EQ(s.gaps.size(), 2u);  // 10 gaps of 5 us in [4.096, 8.192) us, 9 of 800 us in [524, 1049) us
  EXPECT_EQ(s.gaps[0].count, 10u);
  EXPECT_NEAR(s.gaps[0].from_us, 4.096, 1e-9);
  EXPECT_EQ(s.gaps[1].count, 9u);
  EXPECT_NEAR(s.gaps_at_threshold_share, 9.0 / 19, 1e-9);
  EXPECT_NEAR(s.gaps_share_from_us, 32.768, 1e-9);  // the share's edge: the first bin edge at or above 20 us

  // A threshold under the 5 us gaps splits every step in two: 18 bursts of 100 and 95 us.
  const ProfileSummary fine = harness::summarise(p, 2);
  EXPECT_EQ(fine.bursts, 18u);
  EXPECT_NEAR(fine.burst_mean_ms, 0.0975, 1e-9);
  EXPECT_NEAR(fine.duty, kSteadyDuty, 1e-9);  // the threshold splits bursts, it does not change the duty
}

TEST(GpuProfileReader, ATruncatedProfileIsSummarisedOverItsTail) {
  TempDir tmp;
  nlohmann::json j = nlohmann::json::parse(read_text(profile_fixture("two_kernels_1ms_steps.json")));
  j["busy"]["intervals"] = 5000;  // the profiler kept the first 2 spans and the last 18 of 5000
  j["busy"]["kept_head"] = 2;
  write_text(tmp / "profile-1.json", j.dump());
  const ProfileSummary s = harness::summarise(harness::read_gpu_profile(tmp / "profile-1.json"), 20);
  EXPECT_TRUE(s.truncated);
  EXPECT_NEAR(s.steady_from_s, 1e-3, 1e-12);  // the tail alone
  EXPECT_NEAR(s.duty, kSteadyDuty, 1e-9);
  EXPECT_EQ(s.bursts, 9u);
}

TEST(GpuProfileReader, AThresholdBelowTheProfilesMinGapIsRefused) {
  const GpuProfile p = harness::read_gpu_profile(profile_fixture("two_kernels_1ms_steps.json"));
  EXPECT_THROW(harness::summarise(p, 0.5), harness::UsageError);  // spans closer than 1 us were merged
}

TEST(GpuProfileReader, BadFilesAreNamedWithWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"bad_truncated.json", "parse error"},
      {"bad_version.json", "format_version 7"},
      {"bad_no_busy.json", "missing 'busy'"},
      {"bad_spans_out_of_order.json", "out of order"},
      {"bad_block_zero.json", "'block' of a kernel holds a value below 1"},
      {"no_such_profile.json", "no_such_profile.json"},
  };
  for (const auto& [name, what] : cases) {
    try {
      harness::read_gpu_profile(profile_fixture(name));
      ADD_FAILURE() << name << " was read";
    } catch (const harness::UsageError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(profile_fixture(name).string() + ": ", 0), 0u) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  }
}

TEST(GpuProfileReader, ValuesNoProfilerWritesAreRefusedNotSummarised) {
  // Each was read and printed: fill 50.3 % of a device with room for 0 blocks, "whole run 0.0%" from a negative end.
  const nlohmann::json good = nlohmann::json::parse(read_text(profile_fixture("anchored_1ms_steps.json")));
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases{
      {[](nlohmann::json& j) { j["devices"][0]["max_blocks_per_sm"] = 0; }, "room for 0 warps or 0 blocks"},
      {[](nlohmann::json& j) { j["devices"][0]["max_warps_per_sm"] = 0; }, "room for 0 warps or 0 blocks"},
      {[](nlohmann::json& j) { j["busy"]["last_ns"] = -100; }, "first_ns and last_ns are not 0 <= first <= last"},
      {[](nlohmann::json& j) { j["clock"]["end_ns"] = -1; }, "'end_ns' in clock is below 0"},
  };
  TempDir tmp;
  harness::read_gpu_profile(profile_fixture("anchored_1ms_steps.json"));  // as committed: read
  for (const auto& [edit, what] : cases) {
    nlohmann::json j = good;
    edit(j);
    const fs::path file = tmp / "profile-1.json";
    write_text(file, j.dump());
    try {
      harness::read_gpu_profile(file);
      ADD_FAILURE() << "read: " << what;
    } catch (const harness::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
}

TEST(GpuProfileCommand, PrintsTheSummaryAndRefusesBadInput) {
  const auto ok = run_program(bench_mps_exe(), {"profile", profile_fixture("two_kernels_1ms_steps.json").string()});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  std::cout << ok.out;
  EXPECT_NE(ok.out.find("duty 21.4%"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("bursts split at 20 us idle: 9, p50 0.2 ms"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("fill 24.5%"), std::string::npos) << ok.out;

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"profile", profile_fixture("bad_no_busy.json").string()},
        {"profile", profile_fixture("two_kernels_1ms_steps.json").string(), "--gap-us", "0.5"},
        {"profile", profile_fixture("two_kernels_1ms_steps.json").string(), "--gap-us", "-3"},
        {"profile", (fixtures_dir() / "compare").string()},
        {"profile", "/nonexistent/profiles"}}) {
    const auto bad = run_program(bench_mps_exe(), args);
    EXPECT_EQ(bad.exit_code, 2) << args[1] << ": " << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    EXPECT_TRUE(bad.out.empty()) << bad.out;
  }
}

// The injected library's aggregate, fed as CUPTI would (streams out of order, a long kernel in a
// later buffer), read back by the harness's reader.
TEST(ProfileRecorder, WhatItWritesTheReaderReadsBack) {
  profiler::RecorderLimits limits;
  limits.pending_batch = 4;  // several batches, so spans cross batch boundaries
  const std::uint64_t t0 = 1'000'000'000;
  profiler::ProfileRecorder rec(limits, t0);
  profiler::DeviceLimits d;
  d.id = 0, d.name = "Test \"GPU\"", d.sm_count = 10, d.max_warps_per_sm = 64, d.max_blocks_per_sm = 32;
  d.regs_per_sm = 65536, d.max_regs_per_block = 65536, d.smem_per_sm = 100000, d.smem_per_block = 48000, d.cc_major = 9;
  rec.device(d);
  rec.context(1, 0, 10, false);
  rec.context(1, 0, 10, false);  // the same context twice: one
  auto kernel = [&](std::uint64_t start_us, std::uint64_t end_us, int blocks) {
    profiler::KernelLaunch k;
    k.shape.name = "_Z4spinPfi";
    k.shape.grid[0] = blocks;
    k.shape.block[0] = 64;
    k.shape.registers = 16;
    k.start_ns = t0 + start_us * 1000;
    k.end_ns = t0 + end_us * 1000;
    rec.kernel(k);
  };
  // Steps of 1 ms: a 100 us burst at 0, 1000, ... ; in step 3 two streams overlap, out of order.
  for (int step = 0; step < 20; ++step) {
    const std::uint64_t at = step * 1000;
    if (step == 3) {
      kernel(at + 50, at + 100, 10);
      kernel(at, at + 60, 10);  // started first, reported later
    } else {
      kernel(at, at + 100, 10);
    }
  }
  rec.copy(t0 + 20'000'000, t0 + 20'010'000, 4096);  // 10 us copy at 20 ms
  rec.memory(0, true, 1000);
  rec.memory(0, true, 500);
  rec.memory(0, false, 1000);
  rec.memory(0, true, 200);  // peak 1500
  TempDir tmp;
  write_text(tmp / "profile-7.json", rec.json(t0 + 30'000'000, {7, 1, "prog \\ \"x\""}));
  const GpuProfile p = harness::read_gpu_profile(tmp / "profile-7.json");
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.command, "prog \\ \"x\"");
  EXPECT_EQ(p.devices.at(0).name, "Test \"GPU\"");
  EXPECT_EQ(p.contexts, 1);
  EXPECT_EQ(p.memory_peak_bytes, 1500u);
  EXPECT_EQ(p.kernel_count, 21u);  // step 3's two
  ASSERT_EQ(p.signatures.size(), 1u);
  EXPECT_EQ(p.signatures[0].name, "spin(float*, int)");  // demangled
  EXPECT_EQ(p.intervals, 21u);                           // 20 bursts and the copy
  EXPECT_EQ(p.busy_ns, 20 * 100'000u + 10'000u);
  EXPECT_EQ(p.spans.size(), 21u);
  const ProfileSummary s = harness::summarise(p, 20);
  EXPECT_EQ(s.bursts, 19u);  // 21 spans less the first 10% (2)
  EXPECT_NEAR(s.burst_p50_ms, 0.1, 1e-9);
  EXPECT_NEAR(s.fill, 10.0 / (10 * 32), 1e-9);  // 2 warps, 16 regs: the 32-block limit per SM
  // Each span's SM time: its kernels' time x their fill; step 3's overlapping kernels both count; a copy none.
  const double fill = 10.0 / (10 * 32);
  EXPECT_NEAR(p.spans[0].sm_ns, 100'000 * fill, 1);
  EXPECT_NEAR(p.spans[3].sm_ns, (60'000 + 50'000) * fill, 1);
  EXPECT_EQ(p.spans[3].busy_ns, 100'000);
  EXPECT_EQ(p.spans[20].sm_ns, 0);
}

// A kernel recorded before its device's limits (CUPTI's device record came later) still gets its fill,
// once the recorder merges; where the device never comes, the kernel counts as filling the device.
TEST(ProfileRecorder, SmTimeOfKernelsSeenBeforeTheirDevice) {
  profiler::RecorderLimits limits;
  profiler::ProfileRecorder rec(limits, 0);
  profiler::KernelLaunch k;
  k.shape.name = "k";
  k.shape.grid[0] = 66;  // half of 132 SMs at one block each
  k.shape.block[0] = 1024;
  k.shape.dynamic_smem = 200'000;
  k.start_ns = 1000, k.end_ns = 11'000;
  rec.kernel(k);
  profiler::KernelLaunch other = k;
  other.shape.device = 5;  // never described
  other.start_ns = 100'000, other.end_ns = 104'000;
  rec.kernel(other);
  profiler::DeviceLimits d;
  d.id = 0, d.sm_count = 132, d.max_warps_per_sm = 64, d.max_blocks_per_sm = 32, d.regs_per_sm = 65536;
  d.smem_per_sm = 233472, d.smem_per_block = 232448, d.cc_major = 9;
  rec.device(d);
  TempDir tmp;
  write_text(tmp / "profile-2.json", rec.json(200'000, {2, 1, ""}));
  const GpuProfile p = harness::read_gpu_profile(tmp / "profile-2.json");
  ASSERT_EQ(p.spans.size(), 2u);
  EXPECT_NEAR(p.spans[0].sm_ns, 10'000 * 0.5, 1);
  EXPECT_NEAR(p.spans[1].sm_ns, 4'000, 1);
}

// A span reported after later spans were closed (another stream's copy in a later buffer) reaches back over time
// already counted: that part goes to late_ns, not busy_ns, so busy_ns never exceeds the run's length (it once did,
// up to thousands of times over on DataLoader programs) and brackets the union with busy_ns + late_ns.
TEST(ProfileRecorder, LateSpansDoNotCountClosedTimeTwice) {
  profiler::RecorderLimits limits;
  limits.pending_batch = 1;  // every span merged as it comes
  profiler::ProfileRecorder rec(limits, 0);
  const std::uint64_t at = 1'000'000;  // (a start of 0 is CUPTI's "unknown")
  for (std::uint64_t i = 0; i < 10; ++i) rec.copy(at + i * 100'000, at + i * 100'000 + 10'000, 1);  // 10 us a 100 us
  for (int late = 0; late < 50; ++late) rec.copy(at, at + 905'000, 1);  // each over all of them, reported after
  TempDir tmp;
  write_text(tmp / "profile-3.json", rec.json(at + 1'000'000, {3, 1, ""}));
  const GpuProfile p = harness::read_gpu_profile(tmp / "profile-3.json");
  const nlohmann::json j = nlohmann::json::parse(read_text(tmp / "profile-3.json"));
  const std::uint64_t late_ns = j["busy"]["late_ns"].get<std::uint64_t>();
  EXPECT_EQ(j["busy"]["late_spans"].get<int>(), 50);
  const std::uint64_t run = static_cast<std::uint64_t>(p.last_ns - p.first_ns), union_ns = 910'000;
  EXPECT_LE(p.busy_ns, run);
  EXPECT_LE(p.busy_ns, union_ns);                                   // a lower bound of the union
  EXPECT_GE(p.busy_ns + late_ns, union_ns);                         // and with late_ns an upper one
  EXPECT_EQ(p.busy_ns, 9 * 10'000u + (905'000 - 810'000) + 5'000);  // closed, then the last reached back to 810 us
  const ProfileSummary s = harness::summarise(p, 5);
  EXPECT_LE(s.duty_whole, 1.0);
}

// Where a late span lies decides what it changes: wholly over closed history, only late_ns (the gap before the open
// interval stays idle); in that gap, an interval of its own; reaching the open interval, the open one grows back.
TEST(ProfileRecorder, ALateSpanChangesOnlyTheTimeWhereItLies) {
  const std::uint64_t at = 1'000'000;
  auto record = [&](std::uint64_t late_start_us, std::uint64_t late_end_us) {
    profiler::RecorderLimits limits;
    limits.pending_batch = 1;
    profiler::ProfileRecorder rec(limits, 0);
    for (std::uint64_t i = 0; i < 10; ++i) rec.copy(at + i * 100'000, at + i * 100'000 + 10'000, 1);
    rec.copy(at + late_start_us * 1000, at + late_end_us * 1000, 1);
    TempDir tmp;
    write_text(tmp / "profile-5.json", rec.json(at + 1'000'000, {5, 1, ""}));
    return harness::read_gpu_profile(tmp / "profile-5.json");
  };
  // Wholly before the last closed interval's end (810 us): the spans are the ten as they were.
  GpuProfile p = record(150, 160);
  ASSERT_EQ(p.spans.size(), 10u);
  EXPECT_EQ(p.busy_ns, 10 * 10'000u);
  EXPECT_EQ(p.spans[9].start_ns - p.spans[8].end_ns, 90'000) << "the gap before the last span stays idle";
  // In the gap between 810 and 900 us, clear of both: a span of its own.
  p = record(850, 860);
  ASSERT_EQ(p.spans.size(), 11u);
  EXPECT_EQ(p.spans[9].start_ns, static_cast<std::int64_t>(at + 850'000));
  EXPECT_EQ(p.spans[9].end_ns, static_cast<std::int64_t>(at + 860'000));
  EXPECT_EQ(p.busy_ns, 11 * 10'000u);
  // From 800 us (10 us over closed history) into the last span: it grows back to 810 us.
  p = record(800, 905);
  ASSERT_EQ(p.spans.size(), 10u);
  EXPECT_EQ(p.spans[9].start_ns, static_cast<std::int64_t>(at + 810'000));
  EXPECT_EQ(p.busy_ns, 9 * 10'000u + 100'000u);
}

// A profile written before late_ns existed whose busy total is longer than its run: its whole run's duty is not
// known (NaN), the rest of its summary is read as before.
TEST(GpuProfileReader, ABusyTotalLongerThanTheRunIsNotAWholeRunDuty) {
  profiler::RecorderLimits limits;
  profiler::ProfileRecorder rec(limits, 0);
  for (std::uint64_t i = 1; i <= 10; ++i) rec.copy(i * 100'000, i * 100'000 + 10'000, 1);
  TempDir tmp;
  nlohmann::json j = nlohmann::json::parse(rec.json(2'000'000, {4, 1, ""}));
  j["busy"]["busy_ns"] = 5'000'000'000ULL;  // as the old recorder could write it
  j["busy"].erase("late_ns");
  write_text(tmp / "profile-4.json", j.dump());
  const ProfileSummary s = harness::summarise(harness::read_gpu_profile(tmp / "profile-4.json"), 5);
  EXPECT_TRUE(std::isnan(s.duty_whole));
  EXPECT_GT(s.duty, 0);
}

TEST(ProfileRecorder, KeepsItsFirstAndLastSpansAndCountsTheRest) {
  profiler::RecorderLimits limits;
  limits.head_intervals = 3;
  limits.tail_intervals = 4;
  profiler::ProfileRecorder rec(limits, 0);
  for (std::uint64_t i = 0; i < 100; ++i) rec.copy(1 + i * 10'000, 1 + i * 10'000 + 2'000, 1);
  TempDir tmp;
  write_text(tmp / "profile-1.json", rec.json(2'000'000, {1, 0, ""}));
  const GpuProfile p = harness::read_gpu_profile(tmp / "profile-1.json");
  EXPECT_EQ(p.intervals, 100u);
  ASSERT_EQ(p.spans.size(), 7u);
  EXPECT_EQ(p.kept_head, 3u);
  EXPECT_EQ(p.spans[2].start_ns, 20'001);
  EXPECT_EQ(p.spans[3].start_ns, 960'001);  // the last four, in order
  EXPECT_EQ(p.spans[6].start_ns, 990'001);
  EXPECT_EQ(p.busy_ns, 100 * 2'000u);  // every span's busy time counted, kept or not
  const ProfileSummary s = harness::summarise(p, 5);
  EXPECT_TRUE(s.truncated);
  EXPECT_EQ(s.bursts, 4u);
  EXPECT_NEAR(s.duty, 4 * 2'000.0 / 32'000, 1e-9);
}

// The injected library itself, loaded by hand into a process as the driver would (python3's ctypes) and
// initialised: without a GPU driver its CUPTI calls fail, which it must write into a readable profile
// at exit, and the process must end as it would have (on a GPU machine the profile is simply ok).
TEST(ProfilerLibrary, NeverStopsTheProgramAndAlwaysWritesAReadableProfile) {
  TempDir tmp;
  const std::string lib = (build_dir() / "harness" / "libbench_mps_profiler.so").string();
  const std::string script =
      "import ctypes, sys\nl = ctypes.CDLL('" + lib + "')\nprint('loaded', l.InitializeInjection())\nsys.exit(3)\n";
  const auto r =
      run_program("/usr/bin/env", {"python3", "-c", script}, {{{"BENCH_MPS_PROFILE_DIR", tmp.path().string()}}, {}});
  EXPECT_EQ(r.exit_code, 3) << r.err;  // the program's own exit code
  EXPECT_EQ(r.out, "loaded 1\n");
  const auto files = harness::gpu_profile_files(tmp.path());
  ASSERT_EQ(files.size(), 1u) << "no profile written";
  EXPECT_FALSE(fs::exists(files[0].string() + ".tmp"));
  const GpuProfile p = harness::read_gpu_profile(files[0]);
  EXPECT_EQ(p.pid, std::stol(files[0].stem().string().substr(8)));
  if (!p.complete) {
    ASSERT_FALSE(p.errors.empty());
    EXPECT_EQ(p.errors[0].rfind("cupti", 0), 0u) << p.errors[0];
  }
  // Its folder missing: one line on stderr, the program's exit untouched.
  const auto lost = run_program("/usr/bin/env", {"python3", "-c", script},
                                {{{"BENCH_MPS_PROFILE_DIR", (tmp / "gone").string()}}, {}});
  EXPECT_EQ(lost.exit_code, 3);
  EXPECT_NE(lost.err.find("bench_mps profiler: cannot create " + (tmp / "gone").string()), std::string::npos)
      << lost.err;
}

// --profile-gpu through exec. The command stands in for a CUDA program: it writes the fixture into
// $BENCH_MPS_PROFILE_DIR as the injected library would, and says what CUDA_INJECTION64_PATH it got.
class ProfileExec : public ExecSweep {};

TEST_F(ProfileExec, EachCopysProfileIsSummarisedIntoItsFacts) {
  const std::string command = "echo \"injection=$CUDA_INJECTION64_PATH\"; cp '" +
                              profile_fixture("two_kernels_1ms_steps.json").string() +
                              "' \"$BENCH_MPS_PROFILE_DIR/profile-$$.json\"";
  const auto r = sweep({"--command", command, "--procs", "1,2", "--modes", "timeslice", "--profile-gpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto workers = harness::read_runs(out() / "runs.csv");
  ASSERT_EQ(workers.size(), 3u);
  for (const auto& w : workers) {
    EXPECT_EQ(w.status, "ok") << w.run_id << ": " << w.reason;
    EXPECT_EQ(w.fact("profile_processes"), 1) << w.facts;
    EXPECT_NEAR(w.fact("profile_duty"), kSteadyDuty, 1e-5) << w.facts;
    EXPECT_EQ(w.fact("profile_bursts"), 9) << w.facts;
    EXPECT_NEAR(w.fact("profile_burst_p50_ms"), 0.2, 1e-6) << w.facts;
    EXPECT_NEAR(w.fact("profile_fill"), kFill, 1e-5) << w.facts;
    EXPECT_EQ(w.fact("profile_gap_us"), 20) << w.facts;
    EXPECT_EQ(w.fact("profile_mem_peak_mb"), 3072) << w.facts;
    const fs::path dir = out() / "profiles" / w.run_id / ("w" + std::to_string(w.worker));
    EXPECT_EQ(harness::gpu_profile_files(dir).size(), 1u) << dir;
    const std::string said = read_text(out() / "exec" / w.run_id / ("w" + std::to_string(w.worker) + ".stdout"));
    EXPECT_NE(said.find("injection=" + (build_dir() / "harness" / "libbench_mps_profiler.so").string()),
              std::string::npos)
        << said;
  }
  EXPECT_NE(
      r.err.find("  GPU profile (mean of 2 copies): duty 21.4%, bursts p50 0.2 ms (split at 20 us idle), fill 24.5%"),
      std::string::npos)
      << r.err;
  const auto meta = nlohmann::json::parse(read_text(out() / "meta.json"));
  EXPECT_EQ(meta["gpu_profile"]["gap_us"], 20.0);
  // The summary again, from the folder, at another threshold.
  const auto again = run_program(bench_mps_exe(), {"profile", (out() / "profiles").string(), "--gap-us", "2"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(std::count(again.out.begin(), again.out.end(), '\n'), 3 * 9) << again.out;  // 9 lines a profile
  EXPECT_NE(again.out.find("bursts split at 2 us idle: 18"), std::string::npos) << again.out;
}

TEST_F(ProfileExec, ACommandThatNeverTouchesCudaIsSaidNotFailed) {
  // Under the fake daemon a copy proves it was an MPS client by listing itself (as in test_exec).
  const std::string command =
      kJoinFakeMps +
      "echo no gpu here; sleep 1";  // long enough for the client list to be polled on a loaded machine (with 0.3 s
                                    // this test failed once in a full ctest on 2 cores, its output not kept)
  const auto r = sweep(
      {"--command", command, "--procs", "1", "--modes", "timeslice,mps", "--profile-gpu", "--profile-gap-us", "50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: worker 0: the command never initialised CUDA (no GPU profile)"), std::string::npos)
      << r.err;
  for (const auto& w : harness::read_runs(out() / "runs.csv")) {
    EXPECT_EQ(w.status, "ok") << w.run_id;
    EXPECT_EQ(w.reason, "the command never initialised CUDA (no GPU profile)") << w.run_id;
    EXPECT_EQ(w.fact("profile_processes"), 0) << w.facts;
    EXPECT_TRUE(std::isnan(w.fact("profile_duty"))) << w.facts;
  }
  for (const auto& [id, row] : summary()) EXPECT_EQ(row.status, "ok") << id;
}

TEST_F(ProfileExec, AnUnreadableProfileIsNamedAndTheRunKept) {
  const auto r = sweep({"--command", "echo '{\"format_version\": 1' > \"$BENCH_MPS_PROFILE_DIR/profile-$$.json\"",
                        "--procs", "1", "--modes", "timeslice", "--profile-gpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto workers = harness::read_runs(out() / "runs.csv");
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers[0].status, "ok");
  EXPECT_NE(workers[0].reason.find("not a readable GPU profile"), std::string::npos) << workers[0].reason;
  EXPECT_NE(workers[0].reason.find("/w0/profile-"), std::string::npos) << workers[0].reason;
}

TEST_F(ProfileExec, BadFlagsAreRefused) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--workloads", "cpu", "--profile-gpu", "--repeats", "1", "--out", out().string()}, "add --workloads exec"},
      {sweep_args({"--command", "true", "--profile-gap-us", "50"}), "add --profile-gpu"},
      {sweep_args({"--command", "true", "--profile-gpu", "--profile-gap-us", "0"}), "--profile-gap-us"},
      {sweep_args({"--command", "true", "--profile-gpu", "--profile-gap-us", "nan"}), "--profile-gap-us"},
      {{"--scenario", "interference", "--foreground", "exec", "--background", "cpu", "--procs", "2", "--command",
        "true", "--profile-gpu", "--repeats", "1", "--out", out().string()},
       "--profile-gpu"},
  };
  for (const auto& [args, what] : cases) {
    const auto r = run_program(bench_mps_exe(), args, env, 60);
    EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out() / "summary.csv"));
  }
  // The library missing: exit 3, naming it.
  Env missing = env;
  missing.set.emplace_back("BENCH_MPS_PROFILER", (tmp / "nowhere.so").string());
  const auto r = run_program(bench_mps_exe(), sweep_args({"--command", "true", "--profile-gpu"}), missing, 60);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("nowhere.so"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bench_mps::testing
