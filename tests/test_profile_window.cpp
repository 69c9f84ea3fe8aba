// A GPU profile's steady part on the harness's clock, with NVML and GPM over it, without a GPU: the
// profiler's clock anchors written and read back, the mapping from CUPTI's clock to CLOCK_MONOTONIC, the
// NVML samples and GPM periods chosen inside a window, profiles without anchors, and --profile-gpu's
// facts and screen lines with a shell command standing in for the program (as in test_profile).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/advise/advise_ladder.hpp"
#include "harness/advise/advise_output.hpp"
#include "harness/common/errors.hpp"
#include "harness/gpu/sample_windows.hpp"
#include "harness/profiler/profile_recorder.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/profile_window.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/exec_fixture.hpp"

namespace bench_mps::testing {
namespace {

using harness::GpmPeriod;
using harness::GpuProfile;
using harness::UtilSample;

fs::path profile_fixture(const std::string& name) { return fixtures_dir() / "gpu_profiles" / name; }

constexpr std::int64_t kMs = 1000000;
// anchored_1ms_steps.json: two_kernels_1ms_steps.json (steady part 1.0 .. 9.2 ms) with clock anchors
// [0 ns, 1e12 ns monotonic] and [9.5 ms, 1e12 + 9.5 ms]: profile time t is CLOCK_MONOTONIC 1e12 + t.
constexpr std::int64_t kT0 = 1000000000000;

GpuProfile profile_with_clock(const nlohmann::json& clock, const TempDir& tmp) {
  nlohmann::json j = nlohmann::json::parse(read_text(profile_fixture("two_kernels_1ms_steps.json")));
  j["clock"] = clock;
  const fs::path file = tmp / "profile-1.json";
  write_text(file, j.dump());
  return harness::read_gpu_profile(file);
}

TEST(ProfileClock, TheRecordersAnchorsAreReadBackAndMapCuptiTimeToMonotonic) {
  profiler::ProfileRecorder rec({}, 5000);
  rec.monotonic_anchor(5000, 7000000000, 300);  // CUPTI 5000 ns <-> monotonic 7 s
  rec.kernel({{"k", 0, {1, 1, 1}, {32, 1, 1}, 16, 0, 0}, 6000, 9000});
  rec.monotonic_anchor(8000, 7000003000, 900);                        // a later one: replaced by the last
  rec.monotonic_anchor(5000 + 10000000, 7000000000 + 10000010, 500);  // 10 ms on, monotonic ran 1 ppm faster
  TempDir tmp;
  write_text(tmp / "profile-7.json", rec.json(5000 + 10000000, {7, 1, "prog"}));
  const GpuProfile p = harness::read_gpu_profile(tmp / "profile-7.json");
  ASSERT_EQ(p.monotonic_anchors.size(), 2u);
  EXPECT_EQ(p.monotonic_anchors[0].profile_ns, 0);
  EXPECT_EQ(p.monotonic_anchors[0].monotonic_ns, 7000000000);
  EXPECT_EQ(p.monotonic_anchors[1].profile_ns, 10000000);
  EXPECT_EQ(p.monotonic_anchors[1].spread_ns, 500);
  const harness::ProfileClock c = harness::profile_clock(p);
  ASSERT_EQ(c.unavailable, "");
  EXPECT_EQ(c.t0_monotonic_ns, 7000000000);
  EXPECT_NEAR(c.rate, 1.000001, 1e-12);
  EXPECT_EQ(c.spread_ns, 500);
  EXPECT_EQ(c.monotonic_ns(0.005), 7000000000 + 5000005);
  EXPECT_NEAR(c.profile_s(7000000000 + 5000005), 0.005, 1e-12);
}

TEST(ProfileClock, OneAnchorIsAnOffset) {
  TempDir tmp;
  const GpuProfile p =
      profile_with_clock({{"t0_ns", 1}, {"end_ns", 9500000}, {"monotonic_anchors", {{2000, 50000, 10}}}}, tmp);
  const harness::ProfileClock c = harness::profile_clock(p);
  ASSERT_EQ(c.unavailable, "");
  EXPECT_EQ(c.rate, 1.0);
  EXPECT_EQ(c.t0_monotonic_ns, 48000);
  EXPECT_EQ(c.monotonic_ns(1e-3), 1048000);
}

TEST(ProfileClock, WithoutUsableAnchorsTheWindowIsSaidUnavailable) {
  TempDir tmp;
  const std::vector<std::pair<nlohmann::json, std::string>> cases{
      // An older profiler's profile (format_version 1 or 2 alike): no anchors at all.
      {{{"t0_ns", 1}, {"end_ns", 9500000}}, "the profile has no clock anchor (written by an older profiler)"},
      {{{"t0_ns", 1},
        {"end_ns", 9500000},
        {"monotonic_anchors", nlohmann::json::array()},
        {"monotonic_error", "cuptiGetTimestamp: CUPTI_ERROR_NOT_INITIALIZED (15)"}},
       "the profiler could not read the clocks: cuptiGetTimestamp: CUPTI_ERROR_NOT_INITIALIZED (15)"},
      // 1% apart: not the same kind of clock.
      {{{"t0_ns", 1}, {"end_ns", 9500000}, {"monotonic_anchors", {{0, 0, 1}, {1000000, 1010000, 1}}}},
       "CLOCK_MONOTONIC ran 1.01 times as fast as CUPTI's clock between the anchors"},
  };
  for (const auto& [clock, why] : cases) {
    const GpuProfile p = profile_with_clock(clock, tmp);
    EXPECT_EQ(harness::profile_clock(p).unavailable, why);
    const auto s = harness::summarise(p, 20);
    const auto w = harness::profile_window(p, s, {{kT0, 50}, {kT0 + kMs, 50}}, {}, "", "");
    EXPECT_EQ(w.unavailable, why);
    EXPECT_TRUE(harness::window_facts(w).empty());
    EXPECT_EQ(harness::describe_window(s, w),
              "steady part 0.001-0.009 s: CUPTI duty 21.4%; NVML and GPM not beside it: " + why);
  }
  // A profile recorded on an H100 before the anchors (results/2026-11-26-profile): read and summarised
  // as before, its window unavailable.
  for (const fs::path& f :
       harness::gpu_profile_files(source_dir() / "results/2026-11-26-profile/client-profiled-1/profiles", true)) {
    const GpuProfile recorded = harness::read_gpu_profile(f);
    EXPECT_TRUE(recorded.monotonic_anchors.empty()) << f;
    const auto s = harness::summarise(recorded, 20);
    EXPECT_GT(s.bursts, 0u) << f;
    EXPECT_EQ(harness::profile_window(recorded, s, {}, {}, "", "").unavailable,
              "the profile has no clock anchor (written by an older profiler)");
  }
  // The real older fixture reads as before, its window unavailable.
  const GpuProfile old = harness::read_gpu_profile(profile_fixture("two_kernels_1ms_steps.json"));
  EXPECT_TRUE(old.monotonic_anchors.empty());
  EXPECT_NE(harness::profile_clock(old).unavailable.find("older profiler"), std::string::npos);
  // Anchors that are not [profile ns, monotonic ns, spread >= 0] in time order: the file is refused, named.
  for (const nlohmann::json& bad : {nlohmann::json{{0, 1}}, nlohmann::json{{0, 1, -1}},
                                    nlohmann::json{{5, 1, 1}, {4, 2, 1}}, nlohmann::json("x")}) {
    EXPECT_THROW(profile_with_clock({{"t0_ns", 1}, {"end_ns", 9500000}, {"monotonic_anchors", bad}}, tmp),
                 harness::UsageError)
        << bad.dump();
  }
}

TEST(SampleWindows, NvmlSamplesCountWhereTheirWholePeriodIsInside) {
  std::vector<UtilSample> every_100ms;
  for (int k = 0; k <= 30; ++k) every_100ms.push_back({k * 100 * kMs, static_cast<unsigned>(k)});
  // [1.0 s, 2.0 s]: the sample at 1.0 s covers 0.9-1.0 s (outside); 1.1 .. 2.0 s are inside.
  const std::vector<double> inside = harness::utilization_within(every_100ms, 1000 * kMs, 2000 * kMs);
  ASSERT_EQ(inside.size(), 10u);
  EXPECT_DOUBLE_EQ(inside.front(), 0.11);
  EXPECT_DOUBLE_EQ(inside.back(), 0.20);
  EXPECT_TRUE(harness::utilization_within(every_100ms, 1000 * kMs, 1050 * kMs).empty());  // shorter than a period
  EXPECT_TRUE(harness::utilization_within({{1500 * kMs, 40}}, 0, 3000 * kMs).empty());    // no period known
  EXPECT_TRUE(harness::utilization_within({}, 0, 3000 * kMs).empty());
}

TEST(SampleWindows, GpmPeriodsInsideTheWindowAndTheSpanTheyCover) {
  std::vector<GpmPeriod> periods;
  for (int k = 0; k < 30; ++k) {
    const double v = k < 15 ? 0.10 : 0.40;
    periods.push_back({k * 100 * kMs, (k + 1) * 100 * kMs, {v, v / 2, k == 12 ? NAN : v / 4}});
  }
  // [0.95 s, 2.05 s]: the first sample at or after 0.95 s is at 1.0 s, the last at or before 2.05 s at 2.0 s.
  const harness::GpmWindow w = harness::gpm_within(periods, 950 * kMs, 2050 * kMs);
  EXPECT_EQ(w.periods, 10u);
  EXPECT_EQ(w.from_ns, 1000 * kMs);
  EXPECT_EQ(w.to_ns, 2000 * kMs);
  EXPECT_NEAR(w.metrics.sm_util, (5 * 0.10 + 5 * 0.40) / 10, 1e-12);  // periods 10..14 and 15..19
  EXPECT_NEAR(w.metrics.sm_occupancy, (5 * 0.05 + 5 * 0.20) / 10, 1e-12);
  EXPECT_NEAR(w.metrics.dram_bw_util, (4 * 0.025 + 5 * 0.10) / 9, 1e-12);  // the NaN period left out of its mean
  // Longer periods weigh more.
  const harness::GpmWindow uneven =
      harness::gpm_within({{0, 100, {0.2, NAN, NAN}}, {100, 400, {0.6, NAN, NAN}}}, 0, 400);
  EXPECT_NEAR(uneven.metrics.sm_util, (0.2 * 100 + 0.6 * 300) / 400, 1e-12);
  EXPECT_TRUE(std::isnan(uneven.metrics.sm_occupancy));
  // A window no period fits in: none, and no metric.
  const harness::GpmWindow none = harness::gpm_within(periods, 1010 * kMs, 1090 * kMs);
  EXPECT_EQ(none.periods, 0u);
  EXPECT_TRUE(std::isnan(none.metrics.sm_util));
  EXPECT_EQ(harness::gpm_within({}, 0, 1).periods, 0u);
}

TEST(ProfileWindowOfARun, NvmlAndGpmOverTheSteadyPartBesideTheDuty) {
  const GpuProfile p = harness::read_gpu_profile(profile_fixture("anchored_1ms_steps.json"));
  const auto s = harness::summarise(p, 20);
  // The driver's samples every 1 ms; GPM periods of 0.5 ms; both from 0 to 12 ms of the profile.
  std::vector<UtilSample> util;
  for (int k = 0; k <= 12; ++k) util.push_back({kT0 + k * kMs, static_cast<unsigned>(10 + k)});
  std::vector<GpmPeriod> gpm;
  for (int k = 0; k < 24; ++k) gpm.push_back({kT0 + k * kMs / 2, kT0 + (k + 1) * kMs / 2, {0.02, 0.01, 0.005}});
  const auto w = harness::profile_window(p, s, util, gpm, "", "");
  ASSERT_EQ(w.unavailable, "");
  EXPECT_EQ(w.from_ns, kT0 + 1000000);
  EXPECT_EQ(w.to_ns, kT0 + 9200000);
  // Samples at 2 .. 9 ms (each covers the ms before it): 12 .. 19 %.
  EXPECT_EQ(w.nvml_samples, 8u);
  EXPECT_NEAR(w.nvml_util, 0.155, 1e-12);
  // GPM: samples at 1.0 .. 9.0 ms, 16 periods.
  EXPECT_EQ(w.gpm.periods, 16u);
  EXPECT_NEAR(w.gpm_from_s, 0.001, 1e-12);
  EXPECT_NEAR(w.gpm_to_s, 0.009, 1e-12);
  EXPECT_EQ(
      harness::describe_window(s, w),
      "steady part 0.001-0.009 s: CUPTI duty 21.4%; NVML util 15.5% (8 samples); GPM SM util 2.0%, occupancy 1.0%, "
      "DRAM bw 0.5% over 0.001-0.009 s (16 periods)");
  // As facts, and back.
  std::map<std::string, double> facts;
  for (const auto& [k, v] : harness::window_facts(w)) facts[k] = v;
  EXPECT_EQ(facts.at("profile_nvml_samples"), 8);
  EXPECT_EQ(facts.at("profile_gpm_periods"), 16);
  EXPECT_NEAR(facts.at("profile_gpm_sm_util"), 0.02, 1e-12);
  const auto back =
      harness::window_from_facts([&facts](const std::string& k) { return facts.count(k) ? facts[k] : NAN; });
  EXPECT_EQ(harness::describe_window(s, back), harness::describe_window(s, w));

  // Nothing recorded: each says why, the run's own reason first.
  const auto bare = harness::profile_window(p, s, {}, {}, "no NVML: no GPU driver or GPU", "no NVML");
  EXPECT_EQ(
      harness::describe_window(s, bare),
      "steady part 0.001-0.009 s: CUPTI duty 21.4%; NVML util - (no NVML: no GPU driver or GPU); GPM - (no NVML)");
  // Samples that all lie outside the steady part (an empty window for them).
  const std::vector<UtilSample> late{{kT0 + 20 * kMs, 5}, {kT0 + 21 * kMs, 5}};
  const auto outside = harness::profile_window(p, s, late, {{kT0 + 20 * kMs, kT0 + 21 * kMs, {0.1, 0.1, 0.1}}}, "", "");
  EXPECT_EQ(outside.nvml_samples, 0u);
  EXPECT_EQ(outside.nvml_why, "no utilisation sample's period lies inside the steady part");
  EXPECT_EQ(outside.gpm_why, "no GPM period lies inside the steady part");
  std::map<std::string, double> zero;
  for (const auto& [k, v] : harness::window_facts(outside)) zero[k] = v;
  EXPECT_EQ(zero, (std::map<std::string, double>{{"profile_nvml_samples", 0}, {"profile_gpm_periods", 0}}));
}

TEST(ProfileWindowOfARun, AProfileWithoutASteadyPartHasNoWindow) {
  TempDir tmp;
  nlohmann::json j = nlohmann::json::parse(read_text(profile_fixture("anchored_1ms_steps.json")));
  j["busy"]["spans"] = nlohmann::json::array();
  j["busy"]["kept_head"] = 0;
  write_text(tmp / "profile-2.json", j.dump());
  const GpuProfile p = harness::read_gpu_profile(tmp / "profile-2.json");
  const auto w = harness::profile_window(p, harness::summarise(p, 20), {{kT0, 1}, {kT0 + kMs, 1}}, {}, "", "");
  EXPECT_EQ(w.unavailable, "the profile has no steady part");
}

// advise: the profiled copy's window beside its duty in advice.md and advice.json, where its facts hold
// one; a recorded folder without them gives the advice as before.
TEST(ProfileWindowInAdvice, TheAloneCopysWindowIsReadFromItsFactsAndShownBesideTheDuty) {
  const fs::path recorded = source_dir() / "results/2026-11-26-profile/client-profiled-1";
  std::optional<harness::ProfileWindow> none;
  const harness::AloneFacts before = harness::read_alone(recorded, {true, true}, 20, &none);
  EXPECT_FALSE(none.has_value());
  TempDir tmp;
  fs::copy_file(recorded / "summary.csv", tmp / "summary.csv");
  std::string runs = read_text(recorded / "runs.csv");
  const std::size_t at = runs.find("profile_duty=");
  ASSERT_NE(at, std::string::npos);
  runs.insert(at,
              "profile_nvml_samples=60;profile_nvml_util=0.31;profile_gpm_periods=88;profile_gpm_sm_util=0.012;"
              "profile_gpm_sm_occupancy=0.004;profile_gpm_dram_bw_util=0.003;profile_gpm_from_s=1.25;"
              "profile_gpm_to_s=10.05;");
  write_text(tmp / "runs.csv", runs);
  harness::Advice a;
  a.meta = nlohmann::json::object();
  a.alone = harness::read_alone(tmp.path(), {true, true}, 20, &a.alone_window);
  EXPECT_EQ(a.alone.duty, before.duty);  // the model's input is untouched
  ASSERT_TRUE(a.alone_window.has_value());
  const std::string md = harness::advice_markdown(a);
  EXPECT_NE(md.find("| NVML and GPM over that steady part | NVML util 31.0% (60 samples); GPM SM util 1.2%, occupancy "
                    "0.4%, DRAM bw 0.3% over 1.250-10.050 s (88 periods) |"),
            std::string::npos)
      << md;
  const nlohmann::json w = harness::advice_json(a).at("alone").at("profile_window");
  EXPECT_EQ(w.at("nvml_samples"), 60);
  EXPECT_DOUBLE_EQ(w.at("nvml_util").get<double>(), 0.31);
  EXPECT_EQ(w.at("gpm_periods"), 88);
  EXPECT_DOUBLE_EQ(w.at("gpm_to_s").get<double>(), 10.05);
  // Without a window: no row, no key.
  a.alone_window.reset();
  EXPECT_EQ(harness::advice_markdown(a).find("NVML and GPM over"), std::string::npos);
  EXPECT_FALSE(harness::advice_json(a).at("alone").contains("profile_window"));
}

// --profile-gpu through exec: the copies' facts and screen lines; `bench_mps profile` on the folder
// finds them again in runs.csv. No GPU here: NVML's and GPM's parts say why they are empty.
class ProfileWindowExec : public ExecSweep {};

TEST_F(ProfileWindowExec, EachCopysSteadyPartIsSaidWithNvmlAndGpmBesideIt) {
  const std::string command =
      "cp '" + profile_fixture("anchored_1ms_steps.json").string() + "' \"$BENCH_MPS_PROFILE_DIR/profile-$$.json\"";
  const auto r = sweep({"--command", command, "--procs", "2", "--modes", "timeslice", "--profile-gpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int copy : {0, 1})
    EXPECT_NE(
        r.err.find("\n  copy " + std::to_string(copy) + ": steady part 0.001-0.009 s: CUPTI duty 21.4%; NVML util - ("),
        std::string::npos)
        << r.err;
  const auto workers = harness::read_runs(out() / "runs.csv");
  ASSERT_GE(workers.size(), 2u);
  for (const auto& w : workers) {
    EXPECT_EQ(w.fact("profile_pid"), 4242) << w.facts;
    EXPECT_NEAR(w.fact("profile_steady_from_s"), 0.001, 1e-9) << w.facts;
    EXPECT_NEAR(w.fact("profile_steady_to_s"), 0.0092, 1e-9) << w.facts;
    EXPECT_EQ(w.fact("profile_nvml_samples"), 0) << w.facts;  // the run is not at the fixture's monotonic time
    EXPECT_EQ(w.fact("profile_gpm_periods"), 0) << w.facts;
    EXPECT_TRUE(std::isnan(w.fact("profile_nvml_util"))) << w.facts;
  }
  const auto again = run_program(bench_mps_exe(), {"profile", (out() / "profiles").string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(std::count(again.out.begin(), again.out.end(), '\n'), static_cast<long>(workers.size()) * 9)
      << again.out;  // 9 lines a profile
  const std::string from_facts =
      "  over it, as its run recorded: NVML util - (none inside the steady part); GPM - (none inside the steady "
      "part)\n";
  std::size_t found = 0;
  for (std::size_t at = again.out.find(from_facts); at != std::string::npos; at = again.out.find(from_facts, at + 1))
    ++found;
  EXPECT_EQ(found, workers.size()) << again.out;
  // The profile alone (outside a results folder): where its steady part lies on CLOCK_MONOTONIC.
  const auto alone = run_program(bench_mps_exe(), {"profile", profile_fixture("anchored_1ms_steps.json").string()});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_NE(
      alone.out.find("  on CLOCK_MONOTONIC: steady part 1000.001-1000.009 s (2 clock anchors, read within 0.6 us)\n"),
      std::string::npos)
      << alone.out;
  const auto old = run_program(bench_mps_exe(), {"profile", profile_fixture("two_kernels_1ms_steps.json").string()});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_NE(old.out.find("  NVML and GPM cannot be set beside it: the profile has no clock anchor (written by an older "
                         "profiler)\n"),
            std::string::npos)
      << old.out;
}

}  // namespace
}  // namespace bench_mps::testing
