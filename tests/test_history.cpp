// bench_mps history (issue 46): the change-point method on synthetic series with a known step (seeded), the
// verb on the committed H100 default-sweep folders, INSUFFICIENT points, the exports, and every bad input.
#include <gtest/gtest.h>

#include <functional>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

#include "harness/report/history.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

constexpr int kSeries = 100;
constexpr std::size_t kFolders = 10, kSets = 5;

/// A series of kFolders folders of kSets worker sets each: set means of 1000 x (1 + folder jitter + set noise),
/// times (1 + step) from folder `step_at` on (and only at `blip_at`, where given).
std::vector<harness::HistoryPoint> series(std::mt19937& rng, double set_sd, double folder_sd, double step,
                                          std::size_t step_at, std::size_t blip_at = kFolders) {
  std::normal_distribution<double> sets(0, set_sd), folders(0, folder_sd);
  std::vector<harness::HistoryPoint> out;
  for (std::size_t f = 0; f < kFolders; ++f) {
    const double level = 1000 * (1 + folders(rng)) * (f >= step_at || f == blip_at ? 1 + step : 1);
    std::vector<double> means;
    for (std::size_t s = 0; s < kSets; ++s) means.push_back(level * (1 + sets(rng)));
    out.push_back(harness::make_point(f, means, 0));
  }
  return out;
}

/// How many of kSeries series call a change at `step_at` (with its interval), how many of those intervals hold
/// the true ratio, how many changes were called elsewhere, and how many series call any change at all.
struct Found {
  int at_step = 0, any = 0;
  int covered = 0;    ///< of at_step, how many intervals held the true ratio
  int elsewhere = 0;  ///< changes called at another folder
  double median_width = 0;
};

Found run_study(unsigned seed, double set_sd, double folder_sd, double step, std::size_t step_at,
                std::size_t blip_at = kFolders) {
  std::mt19937 rng(seed);
  Found f;
  const harness::CompareOptions options;  // compare's defaults: 1 % threshold, alpha 0.05
  std::vector<double> widths;
  for (int i = 0; i < kSeries; ++i) {
    const harness::SeriesChanges c =
        harness::find_changes(series(rng, set_sd, folder_sd, step, step_at, blip_at), options);
    f.any += !c.changes.empty();
    for (const harness::HistoryChange& ch : c.changes) {
      if (ch.at != step_at) {
        ++f.elsewhere;
        continue;
      }
      f.at_step += std::isfinite(ch.lower);
      f.covered += ch.lower <= 1 + step && ch.upper >= 1 + step;
      widths.push_back(ch.upper - ch.lower);
    }
  }
  std::sort(widths.begin(), widths.end());
  f.median_width = widths.empty() ? NAN : widths[widths.size() / 2];
  return f;
}

// The committed H100 references' noise is under 1 % (results/2026-11-27-h100-80gb-hbm3: 0.0-2.2 %, most rows
// 0.1-0.9 %): sets spread 0.3 % (a 5-set interval of about 0.7 %), folders of one build 0.3 % apart.
TEST(HistoryMethod, AThreePercentStepIsFoundWhereItIsAndNothingWhereThereIsNone) {
  const Found step = run_study(46, 0.003, 0.003, 0.03, 5);
  EXPECT_GE(step.at_step, 95) << "a +3 % step after folder 4 found at folder 5, its interval holding 1.03";
  const Found down = run_study(47, 0.003, 0.003, -0.03, 3);
  EXPECT_GE(down.at_step, 95) << "a -3 % step";
  const Found none = run_study(48, 0.003, 0.003, 0, kFolders);
  EXPECT_LE(none.any, 5) << "series without a step";
  const Found blip = run_study(49, 0.003, 0.003, 0.03, kFolders, 4);
  EXPECT_LE(blip.any, 5) << "one folder 3 % off is a blip, not a change";
  EXPECT_GE(step.covered + down.covered, 170) << "the ~94 % intervals hold the true step about that often";
  std::printf(
      "history: +3%% step found at its folder in %d/100 (-3%%: %d/100), the interval holding the true "
      "ratio in %d and %d of them (median width %.4f); changes elsewhere %d and %d; no step: a change called in "
      "%d/100; one-folder blip: %d/100\n",
      step.at_step, down.at_step, step.covered, down.covered, step.median_width, step.elsewhere, down.elsewhere,
      none.any, blip.any);
}

