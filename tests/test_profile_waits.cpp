// Host waits in the GPU profile (format_version 2) without a GPU: hand-written profiles read and
// summarised (waits counted in the steady part, the step and the device work per wait, a format 1
// profile still read, malformed waits refused), the profiler's recorder fed as CUPTI would for a
// PyTorch-like step, and --profile-gpu's facts through exec with the fake MPS daemon.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/common/errors.hpp"
#include "harness/profiler/profile_recorder.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/step_phase.hpp"
#include "tests/exec_fixture.hpp"

namespace bench_mps::testing {
namespace {

using harness::GpuProfile;
using harness::ProfileSummary;
using Json = nlohmann::json;

constexpr std::int64_t kUs = 1000, kMs = 1000 * kUs;

fs::path v1_fixture() { return fixtures_dir() / "gpu_profiles" / "two_kernels_1ms_steps.json"; }

/// An eager loop's 20 steps of 1 ms, step i (1..20) at i ms: two kernels' spans, 300 us and 250 us, with a
/// 50 us launch gap between them (past the 20 us idle-gap threshold), then the host waits from 100 us to
/// 602 us (the sync ends 2 us after the GPU), then waits again for nothing (610-620 us). One wait at
/// 100-200 us before any device work. 41 waits, 40 spans: the steady part is steps 3..20.
struct Steps {
  std::vector<std::array<std::int64_t, 3>> spans;
  std::vector<std::array<std::int64_t, 2>> waits{{100 * kUs, 200 * kUs}};
  /// `sync_end_us`: where in its step the host's wait for the GPU ends (after the last span's end at 600).
  explicit Steps(std::int64_t sync_end_us = 602) {
    for (std::int64_t i = 1; i <= 20; ++i) {
      const std::int64_t t = i * kMs;
      spans.push_back({t, t + 300 * kUs, 300 * kUs});
      spans.push_back({t + 350 * kUs, t + 600 * kUs, 250 * kUs});
      waits.push_back({t + 100 * kUs, t + sync_end_us * kUs});
      waits.push_back({t + 610 * kUs, t + 620 * kUs});
    }
  }
};

/// The v1 fixture made a format_version 2 profile with these spans and waits (all kept unless `kept_head`
/// and `count` say some were left out).
Json v2_profile(const Steps& steps, std::size_t kept_head = 0, std::uint64_t count = 0) {
  Json j = Json::parse(read_text(v1_fixture()));
  j["format_version"] = 2;
  std::int64_t busy = 0;
  for (const auto& s : steps.spans) busy += s[2];
  j["busy"]["spans"] = steps.spans;
  j["busy"]["intervals"] = steps.spans.size();
  j["busy"]["kept_head"] = steps.spans.size();
  j["busy"]["busy_ns"] = busy;
  j["busy"]["first_ns"] = steps.spans.front()[0];
  j["busy"]["last_ns"] = steps.spans.back()[1];
  j["waits_status"] = "ok";
  j["waits"] = {{"count", count ? count : steps.waits.size()},
                {"sync_copies", 0},
                {"kept_head", kept_head ? kept_head : steps.waits.size()},
                {"kept_tail", kept_head ? steps.waits.size() - kept_head : 0},
                {"spans", steps.waits}};
  return j;
}

GpuProfile read_json(const TempDir& tmp, const Json& j) {
  write_text(tmp / "profile-1.json", j.dump());
  return harness::read_gpu_profile(tmp / "profile-1.json");
}

TEST(ProfileWaits, HostWaitsNotIdleGapsBoundTheSteps) {
  TempDir tmp;
  const GpuProfile p = read_json(tmp, v2_profile(Steps()));
  EXPECT_EQ(p.waits_status, "ok");
  EXPECT_EQ(p.wait_count, 41u);
  const ProfileSummary s = harness::summarise(p, 20);
  EXPECT_TRUE(s.waits_recorded);
  // Split at 20 us idle, each step is two bursts; its host waits make it one step of 1 ms.
  EXPECT_EQ(s.bursts, 36u);
  EXPECT_NEAR(s.burst_p50_ms, 0.275, 1e-9);
  // Steps 3..20: the window runs from step 2's wait to step 20's; the waits for nothing count not.
  EXPECT_EQ(s.host_waits, 18u);
  EXPECT_NEAR(s.wait_step_ms, 1.0, 1e-9);
  EXPECT_NEAR(s.wait_kernel_ms, 0.55, 1e-9);    // 300 + 250 us busy per step
  EXPECT_NEAR(s.wait_burst_ms, 0.6, 1e-9);      // first start to last end, the launch gap included
  EXPECT_NEAR(s.duty, 18 * 0.55 / 17.6, 1e-9);  // unchanged by the waits
}

// The GPU's clock, normalised to the host's, a little off: each step's last kernel seems to end 5 us
// after the wait for it. The wait for nothing after it is still no step of its own, and the next step
// starts where its own work does.
TEST(ProfileWaits, AKernelSeenEndingAfterItsWaitMakesNoStepOfItsOwn) {
  TempDir tmp;
  const ProfileSummary s = harness::summarise(read_json(tmp, v2_profile(Steps(595))), 20);
  EXPECT_EQ(s.host_waits, 18u);
  EXPECT_NEAR(s.wait_step_ms, 1.0, 1e-9);
  EXPECT_NEAR(s.wait_kernel_ms, 0.55, 1e-9);  // 5 us of step 2's kernel in, 5 us of step 20's out
  EXPECT_NEAR(s.wait_burst_ms, 0.595, 1e-9);  // clipped at the wait's end
}

TEST(ProfileWaits, WaitsOfATruncatedProfileCountFromItsKeptLastOnes) {
  TempDir tmp;
  Steps steps;
  // Kept: the first 3 waits and the last 10 (steps 16..20) of 41.
  steps.waits.erase(steps.waits.begin() + 3, steps.waits.end() - 10);
  const ProfileSummary s = harness::summarise(read_json(tmp, v2_profile(steps, 3, 41)), 20);
  EXPECT_EQ(s.host_waits, 4u);  // steps 17..20, after step 16's wait
  EXPECT_NEAR(s.wait_step_ms, 1.0, 1e-9);
  EXPECT_NEAR(s.wait_kernel_ms, 0.55, 1e-9);
  EXPECT_NEAR(s.wait_burst_ms, 0.6, 1e-9);
}

void expect_no_waits(const ProfileSummary& s) {
  EXPECT_FALSE(s.waits_recorded);
  EXPECT_EQ(s.host_waits, 0u);
  EXPECT_TRUE(std::isnan(s.wait_step_ms));
  EXPECT_TRUE(std::isnan(s.wait_kernel_ms));
  EXPECT_TRUE(std::isnan(s.wait_burst_ms));
}

TEST(ProfileWaits, AFormat1ProfileIsStillReadWithoutWaits) {
  const GpuProfile p = harness::read_gpu_profile(v1_fixture());
  EXPECT_EQ(p.waits_status, "");
  const ProfileSummary s = harness::summarise(p, 20);
  expect_no_waits(s);
  EXPECT_EQ(s.bursts, 9u);  // the rest as before
  const auto r = run_program(bench_mps_exe(), {"profile", v1_fixture().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  host waits: not recorded (a format_version 1 profile)\n"), std::string::npos) << r.out;
}

TEST(ProfileWaits, WaitsTheProfilerCouldNotRecordAreSaidAndTheRestKept) {
  TempDir tmp;
  Json j = v2_profile(Steps());
  const std::string why = "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION): CUPTI_ERROR_NOT_SUPPORTED (27)";
  j["waits_status"] = why;
  j["waits"]["spans"] = Json::array();
  j["waits"]["count"] = 0;
  j["waits"]["kept_head"] = 0;
  const ProfileSummary s = harness::summarise(read_json(tmp, j), 20);
  expect_no_waits(s);
  EXPECT_EQ(s.bursts, 36u);
  const auto r = run_program(bench_mps_exe(), {"profile", (tmp / "profile-1.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  host waits: not recorded (" + why + ")\n"), std::string::npos) << r.out;
}

TEST(ProfileWaits, TheProfileCommandPrintsThem) {
  TempDir tmp;
  write_text(tmp / "profile-1.json", v2_profile(Steps()).dump());
  const auto r = run_program(bench_mps_exe(), {"profile", (tmp / "profile-1.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  host waits in the steady part: 18; per wait-to-wait step: 1 ms long, GPU busy 0.55 ms, "
                       "burst 0.6 ms (first start to last end)\n"),
            std::string::npos)
      << r.out;
}

// Where the waits came from, as the profiler says it (waits_source, since the callbacks): read back and
// printed; a profile without it (written before) prints as before.
TEST(ProfileWaits, TheirSourceIsWrittenReadAndPrinted) {
  profiler::ProfileRecorder rec(profiler::RecorderLimits{}, 0);
  rec.waits_source(
      "callbacks on the synchronising calls (BENCH_MPS_PROFILE_WAITS='x' is none of 0, activity, callbacks)");
  rec.host_wait(100, 200);
  TempDir tmp;
  write_text(tmp / "profile-1.json", rec.json(1000, {1, 0, ""}));
  EXPECT_EQ(harness::read_gpu_profile(tmp / "profile-1.json").waits_source,
            "callbacks on the synchronising calls (BENCH_MPS_PROFILE_WAITS='x' is none of 0, activity, callbacks)");
  Json j = v2_profile(Steps());
  j["waits_source"] = "callbacks on the synchronising calls";
  write_text(tmp / "profile-2.json", j.dump());
  const auto r = run_program(bench_mps_exe(), {"profile", (tmp / "profile-2.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  host waits (callbacks on the synchronising calls) in the steady part: 18; "),
            std::string::npos)
      << r.out;
  profiler::ProfileRecorder silent(profiler::RecorderLimits{}, 0);
  write_text(tmp / "profile-3.json", silent.json(1000, {1, 0, ""}));
  EXPECT_EQ(nlohmann::json::parse(read_text(tmp / "profile-3.json")).count("waits_source"), 0u);
  EXPECT_EQ(harness::read_gpu_profile(tmp / "profile-3.json").waits_source, "");
}

TEST(ProfileWaits, MalformedWaitsAreRefusedNamingWhatIsWrong) {
  TempDir tmp;
  const Json good = v2_profile(Steps());
  struct Case {
    const char* what;
    std::function<void(Json&)> change;
  };
  const std::vector<Case> cases{
      {"missing 'waits'", [](Json& j) { j.erase("waits"); }},
      {"missing 'waits_status'", [](Json& j) { j.erase("waits_status"); }},
      {"'waits_status' is not a string", [](Json& j) { j["waits_status"] = 3; }},
      {"'waits_source' is not a string", [](Json& j) { j["waits_source"] = 3; }},
      {"missing 'count' in waits", [](Json& j) { j["waits"].erase("count"); }},
      {"host wait 1 is not [start, end] with 0 <= start <= end",
       [](Json& j) {
         j["waits"]["spans"][1] = {5, 3};
       }},
      {"host wait 2 is not [start, end]", [](Json& j) { j["waits"]["spans"][2] = {5}; }},
      {"host wait 0 is not [start, end]",
       [](Json& j) {
         j["waits"]["spans"][0] = {-5, 3};
       }},
      {"host wait 0 is not [start, end]",
       [](Json& j) {
         j["waits"]["spans"][0] = {"a", 3};
       }},
      {"'spans' in waits is not an array", [](Json& j) { j["waits"]["spans"] = 7; }},
      {"waits: kept_head, spans, sync_copies and count disagree", [](Json& j) { j["waits"]["kept_head"] = 42; }},
      {"waits: kept_head, spans, sync_copies and count disagree", [](Json& j) { j["waits"]["count"] = 40; }},
      {"waits: kept_head, spans, sync_copies and count disagree", [](Json& j) { j["waits"]["sync_copies"] = 42; }},
      {"format_version 4 (this bench_mps reads 1 to 3)", [](Json& j) { j["format_version"] = 4; }},
      {"a busy span is not [start, end, busy, sm]", [](Json& j) { j["format_version"] = 3; }},
  };
  for (const Case& c : cases) {
    Json j = good;
    c.change(j);
    write_text(tmp / "profile-1.json", j.dump());
    try {
      harness::read_gpu_profile(tmp / "profile-1.json");
      ADD_FAILURE() << c.what << ": was read";
    } catch (const harness::UsageError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind((tmp / "profile-1.json").string() + ": not a readable GPU profile: ", 0), 0u) << msg;
      EXPECT_NE(msg.find(c.what), std::string::npos) << msg;
    }
    const auto r = run_program(bench_mps_exe(), {"profile", (tmp / "profile-1.json").string()});
    EXPECT_EQ(r.exit_code, 2) << c.what << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// PyTorch's loss.item(): a copy of the loss to pageable memory (CUPTI may report it synchronous, a host
// wait itself) and a stream synchronize that then waits for nothing. Either way one wait per step.
TEST(ProfileRecorder, APyTorchStepIsOneHostWait) {
  for (const bool copy_is_synchronous : {true, false}) {
    SCOPED_TRACE(copy_is_synchronous ? "synchronous copy" : "asynchronous copy");
    const std::uint64_t t0 = 1'000'000'000;
    profiler::RecorderLimits limits;
    limits.pending_batch = 3;  // waits sorted across several batches
    profiler::ProfileRecorder rec(limits, t0);
    for (std::uint64_t i = 1; i <= 10; ++i) {
      const std::uint64_t t = t0 + i * kMs;
      profiler::KernelLaunch k;
      k.shape.name = "_Z4stepv";
      k.start_ns = t, k.end_ns = t + 400 * kUs;
      rec.kernel(k);
      if (copy_is_synchronous) {
        rec.sync_copy(t + 402 * kUs, t + 410 * kUs, 4);
        rec.host_wait(t + 420 * kUs, t + 425 * kUs);
      } else {
        rec.copy(t + 402 * kUs, t + 410 * kUs, 4);
        rec.host_wait(t + 5 * kUs, t + 412 * kUs);
      }
    }
    TempDir tmp;
    write_text(tmp / "profile-3.json", rec.json(t0 + 20 * kMs, {3, 1, "python3 train.py"}));
    const GpuProfile p = harness::read_gpu_profile(tmp / "profile-3.json");
    EXPECT_EQ(p.waits_status, "ok");
    EXPECT_EQ(p.wait_count, copy_is_synchronous ? 20u : 10u);
    EXPECT_EQ(p.sync_copies, copy_is_synchronous ? 10u : 0u);
    EXPECT_EQ(p.copy_count, 10u);
    const ProfileSummary s = harness::summarise(p, 20);
    EXPECT_EQ(s.host_waits, 9u);  // steps 2..10: 20 spans less the first 10%
    EXPECT_NEAR(s.wait_step_ms, 1.0, 1e-9);
    EXPECT_NEAR(s.wait_kernel_ms, 0.408, 1e-9);  // the kernel and the copy
    EXPECT_NEAR(s.wait_burst_ms, 0.41, 1e-9);
  }
}

TEST(ProfileRecorder, KeepsItsFirstAndLastWaitsAndSaysWhyNone) {
  profiler::RecorderLimits limits;
  limits.head_waits = 2;
  limits.tail_waits = 3;
  limits.pending_batch = 4;
  profiler::ProfileRecorder rec(limits, 0);
  for (std::uint64_t i : {1, 0, 3, 2, 5, 4, 7, 6, 9, 8})
    rec.host_wait(1 + i * 100, 51 + i * 100);  // out of order in pairs
  rec.host_wait(0, 10);                        // CUPTI's unknown timestamp: left out
  TempDir tmp;
  write_text(tmp / "profile-1.json", rec.json(2000, {1, 0, ""}));
  const GpuProfile p = harness::read_gpu_profile(tmp / "profile-1.json");
  EXPECT_EQ(p.wait_count, 10u);
  EXPECT_EQ(p.waits_kept_head, 2u);
  ASSERT_EQ(p.waits.size(), 5u);
  const std::int64_t starts[] = {1, 101, 701, 801, 901};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(p.waits[i].start_ns, starts[i]) << i;

  profiler::ProfileRecorder none(limits, 0);
  none.waits_unavailable("cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION): not supported");
  none.waits_unavailable("a later failure");  // the first reason stays
  write_text(tmp / "profile-2.json", none.json(2000, {2, 0, ""}));
  const GpuProfile q = harness::read_gpu_profile(tmp / "profile-2.json");
  EXPECT_TRUE(q.complete);  // the rest of the profile is valid
  EXPECT_EQ(q.waits_status, "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION): not supported");
}

// --profile-gpu through exec: the command writes a profile where the injected library would.
class ProfileWaitsExec : public ExecSweep {
 protected:
  std::string copy_profile_command(const Json& profile) {
    write_text(tmp / "given.json", profile.dump());
    return "cp '" + (tmp / "given.json").string() + "' \"$BENCH_MPS_PROFILE_DIR/profile-$$.json\"";
  }
};

TEST_F(ProfileWaitsExec, EachCopysHostWaitsAreItsFacts) {
  const auto r = sweep({"--command", copy_profile_command(v2_profile(Steps())), "--procs", "2", "--modes", "timeslice",
                        "--profile-gpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto workers = harness::read_runs(out() / "runs.csv");
  ASSERT_EQ(workers.size(), 2u);
  for (const auto& w : workers) {
    EXPECT_EQ(w.status, "ok") << w.reason;
    EXPECT_EQ(w.reason, "") << w.reason;
    EXPECT_EQ(w.fact("profile_host_waits"), 18) << w.facts;
    EXPECT_NEAR(w.fact("profile_wait_step_ms"), 1.0, 1e-6) << w.facts;
    EXPECT_NEAR(w.fact("profile_wait_kernel_ms"), 0.55, 1e-6) << w.facts;
    EXPECT_NEAR(w.fact("profile_wait_burst_ms"), 0.6, 1e-6) << w.facts;
    EXPECT_EQ(w.fact("profile_bursts"), 36) << w.facts;
  }
  EXPECT_NE(r.err.find("fill 24.5%; per host wait: a step of 1 ms, GPU 0.55 ms\n"), std::string::npos) << r.err;
}

TEST_F(ProfileWaitsExec, ACopyWithoutWaitsSaysWhyAndKeepsTheRest) {
  Json j = v2_profile(Steps());
  j["waits_status"] = "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION): not supported";
  const auto r = sweep({"--command", copy_profile_command(j), "--procs", "1", "--modes", "timeslice", "--profile-gpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto workers = harness::read_runs(out() / "runs.csv");
  ASSERT_EQ(workers.size(), 1u);
  const auto& w = workers[0];
  EXPECT_EQ(w.status, "ok");
  EXPECT_NE(w.reason.find("has no host waits: cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION): not supported"),
            std::string::npos)
      << w.reason;
  EXPECT_TRUE(std::isnan(w.fact("profile_host_waits"))) << w.facts;
  EXPECT_TRUE(std::isnan(w.fact("profile_wait_step_ms"))) << w.facts;
  EXPECT_EQ(w.fact("profile_bursts"), 36) << w.facts;
  EXPECT_EQ(r.err.find("per host wait"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

using harness::main_phase;
using harness::StepPhase;

/// Step ends (ns) of `counts[i]` steps of `steps_ms[i]` each, in turn, from 0.
std::vector<std::int64_t> ends_of(const std::vector<std::pair<int, double>>& runs) {
  std::vector<std::int64_t> ends{0};
  for (const auto& [count, ms] : runs)
    for (int i = 0; i < count; ++i) ends.push_back(ends.back() + static_cast<std::int64_t>(ms * kMs));
  return ends;
}

// Issue 42 item 3: one kind of step. A training loop ending in a test pass of slower steps keeps the loop; a
// loop followed by many faster evaluation steps keeps the loop (it took longer); a slow head goes; steps of
// one kind, or two kinds less than 2x apart, or too few, are never parted; and the words say what was kept.
TEST(StepPhase, AStepOfAnotherKindAtEitherEndIsLeftOutAndOneKindIsKeptWhole) {
  const StepPhase test_pass = main_phase(ends_of({{220, 7.5}, {12, 27}}));
  EXPECT_EQ(test_pass.first, 0u);
  EXPECT_EQ(test_pass.last, 220u);
  EXPECT_EQ(test_pass.ends, 233u);
  EXPECT_NEAR(test_pass.tail_ratio, 27 / 7.5, 0.01);
  EXPECT_EQ(test_pass.words(), "steps 1-221 of 233 (left out: a tail of 12 ends at 3.60x the step)");

  const StepPhase evaluation = main_phase(ends_of({{190, 5}, {230, 1.8}}));  // 0.95 s, then 0.41 s
  EXPECT_EQ(evaluation.first, 0u);
  EXPECT_EQ(evaluation.last, 190u);
  EXPECT_NEAR(evaluation.tail_ratio, 0.36, 0.01);

  const StepPhase slow_head = main_phase(ends_of({{37, 5}, {700, 0.85}}));
  EXPECT_EQ(slow_head.first, 37u);
  EXPECT_EQ(slow_head.last, 737u);
  EXPECT_NEAR(slow_head.head_ratio, 5 / 0.85, 0.01);
  EXPECT_EQ(slow_head.words(), "steps 38-738 of 738 (left out: a head of 37 ends at 5.88x the step)");

  const StepPhase both = main_phase(ends_of({{40, 6}, {400, 1}, {30, 4}}));
  EXPECT_NEAR(static_cast<double>(both.first), 40, 1);
  EXPECT_NEAR(static_cast<double>(both.last), 440, 1);
  EXPECT_TRUE(both.cut());

  // Steps alternating short and long (two host waits a training step) are one kind: the line fits their mean.
  std::vector<std::pair<int, double>> alternating;
  for (int i = 0; i < 120; ++i) alternating.insert(alternating.end(), {{1, 0.03}, {1, 15}});
  EXPECT_EQ(main_phase(ends_of(alternating)).words(), "whole steady part");
  EXPECT_FALSE(main_phase(ends_of({{300, 4.25}})).cut());
  EXPECT_FALSE(main_phase(ends_of({{150, 6}, {150, 3.2}})).cut()) << "1.9x apart: not two kinds";
  EXPECT_FALSE(main_phase(ends_of({{6, 100}, {4, 1}})).cut()) << "too few ends to part";
  EXPECT_FALSE(main_phase(ends_of({{150, 5}, {1, 400}, {150, 5}})).cut()) << "one stall is no phase";
  EXPECT_FALSE(main_phase({}).cut());
  EXPECT_EQ(main_phase({}).words(), "whole steady part");
}

// A ladder keeps one kind of step at every N. mnist-ff on an H200 (results/2026-12-02-study): alone, a head of
// about 11,200 short host waits (0.5 s) then 83 steps of about 20 ms (1.7 s), the tail kept; at N=10 time-sliced
// each short wait took 0.69 ms behind nine other copies, the head outlasted the tail and was kept instead. With
// the runs alone's sides to follow, every copy keeps the tail; a copy the runs alone never parted stays whole.
TEST(StepPhase, ALadderFollowsThePartsItsRunsAloneKept) {
  using harness::ladder_sides;
  using harness::PhaseSide;
  using harness::PhaseSides;
  const std::vector<std::int64_t> alone = ends_of({{2000, 0.25}, {83, 20}});
  const std::vector<std::int64_t> crowded = ends_of({{2000, 3.5}, {83, 60}});
  const StepPhase a = main_phase(alone);
  EXPECT_EQ(a.first, 2000u) << a.words();
  // The tail (84 ends) is under 5 % of the ends: the first cut leaves 105, the second the rest of the head.
  EXPECT_EQ(a.sides, (PhaseSides{PhaseSide::after, PhaseSide::after}));
  const StepPhase own = main_phase(crowded);
  EXPECT_EQ(own.first, 0u) << "by its own times the head took longer: " << own.words();
  EXPECT_LT(own.last, 2000u);
  const StepPhase followed = main_phase(crowded, a.sides);
  EXPECT_EQ(followed.first, 2000u) << followed.words();
  EXPECT_EQ(followed.last, 2083u);
  EXPECT_FALSE(main_phase(crowded, PhaseSides{}).cut()) << "runs alone never parted: the whole steady part";

  EXPECT_EQ(ladder_sides({}), std::nullopt);
  const PhaseSides head{PhaseSide::after}, tail{PhaseSide::before};
  EXPECT_EQ(ladder_sides({tail, head, head}), head) << "the most of them";
  EXPECT_EQ(ladder_sides({tail, head}), tail) << "a tie: the earliest run's";
  EXPECT_EQ(ladder_sides({PhaseSides{}, PhaseSides{}, head}), PhaseSides{});
}

// A following cut keeps enough of the steps. dcgan on an H200 (results/2026-12-04-regate): its runs alone left out a
// slow head and an evaluation tail and kept about 70 % of their steps; its two copies under MPS, following those
// sides, kept steps 118-212 of 835 and left the rest out as "a tail of 623 ends at 0.49x the step". Here the copies'
// training steps begin with a stretch twice as slow as the rest, and contention slowed their training more than their
// evaluation (1.3x a training step, not 2.3x): the one split the second cut finds is the stretch's end. With the runs
// alone's share to keep (half of it at least) that split is passed over, and no other parts the rest 2x apart.
TEST(StepPhase, AFollowingCutKeepsAtLeastHalfTheShareItsRunsAloneKept) {
  using harness::ladder_follow;
  using harness::PhaseFollow;
  const std::vector<std::int64_t> alone = ends_of({{100, 4.5}, {580, 1.0}, {136, 2.3}});
  const std::vector<std::int64_t> crowded = ends_of({{117, 4.5}, {95, 2.2}, {487, 1.0}, {136, 1.3}});
  const StepPhase a = main_phase(alone);
  EXPECT_EQ(a.words(),
            "steps 110-681 of 817 (left out: a head of 109 ends at 3.93x the step, a tail of 136 ends at "
            "2.30x the step)");
  EXPECT_NEAR(a.kept_share(), 571.0 / 816, 1e-12);
  const StepPhase sides_only = main_phase(crowded, a.sides);
  EXPECT_LT(sides_only.kept_share(), 0.1) << "a stretch: " << sides_only.words();
  const std::optional<PhaseFollow> follow = ladder_follow({a, a, a});
  ASSERT_TRUE(follow.has_value());
  EXPECT_EQ(follow->sides, a.sides);
  EXPECT_NEAR(follow->least_kept_share, harness::kFollowKeptShare * a.kept_share(), 1e-12);
  const StepPhase kept = main_phase(crowded, follow);
  EXPECT_GE(kept.kept_share(), follow->least_kept_share) << kept.words();
  EXPECT_LE(kept.first, 212u) << "every training step after the stretch: " << kept.words();
  EXPECT_EQ(kept.last, 835u) << kept.words();
  // A run alone that kept other sides does not set the share; none without a run alone.
  const StepPhase other = main_phase(ends_of({{300, 1.0}, {40, 6.0}}));
  ASSERT_NE(other.sides, a.sides);
  EXPECT_NEAR(ladder_follow({a, other, a})->least_kept_share, harness::kFollowKeptShare * a.kept_share(), 1e-12);
  EXPECT_EQ(ladder_follow({}), std::nullopt);
}

// The copies of one gated run keep the same steps: released together from one host wait, a copy's k-th end closes
// the same step of the program in every copy. dcgan's ten copies under MPS on an H200
// (results/2026-12-03-gate-ladders) each had 627 ends, and by their own times kept heads cut 164 to 445 steps in.
// siamese's copies at N=2 (results/2026-12-02-study) kept, one a head left out, the other its whole steady part: behind
// its neighbour a copy's short steps slowed more than its long ones (2.5x against 1.1x here), under the 2x that parts
// a steady part by its own times; the run's mean parts both where the program's phase changes.
TEST(StepPhase, TheCopiesOfOneRunKeepTheSameSteps) {
  using harness::shared_phase;
  const std::vector<std::int64_t> one = ends_of({{190, 1}, {300, 4}});
  const std::vector<std::int64_t> two = ends_of({{190, 2.5}, {300, 4.4}});
  ASSERT_EQ(one.size(), two.size());
  EXPECT_EQ(main_phase(one).first, 190u) << main_phase(one).words();
  EXPECT_FALSE(main_phase(two).cut()) << "by its own times: " << main_phase(two).words();
  const std::optional<StepPhase> both = shared_phase({one, two});
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->first, 190u) << both->words();
  EXPECT_EQ(both->last, 490u);
  // Ends on their own origins: a copy's clock offset changes nothing.
  std::vector<std::int64_t> later = two;
  for (std::int64_t& e : later) e += 7'000'000'000;
  EXPECT_EQ(shared_phase({one, later})->words(), both->words());
  // The runs alone's sides are followed as each copy's own cut follows them.
  using harness::PhaseSide;
  using harness::PhaseSides;
  EXPECT_FALSE(shared_phase({one, two}, PhaseSides{})->cut()) << "runs alone never parted";
  EXPECT_EQ(shared_phase({one, two}, PhaseSides{PhaseSide::after})->first, 190u);
  // None where the copies' counts differ (not the same steps) or there is one copy.
  EXPECT_EQ(shared_phase({one, ends_of({{190, 1}, {301, 4}})}), std::nullopt);
  EXPECT_EQ(shared_phase({one}), std::nullopt);
  EXPECT_EQ(shared_phase({}), std::nullopt);
}

}  // namespace
}  // namespace bench_mps::testing
