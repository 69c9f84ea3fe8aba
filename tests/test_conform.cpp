// `bench_mps conform` end to end on the CPU stand-in: the fake MPS daemon (tests/fakes) grants the
// thread percentage and the memory limit as the cpu workload reads them, or ignores them when told
// (FAKE_MPS_IGNORE_THREAD_PCT, FAKE_MPS_IGNORE_MEM_LIMIT); the rows must then FAIL, compare must call
// PASS -> FAIL a regression, and bad input must stop with one line and exit 2, nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/conform/conform.hpp"
#include "harness/conform/levers.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/results/conform_rows.hpp"
#include "tests/sweep_fixture.hpp"

namespace bench_mps::testing {
namespace {

using harness::ConformVerdict;

class Conform : public Orchestration {
 protected:
  void SetUp() override {
    Orchestration::SetUp();
    env.set.emplace_back("BENCH_MPS_NVIDIA_SMI", (fakes_dir() / "nvidia-smi").string());
    env.set.emplace_back("FAKE_SMI_STATE", smi_state().string());
  }
  fs::path smi_state() const { return tmp / "smi-state"; }

  CommandOutput conform(const fs::path& out, std::vector<std::string> extra, const Env& more = {}) {
    Env e = env;
    e.set.insert(e.set.end(), more.set.begin(), more.set.end());
    std::vector<std::string> a{"conform", "--cpu-stand-in", "--out", out.string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_program(bench_mps_exe(), a, e, 300);
  }
  /// Verdict per lever id, read back as compare and the fleet report read it.
  static std::map<std::string, harness::ConformRow> rows(const fs::path& out) {
    std::map<std::string, harness::ConformRow> by_id;
    for (const auto& r : harness::read_conform(out).rows) by_id[r.id] = r;
    return by_id;
  }
  CommandOutput bench(const std::vector<std::string>& a) { return run_program(bench_mps_exe(), a, env, 120); }
};

std::string show(const harness::ConformRow& r) {
  return harness::conform_verdict_name(r.verdict) + ": " + r.evidence + " / " + r.reason;
}

TEST_F(Conform, NormalFakeDaemonPassesWhatACpuStandInCanSayAndSkipsTheRest) {
  const auto r = conform(out(), {});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto by_id = rows(out());
  for (const char* id : {"proof", "thread-pct", "uneven-split", "per-client-pct", "mem-limit", "fault"})
    EXPECT_EQ(by_id.at(id).verdict, ConformVerdict::pass) << id << " " << show(by_id.at(id));
  for (const char* id : {"priority", "client-ceiling", "sm-partitions", "control-v3", "multi-user", "exclusive"}) {
    EXPECT_EQ(by_id.at(id).verdict, ConformVerdict::skip) << id << " " << show(by_id.at(id));
    EXPECT_FALSE(by_id.at(id).reason.empty()) << id;
  }
  EXPECT_NE(by_id.at("thread-pct").evidence.find("25 %: 25 SMs"), std::string::npos) << show(by_id.at("thread-pct"));
  EXPECT_NE(by_id.at("mem-limit").evidence.find("1056 MiB: mps_mem_limit"), std::string::npos)
      << show(by_id.at("mem-limit"));
  // conform.csv: the header and one line a row, no blank line between them.
  const std::vector<std::string> csv = read_lines(out() / "conform.csv");
  EXPECT_EQ(csv.size(), by_id.size() + 1) << read_text(out() / "conform.csv");
  for (const std::string& line : csv) EXPECT_FALSE(line.empty()) << read_text(out() / "conform.csv");
  EXPECT_NE(read_text(out() / "conform.md").find("| thread-pct | PASS |"), std::string::npos);
  EXPECT_NE(r.out.find("| proof | PASS |"), std::string::npos) << r.out;  // the table on screen
  EXPECT_NE(r.err.find("[1/12] proof"), std::string::npos) << r.err;      // progress
  EXPECT_EQ(harness::read_conform(out()).meta.at("status"), "complete");
}

TEST_F(Conform, CtrlCJudgesNoLeverItStoppedAndNamesTheOnesNotJudged) {
  // The lever whose sweep a Ctrl-C stopped is not an ERROR (nothing failed): it and the levers not reached are
  // named as not judged, in conform.json and conform.md, and the run exits 130.
  const fs::path out = tmp / "stopped";
  BackgroundProgram c(bench_mps_exe(),
                      {"conform", "--cpu-stand-in", "--only", "thread-pct,uneven-split", "--out", out.string()}, env);
  ASSERT_TRUE(wait_until([&] { return fs::exists(out / "sweeps" / "thread-pct" / "meta.json"); }, 60));
  c.signal(SIGINT);
  const auto r = c.wait(60);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  const harness::ConformResults results = harness::read_conform(out);
  EXPECT_EQ(results.meta.at("status"), "interrupted");
  EXPECT_EQ(results.meta.at("not_judged"), nlohmann::json({"thread-pct", "uneven-split"})) << results.meta.dump();
  for (const auto& row : results.rows) EXPECT_NE(row.verdict, ConformVerdict::error) << show(row);
  EXPECT_NE(read_text(out / "conform.md")
                .find("**Interrupted** by a stop signal: not judged: thread-pct, "
                      "uneven-split."),
            std::string::npos)
      << read_text(out / "conform.md");
}

TEST_F(Conform, ADaemonThatIgnoresTheThreadPercentageFailsThoseRows) {
  const auto r = conform(out(), {"--only", "thread-pct,uneven-split"}, {{{"FAKE_MPS_IGNORE_THREAD_PCT", "1"}}, {}});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto by_id = rows(out());
  ASSERT_EQ(by_id.size(), 2u);
  EXPECT_EQ(by_id.at("thread-pct").verdict, ConformVerdict::fail) << show(by_id.at("thread-pct"));
  EXPECT_NE(by_id.at("thread-pct").evidence.find("25 %: 100 SMs"), std::string::npos) << show(by_id.at("thread-pct"));
  // Its ideal time beside a FAIL is not 1.00x alone: what 25 % of the SMs would take is said too.
  EXPECT_NE(by_id.at("thread-pct").evidence.find("for the SMs it saw; 4.00x at 25 % of them"), std::string::npos)
      << show(by_id.at("thread-pct"));
  EXPECT_EQ(by_id.at("uneven-split").verdict, ConformVerdict::fail) << show(by_id.at("uneven-split"));
}

TEST_F(Conform, ADaemonThatIgnoresTheMemoryLimitFailsThatRow) {
  const auto r = conform(out(), {"--only", "mem-limit"}, {{{"FAKE_MPS_IGNORE_MEM_LIMIT", "1"}}, {}});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto row = rows(out()).at("mem-limit");
  EXPECT_EQ(row.verdict, ConformVerdict::fail) << show(row);
  EXPECT_NE(row.evidence.find("1056 MiB: ok"), std::string::npos) << show(row);
}

TEST_F(Conform, ExclusiveRowSetsTheModeOnlyWhenAskedAndRestoresIt) {
  const auto r = conform(out(), {"--only", "exclusive", "--set-exclusive"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(rows(out()).at("exclusive").verdict, ConformVerdict::pass) << show(rows(out()).at("exclusive"));
  EXPECT_EQ(read_text(smi_state()), "Default\n") << "the compute mode was not restored";
}

TEST_F(Conform, CompareCallsPassToFailARegressionAndTheFleetReportListsBoth) {
  const fs::path good = tmp / "fleet" / "good", bad = tmp / "fleet" / "bad";
  ASSERT_EQ(conform(good, {"--only", "thread-pct,sm-partitions"}).exit_code, 0);
  ASSERT_EQ(conform(bad, {"--only", "thread-pct,sm-partitions"}, {{{"FAKE_MPS_IGNORE_THREAD_PCT", "1"}}, {}}).exit_code,
            1);

  const auto gated = bench({"compare", good.string(), bad.string(), "--fail-on-regression"});
  EXPECT_EQ(gated.exit_code, 1) << gated.err;
  EXPECT_NE(gated.out.find("| thread-pct | PASS | FAIL | **REGRESSION** |"), std::string::npos) << gated.out;
  EXPECT_NE(gated.out.find("| sm-partitions | SKIP | SKIP | same |"), std::string::npos) << gated.out;
  EXPECT_EQ(bench({"compare", good.string(), bad.string()}).exit_code, 0)
      << "without the gate a regression is a finding";
  const fs::path compared = tmp / "compared";
  ASSERT_EQ(bench({"compare", good.string(), bad.string(), "--out", compared.string()}).exit_code, 0);
  const std::vector<std::string> csv = read_lines(compared / "conform_comparison.csv");
  EXPECT_EQ(csv.size(), 3u) << "the header and one line a lever: " << read_text(compared / "conform_comparison.csv");
  for (const std::string& line : csv) EXPECT_FALSE(line.empty()) << read_text(compared / "conform_comparison.csv");
  const auto back = bench({"compare", bad.string(), good.string(), "--fail-on-regression"});
  EXPECT_EQ(back.exit_code, 0) << back.out;
  EXPECT_NE(back.out.find("| fixed |"), std::string::npos) << back.out;

  // Options of results folders are refused on conform folders, not ignored (issue 35); nothing in common is
  // no pass under the gate.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--metric", "p99"}, {"--threshold", "5"}, {"--ignore-params"}}) {
    std::vector<std::string> a{"compare", good.string(), bad.string()};
    a.insert(a.end(), extra.begin(), extra.end());
    const auto refused = bench(a);
    EXPECT_EQ(refused.exit_code, 2) << extra.front() << refused.err;
    EXPECT_NE(refused.err.find(extra.front() + ": applies to results folders"), std::string::npos) << refused.err;
  }
  // A conform.json naming one lever twice is refused (it would hide one verdict), naming the file.
  const fs::path dup = tmp / "dup";
  fs::copy(bad, dup, fs::copy_options::recursive);
  nlohmann::json stored = nlohmann::json::parse(read_text(dup / "conform.json"));
  stored["rows"].push_back(stored["rows"][0]);
  write_text(dup / "conform.json", stored.dump(2));
  const auto twice = bench({"compare", good.string(), dup.string(), "--fail-on-regression"});
  EXPECT_EQ(twice.exit_code, 2) << twice.out;
  EXPECT_NE(twice.err.find("conform.json: lever 'thread-pct' has two rows"), std::string::npos) << twice.err;
  stored["rows"].erase(stored["rows"].size() - 1);
  stored["rows"][0]["seconds"] = -4;  // out of range: refused like a results folder's number
  write_text(dup / "conform.json", stored.dump(2));
  const auto negative = bench({"compare", good.string(), dup.string()});
  EXPECT_EQ(negative.exit_code, 2) << negative.out;
  EXPECT_NE(negative.err.find("seconds -4 is not a time a row took"), std::string::npos) << negative.err;
  const fs::path other = tmp / "fleet-other";
  ASSERT_EQ(conform(other, {"--only", "mem-limit"}).exit_code, 0);
  const auto nothing = bench({"compare", good.string(), other.string(), "--fail-on-regression"});
  EXPECT_EQ(nothing.exit_code, 1) << nothing.out;
  EXPECT_NE(nothing.err.find("no lever in common"), std::string::npos) << nothing.err;

  ASSERT_EQ(sweep({"--modes", "mps", "--procs", "1"}).exit_code, 0);  // a results folder, not a conform one
  const auto mixed = bench({"compare", good.string(), out().string()});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("holds conform results and"), std::string::npos) << mixed.err;

  const auto report = bench({"report", (tmp / "fleet").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string md = read_text(tmp / "fleet" / "report.md");
  EXPECT_NE(md.find("## MPS levers per GPU (conform)"), std::string::npos) << md;
  EXPECT_NE(md.find("| thread-pct | FAIL | PASS |"), std::string::npos) << md;  // bad sorts before good
  // conform folders alone are their levers, not a fleet of no results folders
  EXPECT_EQ(md.rfind("# MPS levers: fleet\n\n", 0), 0u) << md;
  EXPECT_NE(md.find(" conform folders and no results folder: "), std::string::npos) << md;
  EXPECT_EQ(md.find("Fleet report"), std::string::npos) << md;
  const auto one = bench({"report", good.string()});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("(MPS levers: 1 conform folder, 0 unreadable)"), std::string::npos) << one.out;
  const std::string alone = read_text(good / "report.md");
  EXPECT_EQ(alone.rfind("# MPS levers: good\n\n1 conform folder and no results folder: ", 0), 0u) << alone;
  fs::remove(good / "report.md");
}

// A gate on conform folders does not pass on what new did not judge: a run not complete, a lever of base missing
// from new or ERROR there fail --fail-on-insufficient (the report says which); without the flag they are shown.
TEST_F(Conform, CompareWithFailOnInsufficientFailsOnLeversNewDidNotJudge) {
  const fs::path good = tmp / "fleet" / "good";
  ASSERT_EQ(conform(good, {"--only", "thread-pct,sm-partitions"}).exit_code, 0);
  const auto with_conform = [&](const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    const fs::path dir = tmp / "fleet" / name;
    fs::copy(good, dir, fs::copy_options::recursive);
    nlohmann::json j = nlohmann::json::parse(read_text(dir / "conform.json"));
    edit(j);
    write_text(dir / "conform.json", j.dump(2));
    return dir;
  };
  const fs::path partial = with_conform("partial", [](nlohmann::json& j) {
    j["status"] = "running";
    j["rows"].erase(j["rows"].begin());
  });
  const fs::path errored = with_conform("errored", [](nlohmann::json& j) { j["rows"][0]["verdict"] = "ERROR"; });

  const auto shown = bench({"compare", good.string(), partial.string()});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("**Not a complete run** (new: status running)"), std::string::npos) << shown.out;
  const auto gated = bench({"compare", good.string(), partial.string(), "--fail-on-insufficient"});
  EXPECT_EQ(gated.exit_code, 1) << gated.err;
  EXPECT_NE(gated.err.find("not a complete conform run (new: status running); 1 lever(s) of base missing or ERROR"),
            std::string::npos)
      << gated.err;
  const auto error = bench({"compare", good.string(), errored.string(), "--fail-on-insufficient"});
  EXPECT_EQ(error.exit_code, 1) << error.err;
  EXPECT_NE(error.err.find("1 lever(s) of base missing or ERROR in new"), std::string::npos) << error.err;
  EXPECT_EQ(bench({"compare", good.string(), good.string(), "--fail-on-insufficient"}).exit_code, 0);
}

struct BadConform {
  std::vector<std::string> args;
  std::string message;
};

void PrintTo(const BadConform& b, std::ostream* os) { *os << b.message; }

class ConformBadInput : public Conform, public ::testing::WithParamInterface<BadConform> {};

TEST_P(ConformBadInput, OneLineExitTwoNothingWritten) {
  const fs::path fresh = tmp / "fresh";
  const auto r = conform(fresh, GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(fresh)) << "bad input wrote something";
}

INSTANTIATE_TEST_SUITE_P(Inputs, ConformBadInput,
                         ::testing::Values(BadConform{{"--only", "thread-pct,nope"}, "--only: unknown lever 'nope'"},
                                           BadConform{{"--only", "proof,proof"}, "--only: 'proof' is listed twice"},
                                           BadConform{{"--only", "proof,"}, "--only: an empty lever id"},
                                           BadConform{{"--only", ""}, "--only: an empty lever id"},
                                           BadConform{{"--budget-s", "0"}, "--budget-s"},
                                           BadConform{{"--device", "not a gpu"}, "--device"},
                                           BadConform{{"--bogus"}, "--bogus"}),
                         [](const auto& p) {
                           std::string name;
                           for (char c : p.param.args.front())
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name + "_" + std::to_string(p.index);
                         });

TEST_F(Conform, AFolderThatHoldsConformOrSweepResultsIsRefused) {
  const fs::path done = tmp / "conform";
  ASSERT_EQ(conform(done, {"--only", "sm-partitions"}).exit_code, 0);
  const auto again = conform(done, {"--only", "sm-partitions"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already holds conform results"), std::string::npos) << again.err;
  // Without the stand-in too: the folder is looked at before the machine (exit 2 on one without a GPU, not 3).
  const auto no_stand_in = bench({"conform", "--out", done.string(), "--only", "sm-partitions"});
  EXPECT_EQ(no_stand_in.exit_code, 2) << no_stand_in.err;
  EXPECT_NE(no_stand_in.err.find("already holds conform results"), std::string::npos) << no_stand_in.err;
  write_text(tmp / "a-file", "x\n");
  const auto under_a_file = bench({"conform", "--out", (tmp / "a-file" / "c").string(), "--only", "sm-partitions"});
  EXPECT_EQ(under_a_file.exit_code, 2) << under_a_file.err;
  EXPECT_NE(under_a_file.err.find("is a file, not a folder"), std::string::npos) << under_a_file.err;

  ASSERT_EQ(sweep({"--modes", "timeslice", "--procs", "1"}).exit_code, 0);
  const auto into_sweep = conform(out(), {"--only", "sm-partitions"});
  EXPECT_EQ(into_sweep.exit_code, 2) << into_sweep.err;
  EXPECT_FALSE(fs::exists(out() / "conform.json"));

  // A folder holding the user's own conform.md and conform.csv: refused, both left as they were (issue 35).
  const fs::path mine = tmp / "mine";
  fs::create_directories(mine);
  write_text(mine / "conform.md", "my notes\n");
  write_text(mine / "conform.csv", "a,b\n");
  const auto over_mine = conform(mine, {"--only", "sm-partitions"});
  EXPECT_EQ(over_mine.exit_code, 2) << over_mine.err;
  EXPECT_NE(over_mine.err.find("that bench_mps did not write there"), std::string::npos) << over_mine.err;
  EXPECT_EQ(read_text(mine / "conform.md"), "my notes\n");
  EXPECT_EQ(read_text(mine / "conform.csv"), "a,b\n");
  EXPECT_FALSE(fs::exists(mine / "conform.json"));
}

TEST_F(Conform, TheTimeBudgetStopsTheRowsLeftAsErrorAndLeavesNoDaemon) {
  const auto start = std::chrono::steady_clock::now();
  const auto r =
      conform(out(), {"--budget-s", "10", "--only", "uneven-split,per-client-pct,thread-pct,mem-limit,fault"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_LT(took, 10 + 15 + 10) << "the budget, the grace of a stopped sweep, and some slack";
  int out_of_time = 0;
  for (const auto& [id, row] : rows(out()))
    if (row.verdict == ConformVerdict::error && row.reason.find("time budget") != std::string::npos) ++out_of_time;
  EXPECT_GE(out_of_time, 1) << r.err;
  EXPECT_EQ(harness::read_conform(out()).rows.size(), 5u) << "every row is in the table, run or not";
}

TEST_F(Conform, ADaemonThatNeverStartsIsNoFailOfTheProof) {
  // Issue 35: "0/0 clients MPS-enabled" was a FAIL; nothing ran under MPS, so nothing is concluded: ERROR.
  const auto r = conform(out(), {"--only", "proof"}, {{{"FAKE_MPS_FAIL_START", "1"}}, {}});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const auto by_id = rows(out());
  EXPECT_EQ(by_id.at("proof").verdict, ConformVerdict::error) << show(by_id.at("proof"));
  EXPECT_NE(by_id.at("proof").reason.find("no client ran under MPS"), std::string::npos) << show(by_id.at("proof"));
}

TEST_F(Conform, AForeignDaemonIsRefusedBeforeAnythingIsWritten) {
  // As a sweep and advise: exit 3, one line, no folder (it used to write one and exit 1; issue 35).
  const ForeignDaemon foreign(env, tmp.path());  // quit at the end, however the test ends
  ASSERT_TRUE(foreign.running());
  const auto r = conform(out(), {"--only", "proof"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("another MPS daemon is running"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(Conform, WithoutAGpuOrTheCpuStandInItSaysSoAndWritesNothing) {
  std::vector<std::string> a{"conform", "--out", out().string()};
  const auto r = run_program(bench_mps_exe(), a, env, 60);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out()));
}

// Issue 34: a timed criterion is decided from its interval, or INCONCLUSIVE with it.
TEST(ConformDecision, ARatioCriterionIsDecidedOnlyWhereItsIntervalLiesOnOneSide) {
  EXPECT_EQ(harness::decided({0.6, 0.55, 0.66}, 0.9, "e").verdict, ConformVerdict::pass);
  EXPECT_EQ(harness::decided({1.0, 0.98, 1.02}, 0.9, "e").verdict, ConformVerdict::fail);
  const harness::Judgement open = harness::decided({0.9, 0.8, 1.01}, 0.9, "e");
  EXPECT_EQ(open.verdict, ConformVerdict::inconclusive);
  EXPECT_NE(open.reason.find("crosses"), std::string::npos) << open.reason;
  EXPECT_EQ(harness::decided({0.5, NAN, NAN}, 0.9, "e").verdict, ConformVerdict::inconclusive);  // one run: no interval
  EXPECT_EQ(harness::conform_verdict_name(ConformVerdict::inconclusive), "INCONCLUSIVE");
  EXPECT_EQ(harness::parse_conform_verdict("INCONCLUSIVE"), ConformVerdict::inconclusive);
}

TEST(ConformDecision, AChildSweepsOwnOptionWinsOverTheCommonOne) {
  using V = std::vector<std::string>;
  EXPECT_EQ(harness::with_common_args({"--procs", "2", "--repeats", "5"},
                                      {"--repeats", "1", "--settle", "0", "--cpu-stand-in"}),
            (V{"--procs", "2", "--repeats", "5", "--settle", "0", "--cpu-stand-in"}));
  EXPECT_EQ(harness::with_common_args({"--repeats=3"}, {"--repeats", "1"}), (V{"--repeats=3"}));
  EXPECT_EQ(harness::with_common_args({}, {"--repeats", "1", "--device", "0"}), (V{"--repeats", "1", "--device", "0"}));
}

// Issue 36: every command line conform builds for a child sweep parses as the sweep's own, for a GPU as for the
// CPU stand-in, the GPU-only rows (priority, client ceiling) included: each lever runs with a starter that
// records its children's command lines and answers as a child that failed, and each line is parsed here.
TEST(ConformChildArgs, EveryLeversChildSweepCommandLineParses) {
  harness::GpuStaticInfo h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.driver_version = "580.159.04";
  h100.cuda_driver_version = 13000;
  h100.memory_total_bytes = 85520809984ULL;
  h100.compute_mode = "Default";
  TempDir tmp;
  std::map<std::string, std::vector<std::string>> seen;  // "<setup>/<child>": its command line
  for (const bool stand_in : {false, true}) {
    const harness::ConformSetup setup{stand_in, true,
                                      stand_in ? std::nullopt : std::optional<harness::GpuStaticInfo>(h100)};
    for (const harness::Lever& lever : harness::conform_levers()) {
      harness::ChildSweeps sweeps(tmp.path() / (stand_in ? "cpu" : "gpu") / lever.id, harness::conform_common_args("0"),
                                  600);
      sweeps.set_starter([&](const std::vector<std::string>& args, const fs::path& log) {
        seen[std::string(stand_in ? "cpu/" : "gpu/") + log.stem().string()] = args;
        return 1;  // as a child that failed: the lever says ERROR or FAIL, and builds no more than it must
      });
      try {
        lever.check(setup, sweeps);
      } catch (const std::exception&) {  // conform makes such a lever an ERROR row; its lines are already seen
      }
    }
  }
  for (const char* child : {"gpu/proof", "gpu/thread-pct", "gpu/uneven-split", "gpu/per-client-pct", "gpu/priority",
                            "gpu/client-ceiling", "gpu/fault", "gpu/exclusive", "cpu/proof", "cpu/fault"})
    EXPECT_TRUE(seen.count(child)) << "no command line seen for " << child;
  for (const auto& [child, args] : seen) {
    try {
      const harness::SweepSpec spec = harness::parse_sweep_args(args);
      EXPECT_FALSE(spec.procs.empty()) << child;
    } catch (const std::exception& e) {
      ADD_FAILURE() << child << ": conform built a command line its sweep refuses: " << e.what();
    }
  }
}

TEST(ConformHelp, SaysWhatItWritesWithExamplesVerdictsAndExitCodes) {
  const auto r = run_program(bench_mps_exe(), {"conform", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"conform.md", "conform.csv", "conform.json", "Examples:", "bench_mps conform --out",
                           "Verdicts: PASS", "SKIP", "ERROR", "Exit codes: 0 every row PASS, SKIP or INCONCLUSIVE",
                           "; 1 a row FAIL", "2 bad command line", "128+N", "--set-exclusive"})
    EXPECT_NE(r.out.find(part), std::string::npos) << "missing: " << part << "\n" << r.out;
  std::istringstream lines(r.out.substr(r.out.find("Runs a few short sweeps")));
  for (std::string line; std::getline(lines, line);) EXPECT_LT(line.size(), 100u) << line;
  EXPECT_NE(run_program(bench_mps_exe(), {"--help"}).out.find("bench_mps conform --help"), std::string::npos);
}

}  // namespace
}  // namespace bench_mps::testing
