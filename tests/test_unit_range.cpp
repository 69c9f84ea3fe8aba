// Issue 42, one kind of step by the program's own mark: --exec-unit-range NAME. Without a GPU: the recorder keeps
// an NVTX range's occurrences and the reader reads them back (malformed ones refused), the steps they open in or span
// are the unit's whatever their lengths (range_phase, unit_phase), `predict --measure` and predict's unit alone
// follow the same range on one recorded profile of the study, and the sweep hands the copies the range and NVTX's
// injection (bad values refused, nothing written). The library's NVTX callbacks themselves: test_gpu_profile.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/common/errors.hpp"
#include "harness/common/packed_files.hpp"
#include "harness/profiler/profile_recorder.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/step_phase.hpp"
#include "tests/exec_fixture.hpp"

namespace bench_mps::testing {
namespace {

using harness::RangeSpan;
using harness::StepPhase;
using Json = nlohmann::json;

constexpr std::int64_t kUs = 1000, kMs = 1000 * kUs;

TEST(UnitRange, TheRecorderKeepsItsFirstAndLastOccurrencesAndTheReaderReadsThem) {
  TempDir tmp;
  const std::uint64_t t0 = 1'000'000'000;
  profiler::RecorderLimits limits;
  limits.head_ranges = 2;
  limits.tail_ranges = 3;
  limits.pending_batch = 2;  // sorted across batches
  profiler::ProfileRecorder rec(limits, t0);
  rec.unit_range("train_step");
  for (std::uint64_t i = 0; i < 10; i += 2) {  // two threads' occurrences, each pair handed over out of order
    rec.unit_range_span(t0 + (i + 1) * kMs, t0 + (i + 1) * kMs + 500 * kUs);
    rec.unit_range_span(t0 + i * kMs, t0 + i * kMs + 500 * kUs);
  }
  rec.unit_range_span(0, 5);  // CUPTI's "unknown" timestamp: not an occurrence
  write_text(tmp / "profile-1.json", rec.json(t0 + 20 * kMs, {1, 0, "python3 train.py"}));
  const harness::GpuProfile p = harness::read_gpu_profile(tmp / "profile-1.json");
  EXPECT_EQ(p.unit_range.name, "train_step");
  EXPECT_EQ(p.unit_range.status, "ok");
  EXPECT_TRUE(p.unit_range.recorded());
  EXPECT_EQ(p.unit_range.count, 10u);
  EXPECT_EQ(p.unit_range.kept_head, 2u);
  ASSERT_EQ(p.unit_range.spans.size(), 5u);
  const std::int64_t starts_ms[] = {0, 1, 7, 8, 9};  // the first two and the last three, each part by its end
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(p.unit_range.spans[i].start_ns, starts_ms[i] * kMs) << i;
    EXPECT_EQ(p.unit_range.spans[i].end_ns, starts_ms[i] * kMs + 500 * kUs) << i;
  }
  // `bench_mps profile` says it: the count, what was kept, the occurrences' middle length (all 0.5 ms here).
  const auto shown = run_program(bench_mps_exe(), {"profile", (tmp / "profile-1.json").string()});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("  NVTX range 'train_step': 10 occurrences (the first 2 and the last 3 kept), middle "
                           "length 0.5 ms\n"),
            std::string::npos)
      << shown.out;
  const harness::FollowedRange followed = harness::followed_range(p);
  EXPECT_EQ(followed.name, "train_step");
  EXPECT_EQ(followed.why_not, "");
  EXPECT_EQ(followed.spans.size(), 5u);

  // None asked: no unit_range in the profile, none read.
  profiler::ProfileRecorder plain(limits, t0);
  plain.unit_range_span(t0 + kMs, t0 + 2 * kMs);  // nothing asked: not kept
  const std::string text = plain.json(t0 + 20 * kMs, {2, 0, ""});
  EXPECT_EQ(text.find("unit_range"), std::string::npos) << text;
  write_text(tmp / "profile-2.json", text);
  EXPECT_EQ(harness::read_gpu_profile(tmp / "profile-2.json").unit_range.name, "");