// Where the noise is larger, the smallest step the method finds 95 times in 100 (printed; docs/COMPARE.md).
TEST(HistoryMethod, TheSmallestStepFoundAtLargerNoiseIsReported) {
  for (const double sd : {0.01, 0.02}) {
    double smallest = NAN;
    for (double step = 0.01; step <= 0.30 + 1e-9; step += 0.01)
      if (run_study(50, sd, sd, step, 5).at_step >= 95) {
        smallest = step;
        break;
      }
    EXPECT_TRUE(std::isfinite(smallest)) << "no step up to 30 % found 95 times in 100 at set and folder sd " << sd;
    const Found none = run_study(51, sd, sd, 0, kFolders);
    std::printf(
        "history: set and folder sd %.0f%%: the smallest step found at its folder 95/100 is %.0f%%; "
        "without a step a change is called in %d/100 series\n",
        100 * sd, 100 * smallest, none.any);
  }
}

// Two sets far apart: Student's t reaches below 0, which no throughput is; the interval stops at 0 (a review found
// "623.35 (-758.35-2005.0)").
TEST(HistoryMethod, APointsIntervalStopsAtZero) {
  const harness::HistoryPoint p = harness::make_point(0, {100, 1150}, 0);
  EXPECT_DOUBLE_EQ(p.lower, 0.0);
  EXPECT_GT(p.upper, p.mean);
  // One set has no interval: both ends stay unknown (a review found its lower end written as 0).
  const harness::HistoryPoint one = harness::make_point(0, {100}, 0);
  EXPECT_TRUE(std::isnan(one.lower)) << one.lower;
  EXPECT_TRUE(std::isnan(one.upper)) << one.upper;
}

TEST(HistoryMethod, InsufficientPointsAreNeverJudged) {
  std::vector<harness::HistoryPoint> points;
  for (std::size_t f = 0; f < 4; ++f) points.push_back(harness::make_point(f, {1000, 1001, 999}, 0));
  points.push_back(harness::make_point(4, {1300}, 0));              // one worker set
  points.push_back(harness::make_point(5, {1300, 1301, 1299}, 2));  // runs not ok
  EXPECT_FALSE(points[4].sufficient());
  EXPECT_FALSE(points[5].sufficient());
  const harness::SeriesChanges c = harness::find_changes(points, {});
  EXPECT_TRUE(c.changes.empty());
  EXPECT_TRUE(c.pending.empty());
  EXPECT_TRUE(c.blips.empty());
}

// A FASTER or SLOWER last folder is pending, and sized as a change would be: its direction, its ratio to the segment
// and the interval (it was named alone: "pending ... at #3").
TEST(HistoryMethod, APendingLastFolderCarriesItsDirectionSizeAndInterval) {
  std::vector<harness::HistoryPoint> points;
  for (std::size_t f = 0; f < 3; ++f) points.push_back(harness::make_point(f, {1000, 1001, 999}, 0));
  points.push_back(harness::make_point(3, {900, 901, 899}, 0));
  const harness::SeriesChanges c = harness::find_changes(points, {});
  ASSERT_EQ(c.pending, std::vector<std::size_t>{3});
  ASSERT_EQ(c.pending_changes.size(), 1u);
  const harness::HistoryChange& p = c.pending_changes[0];
  EXPECT_EQ(p.at, 3u);
  EXPECT_EQ(p.segment_from, 0u);
  EXPECT_EQ(p.direction, harness::Verdict::slower) << "throughput 10 % lower";
  EXPECT_NEAR(p.ratio, 0.9, 1e-9);
  EXPECT_LT(p.lower, 0.9);
  EXPECT_GT(p.upper, 0.9);
  EXPECT_TRUE(c.changes.empty()) << "not called before the next folder agrees";
}

// --- the verb -----------------------------------------------------------------------------------------------

