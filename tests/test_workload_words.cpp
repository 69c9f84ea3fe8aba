// Workload words at the edges only: WorkloadKind's parse/name pair, the traits the tools ask of a
// workload's word instead of comparing it (workload_config's rows), the mode kinds of --modes, and
// bench_worker taking its --workload and --xray-role as types from the command line on.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "harness/common/errors.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/workers/workload_config.hpp"
#include "harness/workers/workload_kind.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::harness {
namespace {

const std::vector<std::string> kWords{"spin", "mlp",  "membw", "filler", "mlp-infer",
                                      "duty", "exec", "cpu",   "fault",  "xray"};

TEST(WorkloadWords, EveryWordParsesToTheKindThatNamesIt) {
  for (const std::string& word : kWords) {
    const std::optional<WorkloadKind> kind = parse_workload_kind(word);
    ASSERT_TRUE(kind.has_value()) << word;
    EXPECT_EQ(workload_kind_name(*kind), word);
    EXPECT_EQ(to_string(*kind), word);
  }
  EXPECT_EQ(parse_workload_kind("mlp-infer"), WorkloadKind::mlp_infer);
  EXPECT_EQ(worker_workload_names(), kWords);  // bench_worker runs every kind, in the table's order
}

TEST(WorkloadWords, AnyOtherWordIsRefused) {
  for (const char* other :
       {"", "SPIN", "mlp_infer", "mlpinfer", "gpu", "exec ", " cpu", "timeslice", "regime-b1ms-d50"})
    EXPECT_FALSE(parse_workload_kind(other).has_value()) << other;
  EXPECT_FALSE(runs_user_program("exec ")) << "a word no workload has has no traits";
  EXPECT_FALSE(has_cpu_stand_in(""));
}

TEST(WorkloadWords, TheTraitsAreTheTablesNotTheWordsCompared) {
  for (const std::string& word : kWords) {
    EXPECT_EQ(runs_user_program(word), word == "exec") << word;
    EXPECT_EQ(has_cpu_stand_in(word), word == "duty" || word == "xray") << word;
    EXPECT_EQ(workload_needs_gpu(word), word != "exec" && word != "cpu") << word;
    EXPECT_EQ(workload_needs_gpu(*parse_workload_kind(word)), workload_needs_gpu(word)) << word;
  }
  const std::vector<std::string> offered{"spin", "mlp", "membw", "filler", "mlp-infer", "duty", "exec", "cpu"};
  EXPECT_EQ(workload_names(), offered);
  const std::vector<std::string> listed{"spin", "mlp", "membw", "filler", "mlp-infer", "duty", "exec"};
  EXPECT_EQ(listed_workload_names(), listed) << "cpu, the tests' stand-in, is accepted but never listed";

  WorkloadConfig c;
  for (const char* w : {"spin", "membw", "cpu", "mlp"}) EXPECT_TRUE(workload_feeds_streams(w, c)) << w;
  for (const char* w : {"filler", "mlp-infer", "duty", "exec", "fault", "xray"})
    EXPECT_FALSE(workload_feeds_streams(w, c)) << w;
  c.mlp.read_loss = true;
  EXPECT_FALSE(workload_feeds_streams("mlp", c)) << "reading the loss waits on the host every step";
  c.mlp.read_loss = false;
  c.mlp.profile = kernels::MlpProfile::seed001;
  EXPECT_FALSE(workload_feeds_streams("mlp", c)) << "seed001 assembles each batch on the host";
}

TEST(WorkloadWords, AnXrayRoleIsAWordOnlyOnTheCommandLine) {
  for (const auto& [word, role] : xray_role_names()) EXPECT_EQ(xray_role_name(role), word);
  EXPECT_EQ(xray_role_names().size(), 3u);
}

TEST(CpuFaultWords, EveryWordRoundTripsAndReachesTheWorkerAndTheParameters) {
  const std::vector<std::string> words{
      "none", "error", "crash", "abort", "hang", "hang-before-ready", "exit-before-ready"};
  EXPECT_EQ(cpu_fault_names(), words);
  for (const std::string& word : words) {
    const std::optional<CpuFault> fault = parse_cpu_fault(word);
    ASSERT_TRUE(fault.has_value()) << word;
    EXPECT_EQ(cpu_fault_name(*fault), word);
  }
  for (const char* other : {"", "hang_before_ready", "Error", "segv"})
    EXPECT_FALSE(parse_cpu_fault(other).has_value()) << other;

  WorkloadConfig c;
  EXPECT_EQ(workload_params_string("cpu", c), "task_us=2000");
  c.cpu.fault = CpuFault::hang_before_ready;
  EXPECT_EQ(workload_params_string("cpu", c), "task_us=2000;fault=hang-before-ready;fault_worker=0;fault_after=2");
  const std::vector<std::string> args = workload_worker_args("cpu", c);
  const auto at = std::find(args.begin(), args.end(), "--cpu-fault");
  ASSERT_NE(at, args.end());
  ASSERT_NE(std::next(at), args.end());
  EXPECT_EQ(*std::next(at), "hang-before-ready");
}

TEST(ModeKindWords, EveryCanonicalNameParsesBackToItself) {
  for (const char* name : {"timeslice", "mps", "mps:50", "mps:auto", "mps:60/40", "mps+prio", "streams", "streams:4",
                           "threads", "green", "green:64"})
    EXPECT_EQ(parse_mode(name).name, name) << name;
  EXPECT_EQ(parse_mode("streams:4").kind, ModeKind::streams);
  EXPECT_EQ(parse_mode("green:64").green_sms, 64);
  EXPECT_TRUE(parse_mode("mps:auto").mps);
  EXPECT_FALSE(parse_mode("threads").mps);
}

TEST(ModeKindWords, AnUnknownKindOrAnArgumentAKindDoesNotTakeIsRefused) {
  for (const char* bad : {"timeslice:2", "threads:4", "Timeslice", "mps2", "stream", "", "green-64"}) {
    try {
      (void)parse_mode(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("unknown mode '" + std::string(bad) + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_mode("mps:"), UsageError);
}

TEST(WorkloadWords, BenchWorkerTakesItsWorkloadAndRoleAsWords) {
  const auto worker = [](std::vector<std::string> args) {
    args.insert(args.end(), {"--tasks", "1", "--warmup", "0"});
    return testing::run_program(testing::bench_worker_exe(), args, {}, 60);
  };
  const testing::CommandOutput cpu = worker({"--workload", "cpu", "--cpu-task-us", "10"});
  EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_NE(cpu.out.find("READY"), std::string::npos) << cpu.out;

  const testing::CommandOutput xray =
      worker({"--workload", "xray", "--cpu-stand-in", "--xray-role", "busy", "--xray-busy-ms", "5"});
  EXPECT_EQ(xray.exit_code, 0) << xray.err;
  EXPECT_NE(xray.out.find("READY"), std::string::npos) << xray.out;

  const testing::CommandOutput role = worker({"--workload", "xray", "--cpu-stand-in", "--xray-role", "idle"});
  EXPECT_NE(role.exit_code, 0);
  EXPECT_NE((role.out + role.err).find("idle not in {busy,gaps,step}"), std::string::npos) << role.out << role.err;

  const testing::CommandOutput unknown = worker({"--workload", "mlp_infer"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE((unknown.out + unknown.err)
                .find("--workload: mlp_infer not in {spin,mlp,membw,filler,mlp-infer,duty,exec,cpu,fault,xray}"),
            std::string::npos)
      << unknown.out << unknown.err;

  const testing::CommandOutput no_stand_in = worker({"--workload", "mlp-infer", "--cpu-stand-in"});
  EXPECT_NE(no_stand_in.exit_code, 0);
  EXPECT_NE((no_stand_in.out + no_stand_in.err).find("no CPU stand-in for the mlp-infer workload"), std::string::npos)
      << no_stand_in.out << no_stand_in.err;
}

}  // namespace
}  // namespace bench_mps::harness