  // Asked, and could not be had: the first reason is said, and unit_phase says it before the lengths' choice.
  profiler::ProfileRecorder failed(limits, t0);
  failed.unit_range("train_step");
  failed.unit_range_unavailable("cuptiEnableCallback: CUPTI_ERROR_NOT_SUPPORTED (22)");
  failed.unit_range_unavailable("a later failure");
  write_text(tmp / "profile-3.json", failed.json(t0 + 20 * kMs, {3, 0, ""}));
  const harness::GpuProfile q = harness::read_gpu_profile(tmp / "profile-3.json");
  EXPECT_FALSE(q.unit_range.recorded());
  const auto said = run_program(bench_mps_exe(), {"profile", (tmp / "profile-3.json").string()});
  EXPECT_NE(said.out.find("  NVTX range 'train_step': not recorded (cuptiEnableCallback: CUPTI_ERROR_NOT_SUPPORTED "
                          "(22))\n"),
            std::string::npos)
      << said.out;
  const harness::FollowedRange none = harness::followed_range(q);
  EXPECT_EQ(none.why_not, "cuptiEnableCallback: CUPTI_ERROR_NOT_SUPPORTED (22)");
  EXPECT_EQ(harness::unit_phase({0, kMs, 2 * kMs}, none).words(),
            "NVTX range 'train_step' not recorded (cuptiEnableCallback: CUPTI_ERROR_NOT_SUPPORTED (22)): whole steady "
            "part");
}