std::vector<std::string> h100_default_sweeps() {
  const fs::path r = source_dir() / "results";
  return {(r / "2026-11-26-h100-80gb-hbm3").string(), (r / "2026-11-27-h100-80gb-hbm3").string(),
          (r / "2026-11-27-reference-check" / "h100-lease-a").string(),
          (r / "2026-11-27-reference-check" / "h100-lease-d").string(),
          (r / "2026-11-27-reference-check" / "h100-lease-h").string()};
}

TEST(History, TheCommittedH100FoldersShowNoChangeAndAFigurePerWorkload) {
  TempDir tmp;
  std::vector<std::string> args{"history"};
  for (const std::string& d : h100_default_sweeps()) args.push_back(d);
  args.insert(args.end(), {"--out", (tmp / "h").string()});
  const CommandOutput out = run_program(bench_mps_exe(), args);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("No change persisted in any series."), std::string::npos) << out.out;
  const nlohmann::json j = nlohmann::json::parse(read_text(tmp / "h" / "history.json"));
  EXPECT_EQ(j["folders"].size(), 5u);
  EXPECT_EQ(j["testbeds"].size(), 1u);
  EXPECT_EQ(j["series"].size(), 12u);
  for (const auto& s : j["series"]) EXPECT_TRUE(s["changes"].empty()) << s.dump();
  EXPECT_TRUE(fs::exists(tmp / "h" / "history.csv"));
  EXPECT_TRUE(fs::exists(tmp / "h" / "history.md"));
  if (out.err.find("figures not drawn") == std::string::npos) {
    EXPECT_TRUE(fs::exists(tmp / "h" / "plots" / "history-1-spin.png"));
    EXPECT_TRUE(fs::exists(tmp / "h" / "plots" / "history-2-mlp.png"));
    EXPECT_FALSE(fs::exists(tmp / "h" / "plots" / "plot.log")) << "a script that drew in silence leaves no empty log";
  }
  // Ordered by driver version, then by the sweep's start.
  std::string last;
  for (const auto& f : j["folders"]) {
    EXPECT_LE(last, f["started_utc"].get<std::string>());
    last = f["started_utc"].get<std::string>();
  }
}

TEST(History, ExportsAreBmfAndTheCustomToolsArray) {
  std::vector<std::string> args{"history"};
  for (const std::string& d : h100_default_sweeps()) args.push_back(d);
  args.insert(args.end(), {"--format", "bencher"});
  const CommandOutput bmf = run_program(bench_mps_exe(), args);
  ASSERT_EQ(bmf.exit_code, 0) << bmf.err;
  const nlohmann::json b = nlohmann::json::parse(bmf.out);
  ASSERT_TRUE(b.is_object());
  EXPECT_EQ(b.size(), 12u);
  for (const auto& [name, measures] : b.items())
    for (const auto& [measure, metric] : measures.items()) {
      EXPECT_EQ(measure, "throughput");
      EXPECT_TRUE(metric.at("value").is_number()) << name;
    }
  args.back() = "github-benchmark";
  const nlohmann::json g = nlohmann::json::parse(run_program(bench_mps_exe(), args).out);
  ASSERT_TRUE(g.is_array());
  for (const auto& row : g)
    EXPECT_TRUE(row.at("name").is_string() && row.at("unit").is_string() && row.at("value").is_number()) << row;
  args.back() = "markdown";
  const CommandOutput md = run_program(bench_mps_exe(), args);
  EXPECT_NE(md.out.find("**0 changes called"), std::string::npos) << md.out;
}

