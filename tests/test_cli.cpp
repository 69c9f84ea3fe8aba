// The bad-input battery: every bad value gets one line on stderr naming the problem, exit code 2, and
// nothing written. Each case runs the real bench_mps.
#include <gtest/gtest.h>

#include "harness/errors.hpp"
#include "harness/sweep_cli.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

struct BadInput {
  std::vector<std::string> args;
  std::string expect_in_message;
};

void PrintTo(const BadInput& b, std::ostream* os) {
  for (const auto& a : b.args) *os << a << ' ';
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, OneLineExitTwoNothingWritten) {
  TempDir tmp;
  const fs::path out = tmp / "out";
  std::vector<std::string> args{"--workloads", "cpu", "--out", out.string()};
  const auto& extra = GetParam().args;
  // Cases about --workloads or --out replace the defaults above.
  for (const auto& a : extra)
    if (a == "--workloads" || a == "--out") args.clear();
  args.insert(args.end(), extra.begin(), extra.end());
  const CommandOutput r = run_program(bench_mps_exe(), args, fake_mps_env(tmp / "journal"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(GetParam().expect_in_message), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(tmp / "journal")) << "an MPS daemon was started";
}

INSTANTIATE_TEST_SUITE_P(
    Battery, BadInputTest,
    ::testing::Values(
        BadInput{{"--procs", ""}, "--procs: empty list"}, BadInput{{"--procs", "0"}, "not a positive integer"},
        BadInput{{"--procs", "-1"}, "--procs"}, BadInput{{"--procs", "abc"}, "'abc' is not a positive integer"},
        BadInput{{"--procs", "1,,4"}, "empty item"}, BadInput{{"--procs", "4,4"}, "listed twice"},
        BadInput{{"--procs", "2.5"}, "not a positive integer"}, BadInput{{"--procs", "99999999999"}, "more than"},
        BadInput{{"--procs", "1", "--procs", "2"}, "--procs"}, BadInput{{"--modes", "bogus"}, "unknown mode 'bogus'"},
        BadInput{{"--modes", ""}, "--modes: empty list"}, BadInput{{"--modes", "mps:0"}, "1..100"},
        BadInput{{"--modes", "mps:101"}, "1..100"}, BadInput{{"--modes", "mps:x"}, "1..100"},
        BadInput{{"--modes", "mps,mps"}, "listed twice"}, BadInput{{"--workloads", "bogus"}, "unknown workload 'bogus'"},
        BadInput{{"--workloads", ""}, "--workloads: empty list"}, BadInput{{"--repeats", "0"}, "--repeats"},
        BadInput{{"--repeats", "x"}, "--repeats"}, BadInput{{"--tasks", "0"}, "--tasks"},
        BadInput{{"--tasks", "-3"}, "--tasks"}, BadInput{{"--tasks", "3", "--duration", "1"}, "excludes"},
        BadInput{{"--duration", "0"}, "--duration"}, BadInput{{"--timeout", "-1"}, "--timeout"},
        BadInput{{"--spin-us", "0"}, "--spin-us"}, BadInput{{"--spin-threads", "2000"}, "--spin-threads"},
        BadInput{{"--spin-blocks", "0"}, "--spin-blocks"}, BadInput{{"--mlp-layers", "784"}, "--mlp-layers"},
        BadInput{{"--mlp-layers", "784,1"}, "at least 2"}, BadInput{{"--mlp-layers", "784,x,10"}, "--mlp-layers"},
        BadInput{{"--mlp-batch", "0"}, "--mlp-batch"}, BadInput{{"--mlp-dataset", "10"}, "fewer than one batch"},
        BadInput{{"--mlp-launch", "lazy"}, "--mlp-launch"}, BadInput{{"--mlp-steps-per-task", "0"}, "--mlp-steps-per-task"},
        BadInput{{"--frobnicate"}, "--frobnicate"}, BadInput{{"extra-positional"}, "extra-positional"},
        BadInput{{"--procs", "50", "--modes", "mps"}, "clients an MPS server accepts"},
        BadInput{{"--workloads", "cpu", "--out", "/proc/no/such/place"}, "/proc is not writable"}));

TEST(BadInput, OutIsAFile) {
  TempDir tmp;
  write_text(tmp / "file", "x");
  const auto r = run_program(bench_mps_exe(), {"--workloads", "cpu", "--out", (tmp / "file").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a folder"), std::string::npos) << r.err;
}

TEST(BadInput, OutAlreadyHoldsResults) {
  TempDir tmp;
  fs::create_directories(tmp / "old");
  write_text(tmp / "old" / "meta.json", "{}");
  const auto r = run_program(bench_mps_exe(), {"--workloads", "cpu", "--out", (tmp / "old").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("already holds results"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(tmp / "old" / "meta.json"), "{}");
}

TEST(ParseLists, ProcsModesWorkloads) {
  using namespace harness;
  EXPECT_EQ(parse_procs("1,4,10"), (std::vector<int>{1, 4, 10}));
  EXPECT_EQ(parse_procs(" 10 , 1 "), (std::vector<int>{10, 1}));
  const auto modes = parse_modes("timeslice,mps,mps:25");
  ASSERT_EQ(modes.size(), 3u);
  EXPECT_FALSE(modes[0].mps);
  EXPECT_TRUE(modes[1].mps);
  EXPECT_EQ(modes[1].active_thread_pct, 0);
  EXPECT_EQ(modes[2].active_thread_pct, 25);
  EXPECT_EQ(modes[2].name, "mps:25");
  EXPECT_EQ(parse_modes("mps:025")[0].name, "mps:25");
  EXPECT_EQ(parse_workloads("spin,mlp"), (std::vector<std::string>{"spin", "mlp"}));
  EXPECT_THROW(parse_procs("1,x"), UsageError);
}

TEST(Help, ListsTheMainOptions) {
  const auto r = run_program(bench_mps_exe(), {"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--procs", "--modes", "--workloads", "--repeats", "--out", "--spin-us", "--mlp-layers"})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  EXPECT_EQ(r.out.find("--cpu-fault"), std::string::npos) << "test-only options stay hidden";
}

}  // namespace
}  // namespace bench_mps::testing