TEST(UnitRange, AMalformedOneIsRefusedNamingWhatIsWrong) {
  TempDir tmp;
  profiler::ProfileRecorder rec({}, 0);
  rec.unit_range("step");
  rec.unit_range_span(10, 20);
  rec.unit_range_span(30, 40);
  const Json good = Json::parse(rec.json(100, {1, 0, ""}));
  struct Case {
    const char* what;
    std::function<void(Json&)> change;
  };
  const std::vector<Case> cases{
      {"missing 'name' in unit_range", [](Json& j) { j["unit_range"].erase("name"); }},
      {"unit_range: 'name' is not a name", [](Json& j) { j["unit_range"]["name"] = ""; }},
      {"unit_range: 'name' is not a name", [](Json& j) { j["unit_range"]["status"] = 1; }},
      {"missing 'count' in unit_range", [](Json& j) { j["unit_range"].erase("count"); }},
      {"'spans' in unit_range is not an array", [](Json& j) { j["unit_range"]["spans"] = 3; }},
      {"NVTX range 1 is not [start, end] with 0 <= start <= end",
       [](Json& j) {
         j["unit_range"]["spans"][1] = {5, 3};
       }},
      {"unit_range: kept_head, spans and count disagree", [](Json& j) { j["unit_range"]["count"] = 1; }},
      {"unit_range: kept_head, spans and count disagree", [](Json& j) { j["unit_range"]["kept_head"] = 3; }},
  };
  for (const Case& c : cases) {
    Json j = good;
    c.change(j);
    write_text(tmp / "profile-1.json", j.dump());
    const auto r = run_program(bench_mps_exe(), {"profile", (tmp / "profile-1.json").string()});
    EXPECT_EQ(r.exit_code, 2) << c.what << ": " << r.err;
    EXPECT_NE(r.err.find(c.what), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

/// Step ends of a loop: `train` steps of 1 ms, then `eval` of 5 ms, then `train` of 1 ms again (from 0); with
/// each training step in an occurrence of the range where `mark_train`, else each evaluation step: pushed 10 us
/// after the wait before it returned, popped 5 us after its own wait returned (a sliver of the next step).
struct Loop {
  std::vector<std::int64_t> ends{0};
  std::vector<RangeSpan> ranges;
  Loop(int train, int eval, int train_again, bool mark_train) {
    auto steps = [&](int n, std::int64_t length, bool marked) {
      for (int i = 0; i < n; ++i) {
        const std::int64_t from = ends.back();
        ends.push_back(from + length);
        if (marked) ranges.push_back({from + 10 * kUs, from + length + 5 * kUs});
      }
    };
    steps(train, kMs, mark_train);
    steps(eval, 5 * kMs, !mark_train);
    steps(train_again, kMs, mark_train);
  }
};

TEST(UnitRange, TheStepsThatOverlapItAreKeptWhateverTheirLengths) {
  // Training marked, an evaluation pass between its two stretches: kept from the first training step to the last,
  // the unit counting the training steps alone.
  const Loop train(12, 10, 20, true);
  const std::optional<StepPhase> t = harness::range_phase(train.ends, train.ranges, "train");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->first, 0u);
  EXPECT_EQ(t->last, 42u);
  ASSERT_EQ(t->counted.size(), 42u);
  for (std::size_t k = 1; k <= 42; ++k) EXPECT_EQ(t->counts(k), k <= 12 || k > 22) << k;  // not 13 nor 23's sliver
  EXPECT_EQ(t->words(), "steps 1-43 of 43 in NVTX range 'train' (32 of them; 10 others between left out)");
  // The evaluation batches marked: they are kept, where the lengths alone keep the training steps around them.
  const Loop eval(20, 10, 20, false);
  const std::optional<StepPhase> e = harness::range_phase(eval.ends, eval.ranges, "eval");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->first, 20u);
  EXPECT_EQ(e->last, 30u);
  EXPECT_EQ(harness::unit_phase(eval.ends, {"eval", "", eval.ranges}).words(),
            "steps 21-31 of 51 in NVTX range 'eval'");
  // One occurrence over several steps marks every one of them.
  const std::optional<StepPhase> one =
      harness::range_phase(eval.ends, {{eval.ends[20] + kUs, eval.ends[30] + kUs}}, "eval");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->first, 20u);
  EXPECT_EQ(one->last, 30u);
  // An occurrence that closes just inside the step after it does not make that one the range's; one pushed before a
  // step's start and open past its end does.
  EXPECT_FALSE(harness::range_phase(eval.ends, {{eval.ends[0] - kUs, eval.ends[0] + 5 * kUs}}, "eval"));
  const std::optional<StepPhase> sliver =
      harness::range_phase(eval.ends, {{eval.ends[2] + kUs, eval.ends[3] + 5 * kUs}}, "eval");
  ASSERT_TRUE(sliver);
  EXPECT_EQ(sliver->first, 2u);
  EXPECT_EQ(sliver->last, 3u);
  const std::optional<StepPhase> over = harness::range_phase(eval.ends, {{eval.ends[3], eval.ends[5]}}, "eval");
  ASSERT_TRUE(over);
  EXPECT_EQ(over->first, 3u);
  EXPECT_EQ(over->last, 5u);
  // An occurrence that only touches a step's end, or none at all: no step is the range's, the lengths choose.
  EXPECT_FALSE(harness::range_phase(eval.ends, {{eval.ends.back(), eval.ends.back() + kMs}}, "eval"));
  EXPECT_FALSE(harness::range_phase(eval.ends, {}, "eval"));
  const StepPhase lengths = harness::unit_phase(eval.ends, {"eval", "", {}});
  EXPECT_EQ(lengths.words().rfind("NVTX range 'eval' not seen in the steady part: steps ", 0), 0u) << lengths.words();
  EXPECT_EQ(lengths.first, harness::main_phase(eval.ends).first);
  EXPECT_EQ(lengths.last, harness::main_phase(eval.ends).last);
}

/// The steady part's counted host waits' ends of a profile (as `predict --measure` finds them, on its own clock).
std::vector<std::int64_t> steady_ends(const harness::GpuProfile& p) {
  const harness::ProfileSummary s = harness::summarise(p, 20);
  std::vector<std::int64_t> ends;
  for (const harness::HostWait& w : harness::counted_waits(p, 0, p.waits.size()))
    if (w.end_ns >= s.steady_from_s * 1e9 && w.end_ns <= s.steady_to_s * 1e9) ends.push_back(w.end_ns);
  return ends;
}