// A folder whose host CPU is not recorded joins the testbed it otherwise matches, and the note says so.
TEST(History, AFolderWithoutItsHostCpuJoinsTheTestbedItMatches) {
  TempDir tmp;
  const fs::path f = fixtures_dir() / "compare";
  fs::copy(f / "base", tmp / "base", fs::copy_options::recursive);  // the fixtures record no host CPU: base does
  nlohmann::json meta = nlohmann::json::parse(read_text(tmp / "base" / "meta.json"));
  meta["host"]["cpu_model"] = "Some Xeon";
  write_text(tmp / "base" / "meta.json", meta.dump(2));
  const CommandOutput out =
      run_program(bench_mps_exe(), {"history", (tmp / "base").string(), (f / "aa").string(), "--format", "json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const nlohmann::json j = nlohmann::json::parse(out.out);
  EXPECT_EQ(j.at("testbeds").size(), 1u) << j.at("testbeds");
  EXPECT_NE(j.at("notes").dump().find("host CPU model not recorded in 1 of 2 folders: each such folder joins the "
                                      "testbed whose recorded fields it matches"),
            std::string::npos)
      << j.at("notes");
}

// A gate runs on the newest folder, which no later folder confirms: SLOWER there (pending) fails
// --fail-on-regression, named on stderr, as compare of the same two folders would.
TEST(History, ThePendingSlowerNewestFolderFailsTheGate) {
  const fs::path f = fixtures_dir() / "compare";
  const std::vector<std::string> a{"history", (f / "base").string(), (f / "aa").string(), (f / "slower").string()};
  EXPECT_EQ(run_program(bench_mps_exe(), a).exit_code, 0) << "without the gate: a finding";
  std::vector<std::string> gated = a;
  gated.push_back("--fail-on-regression");
  const CommandOutput gate = run_program(bench_mps_exe(), gated);
  EXPECT_EQ(gate.exit_code, 1) << gate.err;
  EXPECT_NE(gate.err.find("mps n=4 (SLOWER in the newest folder, pending: no later folder yet) (--fail-on-regression)"),
            std::string::npos)
      << gate.err;
  const CommandOutput same =
      run_program(bench_mps_exe(), {"compare", (f / "aa").string(), (f / "slower").string(), "--fail-on-regression"});
  EXPECT_EQ(same.exit_code, 1) << same.err;
  // A CI job's page has no history.md beside it: the summary names the folder its "#3" stands for.
  std::vector<std::string> summary = a;
  summary.insert(summary.end(), {"--format", "markdown"});
  const CommandOutput md = run_program(bench_mps_exe(), summary);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("| #3 590.48.01 | SLOWER pending |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("\n- #3 590.48.01: `" + (f / "slower").string() + "`\n"), std::string::npos) << md.out;
  // A dashboard's point says it too, not "0 change(s)" alone (a review found the pending regression hidden there).
  std::vector<std::string> exported = a;
  exported.insert(exported.end(), {"--format", "github-benchmark"});
  const CommandOutput gh = run_program(bench_mps_exe(), exported);
  ASSERT_EQ(gh.exit_code, 0) << gh.err;
  EXPECT_NE(gh.out.find("0 change(s) in the series; this folder SLOWER 0."), std::string::npos) << gh.out;
  EXPECT_NE(gh.out.find("pending: the next folder must agree"), std::string::npos) << gh.out;
}

TEST(History, AFolderWithFailedRunsIsInsufficientThere) {
  const fs::path f = fixtures_dir() / "compare";
  const CommandOutput out =
      run_program(bench_mps_exe(), {"history", (f / "base").string(), (f / "aa").string(), (f / "partial").string(),
                                    "--format", "json", "--fail-on-insufficient"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  const nlohmann::json j = nlohmann::json::parse(out.out);
  int insufficient = 0;
  for (const auto& s : j["series"])
    for (const auto& p : s["points"]) insufficient += p["status"] == "INSUFFICIENT";
  EXPECT_EQ(insufficient, 1) << "spin time-sliced N=4, where one run crashed";
}

TEST(History, BadInputIsOneLineExitTwoAndNothingWritten) {
  TempDir tmp;
  const fs::path f = fixtures_dir() / "compare";
  const std::string base = (f / "base").string();
  const std::vector<std::vector<std::string>> cases{
      {"history"},                                                  // an empty list
      {"history", base},                                            // one folder
      {"history", base, base},                                      // a folder twice
      {"history", base, (f / "base" / ".." / "base").string()},     // twice under two names
      {"history", base, (f / "other_gpu").string()},                // mixed testbeds
      {"history", base, (f / "bad_garbage").string()},              // a damaged folder
      {"history", base, (tmp / "nowhere").string()},                // no such folder
      {"history", base, (f / "aa").string(), "--format", "xml"},    // a format it does not write
      {"history", base, (f / "aa").string(), "--threshold", "-1"},  // a negative threshold
      {"history", (tmp.path()).string()}};                          // a folder holding none
  for (const auto& args : cases) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--out", (tmp / "out").string()});
    const CommandOutput out = run_program(bench_mps_exe(), a);
    std::string joined;
    for (const auto& x : args) joined += x + " ";
    EXPECT_EQ(out.exit_code, 2) << joined << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << joined << out.err;
    EXPECT_FALSE(fs::exists(tmp / "out")) << joined << ": something was written";
  }
  // Mixed testbeds with the flag: one series per testbed, never mixed.
  const CommandOutput both =
      run_program(bench_mps_exe(), {"history", base, (f / "aa").string(), (f / "other_gpu").string(),
                                    "--allow-different-testbeds", "--format", "json"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(nlohmann::json::parse(both.out)["testbeds"].size(), 2u);
}

TEST(History, AFolderLackingAFieldJoinsTheOneTestbedItMatchesNeverTwo) {
  // A folder without an SM count (an older bench_mps's) sorted first used to take in every GPU after it: a 132-SM and
  // a 114-SM H200 became one testbed. Now it joins the one testbed it matches, and one matching two is refused.
  TempDir tmp;
  const fs::path f = fixtures_dir() / "compare";
  const auto edited = [&](const std::string& from, const std::string& to,
                          const std::function<void(nlohmann::json&)>& e) {
    fs::copy(f / from, tmp / to, fs::copy_options::recursive);
    nlohmann::json meta = nlohmann::json::parse(read_text(tmp / to / "meta.json"));
    e(meta);
    write_text(tmp / to / "meta.json", meta.dump(2));
    return (tmp / to).string();
  };
  const std::string unknown = edited("base", "unknown", [](nlohmann::json& m) {
    m["gpu"]["sm_count"] = nullptr;
    m["gpu"]["driver_version"] = "570.1";  // the oldest: first in the history
  });
  const std::string fewer = edited("aa", "fewer", [](nlohmann::json& m) { m["gpu"]["sm_count"] = 114; });
  const std::string base = (f / "base").string();

  const CommandOutput one = run_program(bench_mps_exe(), {"history", unknown, base, "--format", "json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const nlohmann::json j = nlohmann::json::parse(one.out);
  ASSERT_EQ(j["testbeds"].size(), 1u) << one.out;
  EXPECT_NE(j["testbeds"][0].get<std::string>().find("132 SMs"), std::string::npos) << "filled by the folder that "
                                                                                       "recorded it: "
                                                                                    << one.out;
  const CommandOutput two = run_program(bench_mps_exe(), {"history", base, fewer});
  EXPECT_EQ(two.exit_code, 2) << two.out;
  EXPECT_NE(two.err.find("the folders measured 2 testbeds"), std::string::npos) << two.err;
  for (const bool allowed : {false, true}) {  // its points could be either's: refused with the flag too
    std::vector<std::string> a{"history", unknown, base, fewer};
    if (allowed) a.push_back("--allow-different-testbeds");
    const CommandOutput either = run_program(bench_mps_exe(), a);
    EXPECT_EQ(either.exit_code, 2) << either.out;
    EXPECT_EQ(std::count(either.err.begin(), either.err.end(), '\n'), 1) << either.err;
    EXPECT_NE(either.err.find(unknown + ": its testbed"), std::string::npos) << either.err;
    EXPECT_NE(either.err.find("matches 2 testbeds"), std::string::npos) << either.err;
  }
}

TEST(History, AConfigurationTheNewestFolderLacksIsExportedFromNoOlderFolderAndFailsTheGate) {
  TempDir tmp;
  const fs::path f = fixtures_dir() / "compare";
  fs::copy(f / "aa", tmp / "newest", fs::copy_options::recursive);
  const auto lines = read_lines(tmp / "newest" / "summary.csv");
  std::string kept = lines.at(0) + "\n";
  long rows = 0;
  for (std::size_t i = 1; i < lines.size(); ++i)
    if (lines[i].find("-n4,") == std::string::npos) {
      kept += lines[i] + "\n";
      ++rows;
    }
  write_text(tmp / "newest" / "summary.csv", kept);
  nlohmann::json meta = nlohmann::json::parse(read_text(tmp / "newest" / "meta.json"));
  meta["runs_recorded"] = rows;
  meta["gpu"]["driver_version"] = "999.1";  // the newest
  write_text(tmp / "newest" / "meta.json", meta.dump(2));
  const std::vector<std::string> folders{(f / "base").string(), (f / "aa").string(), (tmp / "newest").string()};
  auto args = [&](std::vector<std::string> extra) {
    std::vector<std::string> a{"history"};
    a.insert(a.end(), folders.begin(), folders.end());
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const CommandOutput exported = run_program(bench_mps_exe(), args({"--format", "github-benchmark"}));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const nlohmann::json points = nlohmann::json::parse(exported.out);
  ASSERT_FALSE(points.empty());
  for (const auto& p : points) {
    EXPECT_EQ(p["name"].get<std::string>().find("n=4"), std::string::npos) << "an older folder's point: " << p.dump();
    EXPECT_NE(p["extra"].get<std::string>().find("newest"), std::string::npos) << p.dump();
  }
  const CommandOutput summary = run_program(bench_mps_exe(), args({"--format", "markdown"}));
  EXPECT_NE(summary.out.find(" missing from it**"), std::string::npos) << summary.out;
  EXPECT_NE(summary.out.find("n=4 | newest folder | missing |"), std::string::npos) << "named: " << summary.out;
  const CommandOutput gate = run_program(bench_mps_exe(), args({"--fail-on-insufficient"}));
  EXPECT_EQ(gate.exit_code, 1);
  EXPECT_NE(gate.err.find("bench_mps: history: newest folder INSUFFICIENT or missing for: "), std::string::npos)
      << "exit 1 says why: " << gate.err;
  EXPECT_NE(gate.err.find("n=4 (missing)"), std::string::npos) << gate.err;
  EXPECT_EQ(run_program(bench_mps_exe(), args({})).exit_code, 0) << "without the gate: a finding";
}

TEST(History, AnOutThatCannotBeMadeIsExitTwoNamingTheUsersFolder) {
  TempDir tmp;
  const fs::path f = fixtures_dir() / "compare";
  fs::create_symlink(tmp / "nowhere" / "deeper", tmp / "dangling");
  for (const fs::path& out : {tmp / "dangling" / "x", fs::path("/proc/bench_mps_history_out")}) {
    const CommandOutput r =
        run_program(bench_mps_exe(), {"history", (f / "base").string(), (f / "aa").string(), "--out", out.string()});
    EXPECT_EQ(r.exit_code, 2) << out << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("cannot create " + out.string()), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("staging"), std::string::npos) << "an internal folder named: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// An --out inside a folder it reads (its plots/, which the next report replaces whole): refused, as compare refuses.
TEST(History, AnOutInsideAFolderReadIsRefused) {
  TempDir tmp;
  const fs::path f = fixtures_dir() / "compare";
  fs::copy(f / "base", tmp / "base", fs::copy_options::recursive);
  const fs::path out = tmp / "base" / "hist";
  const CommandOutput r =
      run_program(bench_mps_exe(), {"history", (tmp / "base").string(), (f / "aa").string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("lies inside " + (tmp / "base").string() + ", a folder this history reads"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// --out where a comparison is (its report would replace history's figures), or the folder of folders read: refused;
// and compare's --out where a history is.
TEST(History, AnOutHoldingAComparisonOrGivenAsTheFoldersIsRefused) {
  TempDir tmp;
  const fs::path f = fixtures_dir() / "compare";
  const fs::path cmp = tmp / "cmp";
  ASSERT_EQ(run_program(bench_mps_exe(), {"compare", (f / "base").string(), (f / "aa").string(), "--out", cmp.string()})
                .exit_code,
            0);
  CommandOutput r =
      run_program(bench_mps_exe(), {"history", (f / "base").string(), (f / "aa").string(), "--out", cmp.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("already holds a comparison (comparison.csv)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(cmp / "history.md"));
  fs::create_directories(tmp / "series");
  fs::copy(f / "base", tmp / "series" / "a", fs::copy_options::recursive);
  fs::copy(f / "aa", tmp / "series" / "b", fs::copy_options::recursive);
  r = run_program(bench_mps_exe(), {"history", (tmp / "series").string(), "--out", (tmp / "series").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(": is a folder this history reads"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "series" / "history.md"));
  ASSERT_EQ(
      run_program(bench_mps_exe(), {"history", (tmp / "series").string(), "--out", (tmp / "h").string()}).exit_code, 0);
  r = run_program(bench_mps_exe(),
                  {"compare", (f / "base").string(), (f / "aa").string(), "--out", (tmp / "h").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("already holds a history (history.md)"), std::string::npos) << r.err;
}

// A series or a pair of two kinds of sweep (a fault folder beside a plain one): refused, not paired by N.
TEST(History, FoldersOfTwoScenariosAreRefusedByHistoryAndCompare) {
  const fs::path plain = source_dir() / "results" / "2026-11-24-h100-80gb-hbm3";
  const fs::path fault = source_dir() / "results" / "2026-11-24-h100-80gb-hbm3-fault";
  CommandOutput r = run_program(bench_mps_exe(), {"history", plain.string(), fault.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(": of scenario 'fault', where " + plain.string() + " is of 'sweep'"), std::string::npos)
      << r.err;
  r = run_program(bench_mps_exe(), {"compare", plain.string(), fault.string(), "--ignore-params"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("different scenarios: base is of scenario 'sweep', new of 'fault'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(History, AnOutHoldingAnotherVerbsPlotsIsRefusedAndLeftAsItWas) {
  TempDir tmp;
  const fs::path f = fixtures_dir() / "compare";
  const fs::path out = tmp / "compared";
  fs::create_directories(out / "plots");
  write_text(out / "plots" / "figure.png", "a comparison's figure");
  const CommandOutput r =
      run_program(bench_mps_exe(), {"history", (f / "base").string(), (f / "aa").string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("already holds a plots folder"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(out / "plots" / "figure.png"), "a comparison's figure");
  EXPECT_FALSE(fs::exists(out / "history.md"));
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

// The battery for history's options: every bad value one line, exit 2, nothing written, nothing on stdout.
class HistoryBadValue : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(HistoryBadValue, OneLineExitTwoNothingWritten) {
  TempDir tmp;
  const fs::path f = fixtures_dir() / "compare";
  std::vector<std::string> args{"history", (f / "base").string(), (f / "aa").string(), "--out", (tmp / "out").string()};
  args.insert(args.end(), GetParam().begin(), GetParam().end());
  const CommandOutput r = run_program(bench_mps_exe(), args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(GetParam().front()), std::string::npos) << "the option is named: " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(tmp / "out"));
}

INSTANTIATE_TEST_SUITE_P(
    History, HistoryBadValue,
    ::testing::Values(std::vector<std::string>{"--threshold", ""}, std::vector<std::string>{"--threshold", "-1"},
                      std::vector<std::string>{"--threshold", "nan"}, std::vector<std::string>{"--threshold", "inf"},
                      std::vector<std::string>{"--threshold", "1e999"}, std::vector<std::string>{"--threshold", "abc"},
                      std::vector<std::string>{"--alpha", "0"}, std::vector<std::string>{"--alpha", "1"},
                      std::vector<std::string>{"--alpha", "nan"}, std::vector<std::string>{"--alpha", "-0.5"},
                      std::vector<std::string>{"--metric", "p90"}, std::vector<std::string>{"--metric", ""},
                      std::vector<std::string>{"--format", ""}, std::vector<std::string>{"--format", "xml"},
                      std::vector<std::string>{"--format", std::string(100000, 'b')},
                      std::vector<std::string>{"--out", ""}));

}  // namespace
}  // namespace bench_mps::testing