/// `alone` (a copy of a study's alone folder) with each profile's unit_range "test" set to what `mark` makes of the
/// steady part's step ends; the profiles written unpacked.
void mark_profiles(const fs::path& alone,
                   const std::function<std::vector<RangeSpan>(const std::vector<std::int64_t>&)>& mark) {
  for (const fs::path& file : harness::gpu_profile_files(alone / "profiles", true)) {
    const std::vector<RangeSpan> spans = mark(steady_ends(harness::read_gpu_profile(file)));
    Json j = Json::parse(harness::read_text_unpacked(file));
    Json list = Json::array();
    for (const RangeSpan& r : spans) list.push_back(Json::array({r.first, r.second}));
    j["unit_range"] = {
        {"name", "test"}, {"status", "ok"}, {"count", spans.size()}, {"kept_head", spans.size()}, {"spans", list}};
    fs::path plain = file;
    if (plain.extension() == ".gz") {
      fs::remove(file);
      plain.replace_extension();
    }
    write_text(plain, j.dump());
  }
}

/// The test pass: the tail the steady part's lengths leave out, one occurrence over all its steps.
std::vector<RangeSpan> test_pass(const std::vector<std::int64_t>& ends) {
  const StepPhase lengths = harness::main_phase(ends);
  EXPECT_LT(lengths.last + 1, ends.size()) << "no tail left out: " << lengths.words();
  return {{ends[lengths.last], ends.back()}};
}

/// Two stretches of training steps, the steps from 10 % to 40 % and from 60 % to 90 % of the steady part's ends,
/// one occurrence per step (within its ends); the steps between them are of another kind for the range.
std::vector<RangeSpan> two_stretches(const std::vector<std::int64_t>& ends) {
  std::vector<RangeSpan> out;
  const std::size_t n = ends.size();
  for (std::size_t k = 1; k < n; ++k)
    if ((k > n / 10 && k <= 4 * n / 10) || (k > 6 * n / 10 && k <= 9 * n / 10))
      out.push_back({ends[k - 1] + 1, ends[k] - 1});
  return out;
}

/// `predict --measure` and predict's alone runs of `alone` (against the study's X-ray): units.csv's rows and the
/// alone runs of predict.json.
std::pair<std::vector<std::map<std::string, std::string>>, Json> measure_and_predict(const fs::path& alone,
                                                                                     const fs::path& out) {
  const auto m = run_program(bench_mps_exe(), {"predict", "--measure", alone.string()});
  EXPECT_EQ(m.exit_code, 0) << m.err;
  const auto p = run_program(bench_mps_exe(), {"predict", alone.string(), "--xray", (study() / "xray").string(),
                                               "--procs", "2", "--out", out.string()});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  return {csv_records(alone / "units.csv"), Json::parse(read_text(out / "predict.json")).at("alone_runs")};
}

// One unit on both sides: `--measure` on mnist's copies alone and predict's unit of the same profiles both keep the
// steps of the range, within 2 % of each other, and say so: its test pass (which the lengths leave out), and two
// stretches of its training steps with others between them (kept in the steady part, left out of the unit).
TEST(UnitRange, MeasureAndPredictFollowTheSameRangeOfOneRecordedProfile) {
  TempDir tmp;
  fs::copy(study() / "mnist" / "alone", tmp / "plain", fs::copy_options::recursive);
  std::map<std::string, double> by_lengths, steps_by_lengths;
  for (const auto& row : measure_and_predict(tmp / "plain", tmp / "plain-p").first) {
    by_lengths[row.at("mode")] = std::stod(row.at("unit_ms"));
    steps_by_lengths[row.at("mode")] = std::stod(row.at("steps"));
  }
  ASSERT_EQ(by_lengths.size(), 2u);
  struct Marking {
    const char* name;
    std::vector<RangeSpan> (*mark)(const std::vector<std::int64_t>&);
    const char* words;  ///< in the phase of both sides
  };
  for (const Marking& k : {Marking{"test-pass", test_pass, " in NVTX range 'test'"},
                           Marking{"two-stretches", two_stretches, " others between left out)"}}) {
    SCOPED_TRACE(k.name);
    const fs::path alone = tmp / k.name;
    fs::copy(study() / "mnist" / "alone", alone, fs::copy_options::recursive);
    mark_profiles(alone, k.mark);
    const auto [units, alone_runs] = measure_and_predict(alone, tmp / (std::string(k.name) + "-p"));
    int compared = 0;
    for (const auto& row : units) {
      const std::string mode = row.at("mode");
      EXPECT_EQ(row.at("unit_basis"), "common window") << mode;
      EXPECT_NE(row.at("phase").find(k.words), std::string::npos) << row.at("phase");
      // The test pass's steps are several training steps long (2.00-5.16x, docs/PREDICT.md).
      if (k.mark == test_pass) {
        EXPECT_GT(std::stod(row.at("unit_ms")), 1.5 * by_lengths.at(mode)) << mode;
      }
      // Six tenths of the steady part's steps counted, the middle fifth between them not.
      if (k.mark == two_stretches) {
        EXPECT_LT(std::stod(row.at("steps")), 0.65 * steps_by_lengths.at(mode)) << mode;
        EXPECT_GT(std::stod(row.at("steps")), 0.5 * steps_by_lengths.at(mode)) << mode;
      }
      for (const auto& a : alone_runs)
        if (a.at("mode") == mode) {
          // The same steps ("steps 224-240 of"): predict's trace counts one end more, its exit.
          const std::string theirs = a.at("phase"), mine = row.at("phase");
          EXPECT_EQ(theirs.substr(0, theirs.find(" of ")), mine.substr(0, mine.find(" of ")))
              << theirs << " | " << mine;
          EXPECT_NE(theirs.find(k.words), std::string::npos) << theirs;
          EXPECT_NEAR(std::stod(row.at("unit_ms")) / a.at("unit_ms").get<double>(), 1.0, 0.02)
              << mode << ": measured " << row.at("unit_ms") << " ms, predict's " << a.at("unit_ms");
          ++compared;
        }
    }
    EXPECT_EQ(compared, 2);
  }
}

// The device step's two helpers on a committed ladder (results/2026-12-02-unitrange lease 3): units_by_cell.py says
// each cell as the README quotes it; without_unit_range.py copies the folder with every profile's unit_range taken
// out (its runs alone's six), and --measure on the copy keeps the steps by their lengths again.
TEST(UnitRange, TheDeviceStepsHelpersReadACommittedLadder) {
  TempDir tmp;
  const fs::path ladder = source_dir() / "results" / "2026-12-02-unitrange" / "lease-3" / "marked";
  const fs::path scripts = source_dir() / "scripts";
  const auto cells = run_program(scripts / "units_by_cell.py", {ladder.string()});
  EXPECT_EQ(cells.exit_code, 0) << cells.err;
  EXPECT_NE(cells.out.find("  timeslice N=10: 20/20 copies co-run, unit median 3.589 ms\n"), std::string::npos)
      << cells.out;
  EXPECT_NE(cells.out.find("  mps N=10: 0/20 copies co-run, unit median -\n"), std::string::npos) << cells.out;
  const auto bad = run_program(scripts / "units_by_cell.py", {(tmp / "none").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;

  const fs::path copy = tmp / "lengths";
  const auto strip = run_program(scripts / "without_unit_range.py", {ladder.string(), copy.string()});
  ASSERT_EQ(strip.exit_code, 0) << strip.err;
  EXPECT_NE(strip.out.find("  6 profiles had their unit_range taken out\n"), std::string::npos) << strip.out;
  const auto again = run_program(scripts / "without_unit_range.py", {ladder.string(), copy.string()});
  EXPECT_EQ(again.exit_code, 2) << "an existing folder is not written over: " << again.err;
  for (const fs::path& file : harness::gpu_profile_files(copy / "profiles", true))
    EXPECT_EQ(harness::read_gpu_profile(file).unit_range.name, "") << file;
  fs::remove(copy / "units.csv");  // its ladder's profiles were not committed: measure the runs alone only
  std::string runs = read_text(copy / "runs.csv"), alone;
  std::istringstream lines(runs);
  for (std::string line; std::getline(lines, line);)
    if (alone.empty() || line.find("-exec-n1,") != std::string::npos) alone += line + "\n";
  write_text(copy / "runs.csv", alone);
  const auto m = run_program(bench_mps_exe(), {"predict", "--measure", copy.string()});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  for (const auto& row : csv_records(copy / "units.csv"))
    EXPECT_EQ(row.at("phase").find("NVTX"), std::string::npos) << row.at("phase");
}

class UnitRangeSweep : public ExecSweep {};

// The copies get the range's name and NVTX's injection (the profiler library, as CUDA's), meta.json the range.
TEST_F(UnitRangeSweep, TheCopiesAreHandedTheRangeAndNvtxsInjection) {
  const std::string command =
      "echo \"$BENCH_MPS_UNIT_RANGE|$NVTX_INJECTION64_PATH|$CUDA_INJECTION64_PATH\" > "
      "\"$BENCH_MPS_PROFILE_DIR/env.txt\"";
  const auto r = sweep({"--command", command, "--procs", "1", "--modes", "timeslice", "--profile-gpu",
                        "--exec-unit-range", "train step", "--exec-gate", "off"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string seen = read_text(out() / "profiles" / "r1-timeslice-exec-n1" / "w0" / "env.txt");
  const std::size_t bar = seen.find('|'), second = seen.find('|', bar + 1);
  ASSERT_NE(second, std::string::npos) << seen;
  EXPECT_EQ(seen.substr(0, bar), "train step");
  EXPECT_EQ(seen.substr(bar + 1, second - bar - 1), seen.substr(second + 1, seen.size() - second - 2)) << seen;
  EXPECT_NE(seen.find("libbench_mps_profiler.so"), std::string::npos) << seen;
  const Json meta = Json::parse(read_text(out() / "meta.json"));
  EXPECT_EQ(meta.at("gpu_profile").at("unit_range"), "train step") << meta.dump();
}

TEST_F(UnitRangeSweep, ABadValueIsOneLineAndNothingWritten) {
  const std::vector<std::vector<std::string>> cases{
      {"--exec-unit-range", "", "--profile-gpu"},
      {"--exec-unit-range", std::string(257, 'x'), "--profile-gpu"},
      {"--exec-unit-range", "a\tb", "--profile-gpu"},
      {"--exec-unit-range", "train"},  // without the profiles it is read from
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"--command", "true", "--procs", "1", "--modes", "timeslice"};
    args.insert(args.end(), c.begin(), c.end());
    const auto r = sweep(args);
    EXPECT_EQ(r.exit_code, 2) << c[1] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("--exec-unit-range"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out())) << c[1];
  }
  // advise follows the range where the program prints no --exec-metric; beside one (two units) it refuses it, and a
  // side-by-side pair (whole runs) too: one line, exit 2, nothing written.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--", "--exec-unit-range", "train", "--exec-metric", "step_ms=([0-9.]+)"},
        std::vector<std::string>{"--beside", "cpu", "--", "--exec-unit-range", "train"}}) {
    std::vector<std::string> a{"advise", "--command", "true", "--out", (tmp / "advice").string(), "--cpu-stand-in"};
    a.insert(a.end(), extra.begin(), extra.end());
    const auto advise = run_program(bench_mps_exe(), a, env, 60);
    EXPECT_EQ(advise.exit_code, 2) << advise.err;
    EXPECT_EQ(std::count(advise.err.begin(), advise.err.end(), '\n'), 1) << advise.err;
    EXPECT_NE(advise.err.find("--exec-unit-range"), std::string::npos) << advise.err;
    EXPECT_FALSE(fs::exists(tmp / "advice"));
  }
}

}  // namespace
}  // namespace bench_mps::testing
