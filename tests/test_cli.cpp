// The bad-input battery: every bad value gets one line on stderr naming the problem, exit code 2, and
// nothing written. Each case runs the real bench_mps.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include <unistd.h>

#include <cerrno>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/plan/scenario.hpp"
#include "harness/plan/sweep_cli.hpp"
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
  EXPECT_FALSE(std::regex_search(r.err, std::regex("[0-9]{20}"))) << "a number printed in full: " << r.err;
  EXPECT_FALSE(fs::exists("/tmp/bench_mps_never_written"));
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(tmp / "journal")) << "an MPS daemon was started";
}

INSTANTIATE_TEST_SUITE_P(
    Battery, BadInputTest,
    ::testing::Values(
        BadInput{{"--procs", ""}, "--procs: empty list"}, BadInput{{"--procs", "0"}, "not a positive integer"},
        // an empty --resume (an unset variable) is no folder to continue, not a new sweep
        BadInput{{"--workloads", "cpu", "--resume", ""}, "--resume: it is empty"},
        BadInput{
            {"--workloads", "exec", "--command", "true", "--cpu-stand-in", "--out", "/tmp/bench_mps_never_written"},
            "--cpu-stand-in: the exec workload has no CPU stand-in"},
        // --exec-alone-runs (issue 42): a whole number 0..20 of an exec sweep
        BadInput{{"--workloads", "exec", "--command", "true", "--out", "/tmp/bench_mps_never_written",
                  "--exec-alone-runs", ""},
                 "--exec-alone-runs"},
        BadInput{{"--workloads", "exec", "--command", "true", "--out", "/tmp/bench_mps_never_written",
                  "--exec-alone-runs", "-1"},
                 "--exec-alone-runs"},
        BadInput{{"--workloads", "exec", "--command", "true", "--out", "/tmp/bench_mps_never_written",
                  "--exec-alone-runs", "nan"},
                 "--exec-alone-runs"},
        BadInput{{"--workloads", "exec", "--command", "true", "--out", "/tmp/bench_mps_never_written",
                  "--exec-alone-runs", "inf"},
                 "--exec-alone-runs"},
        BadInput{{"--workloads", "exec", "--command", "true", "--out", "/tmp/bench_mps_never_written",
                  "--exec-alone-runs", "garbage"},
                 "--exec-alone-runs"},
        BadInput{{"--workloads", "exec", "--command", "true", "--out", "/tmp/bench_mps_never_written",
                  "--exec-alone-runs", "99999999999"},
                 "--exec-alone-runs"},
        BadInput{{"--exec-alone-runs", "3"}, "--exec-alone-runs: counts your program's alone runs"},
        BadInput{{"--procs", "-1"}, "--procs"}, BadInput{{"--procs", "abc"}, "'abc' is not a positive integer"},
        BadInput{{"--procs", "1,,4"}, "empty item"}, BadInput{{"--procs", "4,4"}, "listed twice"},
        BadInput{{"--procs", "2.5"}, "not a positive integer"}, BadInput{{"--procs", "99999999999"}, "more than"},
        BadInput{{"--procs", "1", "--procs", "2"}, "--procs: given 2 times; give it once"},
        BadInput{{"--modes", "bogus"}, "unknown mode 'bogus'"}, BadInput{{"--modes", ""}, "--modes: empty list"},
        BadInput{{"--modes", "mps:0"}, "1..100"}, BadInput{{"--modes", "mps:101"}, "1..100"},
        BadInput{{"--modes", "mps:x"}, "1..100"}, BadInput{{"--modes", "mps,mps"}, "listed twice"},
        BadInput{{"--workloads", "bogus"}, "unknown workload 'bogus'"},
        BadInput{{"--workloads", ""}, "--workloads: empty list"}, BadInput{{"--repeats", "0"}, "--repeats"},
        BadInput{{"--repeats", "x"}, "--repeats"}, BadInput{{"--tasks", "0"}, "--tasks"},
        BadInput{{"--noise-target", "-1"}, "--noise-target"}, BadInput{{"--noise-target", "nan"}, "--noise-target"},
        BadInput{{"--noise-target", "inf"}, "--noise-target"}, BadInput{{"--noise-target", ""}, "--noise-target"},
        BadInput{{"--noise-target", "lots"}, "--noise-target"}, BadInput{{"--noise-target", "101"}, "--noise-target"},
        BadInput{{"--max-repeats", "0"}, "--max-repeats"}, BadInput{{"--max-repeats", "1.5"}, "--max-repeats"},
        BadInput{{"--max-repeats", "x"}, "--max-repeats"}, BadInput{{"--max-repeats", "99999999999"}, "--max-repeats"},
        BadInput{{"--noise-time-cap", "-1"}, "--noise-time-cap"},
        BadInput{{"--noise-time-cap", "nan"}, "--noise-time-cap"},
        BadInput{{"--noise-time-cap", "inf"}, "--noise-time-cap"},
        BadInput{{"--noise-time-cap", ""}, "--noise-time-cap"},
        // the noise target's own options where no target applies (issue 35: said, not ignored)
        BadInput{{"--max-repeats", "8", "--noise-target", "0"},
                 "--max-repeats: applies to --noise-target, which is off"},
        BadInput{{"--noise-time-cap", "60", "--noise-target", "0"}, "--noise-time-cap: applies to --noise-target"},
        BadInput{{"--tasks", "-3"}, "--tasks"},
        BadInput{{"--tasks", "3", "--duration", "1"}, "--tasks and --duration cannot be given together"},
        BadInput{{"--duration", "0"}, "--duration"}, BadInput{{"--timeout", "-1"}, "--timeout"},
        BadInput{{"--spin-us", "0"}, "--spin-us"}, BadInput{{"--spin-threads", "2000"}, "--spin-threads"},
        BadInput{{"--spin-blocks", "0"}, "--spin-blocks"}, BadInput{{"--mlp-layers", "784"}, "--mlp-layers"},
        BadInput{{"--mlp-layers", "784,1"}, "at least 2"}, BadInput{{"--mlp-layers", "784,x,10"}, "--mlp-layers"},
        BadInput{{"--mlp-batch", "0"}, "--mlp-batch"}, BadInput{{"--mlp-dataset", "10"}, "fewer than one batch"},
        BadInput{{"--mlp-launch", "lazy"}, "--mlp-launch"},
        BadInput{{"--mlp-steps-per-task", "0"}, "--mlp-steps-per-task"},
        BadInput{{"--frobnicate"}, "unknown option or extra argument: --frobnicate"},
        BadInput{{"extra-positional"}, "extra-positional"},
        // CLI11 reads whole numbers with base 0 ("010" would be 8); its own wording never reaches the user.
        BadInput{{"--repeats", "010"}, "--repeats: '010' has a leading zero (write 10)"},
        BadInput{{"--mlp-layers", "784,0512,10"}, "'0512' has a leading zero"},
        BadInput{{"--mlp-seed", "abc"}, "--mlp-seed: 'abc' is not a whole number"},
        BadInput{{"--procs"}, "--procs needs a value"},
        BadInput{{"--procs", "50", "--modes", "mps"}, "clients an MPS server accepts"},
        BadInput{{"--workloads", "cpu", "--out", "/proc/no/such/place"}, "/proc is not writable"},
        // Not a number, or no finite one: CLI11's own ranges let NaN through.
        BadInput{{"--duration", "nan"}, "--duration: 'nan' is not a number in"},
        BadInput{{"--duration", "inf"}, "--duration: 'inf' is not a number in"},
        // strtod reads hex: 0x10 would be 16 s, 0x1p4 16 s too; only decimal is a number typed here.
        BadInput{{"--duration", "0x10"}, "--duration: '0x10' is not a number in"},
        BadInput{{"--timeout", "0x1p4"}, "--timeout: '0x1p4' is not a number in"},
        BadInput{{"--modes", "mps+mem=0x10M"}, "is not a size such as 512M or 2G"},
        BadInput{{"--timeout", "nan"}, "--timeout: 'nan'"},
        BadInput{{"--ready-timeout", "nan"}, "--ready-timeout: 'nan'"},
        BadInput{{"--settle", "nan"}, "--settle: 'nan'"}, BadInput{{"--settle", "-0.5"}, "--settle: '-0.5'"},
        BadInput{{"--spin-us", "nan"}, "--spin-us: 'nan'"}, BadInput{{"--mlp-lr", "nan"}, "--mlp-lr: 'nan'"},
        BadInput{{"--mlp-momentum", "nan"}, "--mlp-momentum: 'nan'"},
        BadInput{{"--mlp-host-us", "nan"}, "--mlp-host-us: 'nan'"},
        BadInput{{"--mlp-host-us", "-1"}, "--mlp-host-us: '-1'"},
        BadInput{{"--mlp-host-us", "inf"}, "--mlp-host-us: 'inf'"},
        BadInput{{"--exec-log-cap", "lots"}, "--exec-log-cap: 'lots'"},
        BadInput{{"--exec-log-cap", ""}, "--exec-log-cap"},
        BadInput{{"--fault-delay-ms", "nan"}, "--fault-delay-ms: 'nan'"},
        BadInput{{"--timeout", "0"}, "--timeout: '0' is not a number in 0.1..86400"},
        BadInput{{"--ready-timeout", "1e9"}, "--ready-timeout"},
        // Whole numbers: the range in the message, never the largest double in full.
        BadInput{{"--spin-blocks", "-1"}, "--spin-blocks: '-1' is not a whole number in 1..1000000"},
        BadInput{{"--spin-launches", "1e3"}, "--spin-launches: '1e3' is not a whole number"},
        BadInput{{"--mlp-batch", "99999999999"}, "--mlp-batch: '99999999999' is not a whole number"},
        BadInput{{"--warmup", "-1"}, "--warmup"}, BadInput{{"--exec-log-cap", "-5"}, "--exec-log-cap"},
        BadInput{{"--mps-max-clients", "0"}, "--mps-max-clients"}, BadInput{{"--repeats", "1.5"}, "--repeats"},
        BadInput{{"--cores-per-worker", "0"}, "--cores-per-worker: '0' is not a whole number in 1..1024"},
        BadInput{{"--cores-per-worker", "2.5"}, "--cores-per-worker: '2.5' is not a whole number"},
        BadInput{{"--cores-per-worker", ""}, "--cores-per-worker"},
        BadInput{{"--cores-per-worker", "-1"}, "--cores-per-worker: '-1' is not a whole number in 1..1024"},
        BadInput{{"--cores-per-worker", "nan"}, "--cores-per-worker: 'nan' is not a whole number"},
        BadInput{{"--cores-per-worker", "inf"}, "--cores-per-worker: 'inf' is not a whole number"},
        BadInput{{"--cores-per-worker", "two"}, "--cores-per-worker: 'two' is not a whole number"},
        BadInput{{"--cores-per-worker", "99999999999"}, "--cores-per-worker: '99999999999' is not a whole number"},
        BadInput{{"--cores-per-worker", "2", "--no-pin"}, "--no-pin and --cores-per-worker cannot be given together"},
        // mlp profiles and exec
        BadInput{{"--mlp-profile", "cpu-bound"}, "--mlp-profile"},
        BadInput{{"--mlp-profile", "seed001", "--mlp-launch", "graph"}, "launches eagerly"},
        BadInput{{"--workloads", "exec", "--out", "/tmp/bench_mps_never_written"}, "needs a command"},
        BadInput{{"--workloads", "exec", "--command", "  ", "--out", "/tmp/bench_mps_never_written"},
                 "needs a command"},
        BadInput{
            {"--workloads", "exec", "--command", "true", "--exec-metric", "x", "--out", "/tmp/bench_mps_never_written"},
            "exactly one capture group"},
        BadInput{{"--command", "true"}, "add --workloads exec"},
        BadInput{{"comapre", "a", "b"}, "unknown command 'comapre' (commands: report, compare,"},  // a verb mistyped
        BadInput{{"--workloads", "exec", "--command", "true", "--scenario", "fault", "--procs", "2", "--out",
                  "/tmp/bench_mps_never_written"},
                 "not exec"},
        // The mode grammar: MPS provisioning and the in-process modes.
        BadInput{{"--modes", "mps:auto:3"}, "1..100"}, BadInput{{"--modes", "mps:"}, "nothing after ':'"},
        BadInput{{"--modes", "mps:50/0"}, "'0' must be an integer in 1..100"},
        BadInput{{"--modes", "mps:50//25"}, "must be an integer in 1..100"},
        BadInput{{"--modes", "mps+prio=2"}, "client priorities"},
        BadInput{{"--modes", "mps+prio+prio"}, "priority given twice"},
        BadInput{{"--modes", "mps+mem=0"}, "is not a size"}, BadInput{{"--modes", "mps+mem=12X"}, "is not a size"},
        BadInput{{"--modes", "mps+mem=nan"}, "is not a size"}, BadInput{{"--modes", "mps+mem=inf"}, "is not a size"},
        BadInput{{"--modes", "mps+mem=-1G"}, "is not a size"},
        BadInput{{"--modes", "mps+mem=1G+mem=2G"}, "given twice"},
        BadInput{{"--modes", "mps+turbo"}, "unknown MPS option '+turbo'"},
        BadInput{{"--modes", "timeslice+prio"}, "applies to MPS modes only"},
        BadInput{{"--modes", "threads+mem=1G"}, "applies to MPS modes only"},
        BadInput{{"--modes", "streams:33"}, "CUDA_DEVICE_MAX_CONNECTIONS"}, BadInput{{"--modes", "streams:0"}, "1..32"},
        BadInput{{"--modes", "threads:4"}, "unknown mode 'threads:4'"},
        BadInput{{"--modes", "green:0"}, "SMs per green context"},
        BadInput{{"--modes", "green:x"}, "SMs per green context"},
        BadInput{{"--modes", "green"}, "need a GPU workload"},
        BadInput{{"--modes", "mps:auto,mps:auto"}, "listed twice"},
        BadInput{
            {"--workloads", "exec", "--command", "true", "--modes", "threads", "--out", "/tmp/bench_mps_never_written"},
            "process of its own"},
        BadInput{{"--workloads", "mlp", "--mlp-profile", "seed001", "--modes", "streams", "--out",
                  "/tmp/bench_mps_never_written"},
                 "use threads"},
        BadInput{{"--scenario", "fault", "--modes", "threads", "--procs", "2"}, "fault scenario runs processes"},
        // Rounds and the new workloads' parameters.
        BadInput{{"--rounds", "0"}, "--rounds"}, BadInput{{"--rounds", "nan"}, "--rounds"},
        BadInput{{"--rounds", "-2"}, "--rounds"},
        BadInput{{"--repeats", "1", "--rounds", "5"}, "--rounds 5 with --repeats 1: a set of workers runs at most"},
        // The CPU stand-in's own: a task of no time (its fault scenario divided by it) and a fault no run could have.
        BadInput{{"--cpu-task-us", "0"}, "--cpu-task-us: '0' is not a number in 0.001..1e+09"},
        BadInput{{"--procs", "1,2", "--cpu-fault", "crash", "--cpu-fault-worker", "2"},
                 "--cpu-fault-worker 2: workers are numbered from 0, and no run of --procs has more than 2, so "
                 "--cpu-fault crash would never happen"},
        BadInput{{"--filler-target", "0"}, "--filler-target"}, BadInput{{"--filler-target", "101"}, "--filler-target"},
        BadInput{{"--filler-target", "nan"}, "--filler-target: 'nan'"},
        BadInput{{"--filler-kernel-us", "inf"}, "--filler-kernel-us"},
        BadInput{{"--filler-blocks", "-1"}, "--filler-blocks"},
        BadInput{{"--filler-yield-ms", "nan"}, "--filler-yield-ms"}, BadInput{{"--membw-mib", "0"}, "--membw-mib"},
        BadInput{{"--membw-mib", "lots"}, "--membw-mib"}, BadInput{{"--membw-iters", "-1"}, "--membw-iters"},
        BadInput{{"--membw-blocks", "1.5"}, "--membw-blocks"}, BadInput{{"--infer-rate", "0"}, "--infer-rate"},
        BadInput{{"--infer-rate", "inf"}, "--infer-rate"}, BadInput{{"--infer-rate", ""}, "--infer-rate"},
        BadInput{{"--infer-batch", "0"}, "--infer-batch"}, BadInput{{"--mlp-extra-us", "-1"}, "--mlp-extra-us"},
        BadInput{{"--mlp-extra-us", "nan"}, "--mlp-extra-us: 'nan'"},
        // The interference scenario.
        BadInput{{"--scenario", "interference", "--procs", "1,4", "--out", "/tmp/bench_mps_never_written"},
                 "at least 2"},
        BadInput{{"--scenario", "interference", "--workloads", "spin"}, "runs --foreground and --background"},
        BadInput{{"--scenario", "interference", "--foreground", "filler", "--out", "/tmp/bench_mps_never_written"},
                 "--foreground: 'filler'"},
        BadInput{{"--scenario", "interference", "--background", "mlp-infer", "--out", "/tmp/bench_mps_never_written"},
                 "--background: 'mlp-infer'"},
        BadInput{{"--scenario", "interference", "--foreground", "", "--out", "/tmp/bench_mps_never_written"},
                 "--foreground: ''"},
        BadInput{{"--scenario", "interference", "--foreground", "exec", "--background", "exec", "--command", "true",
                  "--out", "/tmp/bench_mps_never_written"},
                 "one --command serves only one"},
        BadInput{{"--scenario", "interference", "--procs", "4", "--modes", "streams", "--out",
                  "/tmp/bench_mps_never_written"},
                 "use threads"},
        BadInput{{"--scenario", "bogus"}, "--scenario"}));

// The burst axis: the X-ray and the regime map, the duty workload, the CPU stand-ins. (An --out of
// their own keeps the default --workloads cpu away from the scenarios, which run their own.)
constexpr const char* kNever = "/tmp/bench_mps_never_written";
INSTANTIATE_TEST_SUITE_P(
    RegimeBattery, BadInputTest,
    ::testing::Values(
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", "abc"},
                 "--regime-bursts-ms: 'abc' is not a number"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", "0"},
                 "--regime-bursts-ms: 0 is outside 0.001..10000"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", "-1"},
                 "--regime-bursts-ms: -1 is outside"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", "nan"},
                 "--regime-bursts-ms: 'nan' is not a number"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", "inf"},
                 "--regime-bursts-ms: 'inf' is not a number"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", "1,1"},
                 "--regime-bursts-ms: '1' is listed twice"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", "1,,2"},
                 "--regime-bursts-ms: empty item"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", ""},
                 "--regime-bursts-ms: empty list"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", "1ms"},
                 "--regime-bursts-ms: '1ms' is not a number"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-duties", "150"},
                 "--regime-duties: 150 is outside 0.1..100"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-duties", "0"}, "--regime-duties: 0 is outside"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-duties", "50%"},
                 "--regime-duties: '50%' is not a number"},
        BadInput{{"--regime-bursts-ms", "1"}, "--regime-bursts-ms: the grid belongs to --scenario regimes"},
        BadInput{{"--out", kNever, "--scenario", "xray", "--regime-duties", "50"},
                 "--regime-duties: the grid belongs to --scenario regimes"},
        BadInput{{"--out", kNever, "--scenario", "xray", "--workloads", "spin"},
                 "--workloads: --scenario xray runs its own probes"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--workloads", "duty"}, "place your workloads on the map"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--modes", "threads"},
                 "--scenario regimes measures processes"},
        BadInput{{"--out", kNever, "--scenario", "xray", "--modes", "timeslice,green"},
                 "--scenario xray measures processes"},
        BadInput{{"--duty-pct", "0"}, "--duty-pct"}, BadInput{{"--duty-pct", "101"}, "--duty-pct"},
        BadInput{{"--duty-pct", "nan"}, "--duty-pct: 'nan'"}, BadInput{{"--duty-burst-us", "0"}, "--duty-burst-us"},
        BadInput{{"--duty-burst-us", "inf"}, "--duty-burst-us: 'inf'"},
        BadInput{{"--duty-blocks", "0"}, "--duty-blocks"}, BadInput{{"--duty-kernels", "-1"}, "--duty-kernels"},
        BadInput{{"--duty-steps", "1.5"}, "--duty-steps"}, BadInput{{"--duty-threads", "2000"}, "--duty-threads"},
        BadInput{{"--workloads", "duty", "--modes", "streams", "--out", "/tmp/bench_mps_never_written"}, "use threads"},
        BadInput{{"--xray-busy-ms", "0"}, "--xray-busy-ms"},
        BadInput{{"--xray-busy-ms", "nan"}, "--xray-busy-ms: 'nan'"}, BadInput{{"--xray-gap-us", "0"}, "--xray-gap-us"},
        BadInput{{"--xray-step-us", "-5"}, "--xray-step-us"},
        BadInput{{"--workloads", "xray"}, "--workloads: unknown workload 'xray'"},
        BadInput{{"--cpu-stand-in", "--workloads", "spin"}, "--cpu-stand-in: the spin workload has no CPU stand-in"},
        BadInput{{"--out", kNever, "--scenario", "regimes", "--procs", "50", "--modes", "mps"},
                 "clients an MPS server accepts"},
        // Valid alone, too much together (issue 35): refused before any run, naming both options.
        BadInput{{"--out", kNever, "--scenario", "regimes", "--regime-bursts-ms", "10000", "--regime-duties", "0.1"},
                 "--regime-bursts-ms 10000 with --regime-duties 0.1: a step's host work would be 9990 s"},
        BadInput{{"--workloads", "duty", "--duty-burst-us", "1e7", "--duty-pct", "0.5", "--out", kNever},
                 "--duty-burst-us 1e+07 with --duty-pct 0.5"},
        BadInput{{"--out", ""}, "--out"}));

// --device, --gpus, --cpus, --external-mps (harness/plan/device_options.cpp).
INSTANTIATE_TEST_SUITE_P(
    DeviceBattery, BadInputTest,
    ::testing::Values(
        BadInput{{"--device", ""}, "--device: empty"}, BadInput{{"--device", "-1"}, "--device"},
        BadInput{{"--device", "nan"}, "--device: 'nan' is not a GPU index"},
        BadInput{{"--device", "inf"}, "--device: 'inf' is not a GPU index"},
        BadInput{{"--device", "gpu0"}, "--device: 'gpu0'"}, BadInput{{"--device", "a/b"}, "--device: 'a/b'"},
        BadInput{{"--device", "99999"}, "--device: '99999' is not a GPU index in 0..1023"},
        BadInput{{"--device", "cpu-x"}, "--device: 'cpu-x'"},
        BadInput{{"--device", "0", "--gpus", "all"}, "--device and --gpus cannot be given together"},
        BadInput{{"--gpus", ""}, "--gpus: empty list"}, BadInput{{"--gpus", "0,,1"}, "--gpus: empty item"},
        BadInput{{"--gpus", "0,0"}, "--gpus: '0' is listed twice"}, BadInput{{"--gpus", "nan"}, "--gpus: 'nan'"},
        BadInput{{"--gpus", "-1"}, "--gpus"}, BadInput{{"--gpus", "all,0"}, "'all' is a list of its own"},
        BadInput{{"--cpus", ""}, "--cpus: empty list"}, BadInput{{"--cpus", "-1"}, "--cpus"},
        BadInput{{"--cpus", "nan"}, "--cpus: 'nan' is not a CPU number"},
        BadInput{{"--cpus", "inf"}, "--cpus: 'inf' is not a CPU number"}, BadInput{{"--cpus", "x"}, "--cpus: 'x'"},
        BadInput{{"--cpus", "3-1"}, "runs backwards"}, BadInput{{"--cpus", "1,1"}, "CPU 1 is listed twice"},
        BadInput{{"--cpus", "99999"}, "not a CPU number in 0..4095"},
        BadInput{{"--cpus", "4095"}, "--cpus: CPU 4095 is not one this process may run on"},
        BadInput{{"--gpus", "cpu-0,cpu-1", "--cpus", "4095"}, "--cpus: CPU 4095 is not one this process may run on"},
        BadInput{{"--external-mps", "--modes", "timeslice,mps"}, "--external-mps: mode 'timeslice' is not an MPS mode"},
        BadInput{{"--external-mps", "--set-exclusive"}, "--external-mps: --set-exclusive"},
        BadInput{{"--external-mps", "--scenario", "fault", "--procs", "2"}, "--external-mps: --scenario fault"}));

// `bench_mps report DIR` on a folder of many results folders (the fleet report): its own options.
class FleetReportBadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(FleetReportBadInputTest, OneLineExitTwoNothingWritten) {
  TempDir tmp;
  fs::create_directories(tmp / "fleet");
  for (const char* node : {"node1", "node2"})
    fs::copy(fixtures_dir() / "compare" / "base", tmp / "fleet" / node, fs::copy_options::recursive);
  std::vector<std::string> args{"report", (tmp / "fleet").string()};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  const CommandOutput r = run_program(bench_mps_exe(), args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(GetParam().expect_in_message), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "fleet" / "report.md"));
}

INSTANTIATE_TEST_SUITE_P(FleetReportBattery, FleetReportBadInputTest,
                         ::testing::Values(BadInput{{"--threshold", ""}, "--threshold"},
                                           BadInput{{"--threshold", "-1"}, "--threshold"},
                                           BadInput{{"--threshold", "nan"}, "--threshold: 'nan' is not a number in"},
                                           BadInput{{"--threshold", "inf"}, "--threshold: 'inf' is not a number in"},
                                           BadInput{{"--threshold", "five"}, "--threshold: 'five'"},
                                           BadInput{{"--metric", "speed"}, "--metric"},
                                           BadInput{{"--metric", ""}, "--metric"}));

TEST(BadInput, OutIsAFile) {
  TempDir tmp;
  write_text(tmp / "file", "x");
  const auto r = run_program(bench_mps_exe(), {"--workloads", "cpu", "--out", (tmp / "file").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a folder"), std::string::npos) << r.err;
  // A file on the way to --out is called a file, not "not writable".
  const auto below = run_program(bench_mps_exe(), {"--workloads", "cpu", "--out", (tmp / "file" / "sub").string()});
  EXPECT_EQ(below.exit_code, 2) << below.err;
  EXPECT_NE(below.err.find((tmp / "file").string() + " is a file, not a folder"), std::string::npos) << below.err;
  EXPECT_FALSE(fs::exists(tmp / "file" / "sub"));
  // A link to nothing is called one, not "File exists".
  fs::create_symlink(tmp / "nowhere", tmp / "dangling");
  const auto link = run_program(bench_mps_exe(), {"--workloads", "cpu", "--out", (tmp / "dangling").string()});
  EXPECT_EQ(link.exit_code, 2) << link.err;
  EXPECT_NE(link.err.find((tmp / "dangling").string() + " is a link to nothing"), std::string::npos) << link.err;
  EXPECT_FALSE(fs::exists(tmp / "nowhere"));
  // A loop of links is called one: its link leads somewhere, to a link back.
  fs::create_symlink(tmp / "loop-b", tmp / "loop-a");
  fs::create_symlink(tmp / "loop-a", tmp / "loop-b");
  const auto loop = run_program(bench_mps_exe(), {"--workloads", "cpu", "--out", (tmp / "loop-a").string()});
  EXPECT_EQ(loop.exit_code, 2) << loop.err;
  EXPECT_NE(loop.err.find((tmp / "loop-a").string() + " is a link in a loop of links (it points at " +
                          (tmp / "loop-b").string() + ")"),
            std::string::npos)
      << loop.err;
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

// `--resume DIR` with a placement: the one given replaces the stored one whole, never half of each.
TEST(ResumeLimits, APlacementGivenReplacesTheStoredOneWhole) {
  using namespace harness;
  const auto resumed = [](const std::vector<std::string>& stored_args, std::vector<std::string> given_args) {
    CLI::App app;
    SweepSpec given;
    SweepCliValues raw;
    add_sweep_options(app, given, raw);
    given_args.insert(given_args.begin(), {"--resume", "somewhere"});
    std::reverse(given_args.begin(), given_args.end());  // CLI11 parses a vector from its back
    app.parse(given_args);
    finalize_sweep_spec(given, raw);
    EXPECT_FALSE(sweep_defined_on_command_line(app));
    return with_limits_given(parse_sweep_args(stored_args), given, app);
  };
  const auto pinned_k = resumed({"--workloads", "cpu", "--no-pin"}, {"--cores-per-worker", "2"});
  EXPECT_TRUE(pinned_k.pin_cpus) << "K cores each given on a folder swept unpinned must pin";
  EXPECT_EQ(pinned_k.cores_per_worker, 2);
  const auto unpinned = resumed({"--workloads", "cpu", "--cores-per-worker", "3"}, {"--no-pin"});
  EXPECT_FALSE(unpinned.pin_cpus);
  EXPECT_EQ(unpinned.cores_per_worker, 1) << "a stored K must not outlive --no-pin";
  const auto kept = resumed({"--workloads", "cpu", "--cores-per-worker", "3"}, {"--timeout", "9"});
  EXPECT_TRUE(kept.pin_cpus);
  EXPECT_EQ(kept.cores_per_worker, 3);
  const auto kept_unpinned = resumed({"--workloads", "cpu", "--no-pin"}, {"--settle", "1"});
  EXPECT_FALSE(kept_unpinned.pin_cpus);
}

TEST(Version, NamesVersionGitShaAndCuda) {
  const auto r = run_program(bench_mps_exe(), {"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(
          R"(^bench_mps [0-9]+\.[0-9]+\.[0-9]+ \(git ([0-9a-f]{40}|unknown)(, dirty)?; built with CUDA [0-9]+\.[0-9]+\)\n$)")))
      << r.out;
}

TEST(Help, ListsTheExitCodes) {
  const auto r = run_program(bench_mps_exe(), {"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* code :
       {"Exit codes: 0 ok", "; 1 ", "; 2 bad command line", "; 3 the machine cannot run it", "128+N"})
    EXPECT_NE(r.out.find(code), std::string::npos) << code << "\n" << r.out;
}

TEST(Help, ListsTheMainOptions) {
  const auto r = run_program(bench_mps_exe(), {"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--procs", "--modes", "--workloads", "--repeats", "--out", "--spin-us", "--mlp-layers",
                           "--mlp-profile", "--command", "--exec-metric", "--version"})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  // The CPU stand-in's options, the tests' faults among them, in a group of their own that says what they are.
  const auto group = r.out.find("without a GPU (CPU stand-ins: to try the flow; no GPU data):");
  ASSERT_NE(group, std::string::npos) << r.out;
  for (const char* flag : {"--cpu-task-us", "--cpu-fault", "--demo", "--cpu-stand-in"})
    EXPECT_GT(r.out.find(flag), group) << flag;
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

// Issue 35: one exit code each for a full disk and a read-only folder, whatever the verb (the errno of the
// failed write decides; docs/RESULTS.md and --help's exit codes).
TEST(WriteErrors, AFullDiskIsThreeAReadOnlyFolderTwo) {
  for (const int full : {ENOSPC, EDQUOT, EFBIG})
    EXPECT_EQ(harness::exit_code_of_write_error(full), harness::kExitEnvironment);
  for (const int denied : {EROFS, EACCES, EPERM})
    EXPECT_EQ(harness::exit_code_of_write_error(denied), harness::kExitUsage);
  EXPECT_EQ(harness::exit_code_of_write_error(EIO), harness::kExitFailed);
}

TEST(WriteErrors, AReportIntoAFolderItCannotWriteIsTwo) {
  // As root (who writes anywhere) the report runs as nobody, for whom root's folder is read-only.
  const bool root = ::geteuid() == 0;
  if (root && !fs::exists("/usr/sbin/runuser")) GTEST_SKIP() << "root, and no runuser to be someone else";
  TempDir tmp;
  fs::copy(fixtures_dir() / "results_h200_smoke", tmp / "r", fs::copy_options::recursive);
  fs::permissions(tmp.path(), fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add);
  if (!root)
    fs::permissions(tmp / "r", fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
  const CommandOutput out = root ? run_program("/usr/sbin/runuser", {"-u", "nobody", "--", bench_mps_exe().string(),
                                                                     "report", (tmp / "r").string()})
                                 : run_program(bench_mps_exe(), {"report", (tmp / "r").string()});
  if (!root) fs::permissions(tmp / "r", fs::perms::owner_write, fs::perm_options::add);
  if (out.exit_code == 3 && out.err.find("matplotlib") != std::string::npos) GTEST_SKIP() << out.err;
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_NE(out.err.find("Permission denied"), std::string::npos) << out.err;
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

// Issue 43: a full disk before the first write exits 3, as the README documents, in the sweep, advise and
// conform alike, and leaves no folder behind. The disk is "full" through a file size limit of 0 bytes (a write
// fails with EFBIG, as ENOSPC on a full disk; SIGXFSZ ignored), so the test needs no root and no mount; the first
// write is the GPU lock's pid (under TMPDIR) or the folder's claim (.bench_mps.lock), whichever comes first.
TEST(WriteErrors, AFullDiskBeforeTheFirstWriteIsThreeAndLeavesNoFolder) {
  TempDir tmp;
  const Env env = fake_mps_env(tmp / "journal.log");
  Env e = env;
  e.set.emplace_back("TMPDIR", tmp.path().string());
  const std::string bench = bench_mps_exe().string();
  const std::vector<std::pair<std::string, std::string>> verbs{
      {"sweep", bench + " --workloads cpu --cpu-task-us 500 --settle 0 --tasks 10 --repeats 1 --modes timeslice "
                        "--procs 1 --out "},
      {"advise", bench + " advise --cpu-stand-in --workload cpu --out "},
      {"conform", bench + " conform --cpu-stand-in --out "}};
  for (const auto& [verb, command] : verbs) {
    const fs::path made = tmp / ("new-" + verb);
    const CommandOutput out =
        run_program("/bin/bash", {"-c", "ulimit -f 0; trap '' XFSZ; exec " + command + (made / "out").string()}, e, 60);
    EXPECT_EQ(out.exit_code, 3) << verb << ": " << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << verb << ": " << out.err;
    EXPECT_NE(out.err.find("File too large"), std::string::npos) << verb << ": " << out.err;
    EXPECT_FALSE(fs::exists(made)) << verb << ": the folder made for the run was left behind";
  }
  // Room for the CSV headers, not for meta.json: the files begun go again, and the folder made for the run.
  const fs::path made = tmp / "new-headers";
  const CommandOutput out = run_program(
      "/bin/bash", {"-c", "ulimit -f 1; trap '' XFSZ; exec " + verbs[0].second + (made / "out").string()}, e, 60);
  EXPECT_EQ(out.exit_code, 3) << out.err;
  EXPECT_NE(out.err.find("meta.json.tmp: File too large"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("were removed"), std::string::npos) << out.err;
  EXPECT_FALSE(fs::exists(made)) << "the folder made for the run was left behind";
}

// What bench_mps prints as its answer reached its reader, or the exit code says not: --help and --version too (to
// /dev/full they said 0), as columns and the printing verbs do.
TEST(WriteErrors, HelpAndVersionThatCannotBeWrittenExitThree) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const std::string bench = bench_mps_exe().string();
  for (const std::string args : {"--help", "--version", "report --help", "advise --help", "columns"}) {
    const CommandOutput out = run_program("/bin/bash", {"-c", "exec " + bench + " " + args + " > /dev/full"}, {}, 60);
    EXPECT_EQ(out.exit_code, 3) << args << ": " << out.err;
    EXPECT_EQ(out.err, "bench_mps: cannot write to standard output: No space left on device\n") << args;
  }
}

// Issue 43: a folder where a JSON file should be is called a folder, not "invalid JSON".
TEST(InputFiles, AFolderWhereAJsonFileShouldBeIsCalledAFolder) {
  TempDir tmp;
  fs::create_directories(tmp / "advice.json");
  try {
    harness::read_input_file(tmp / "advice.json");
    ADD_FAILURE() << "a folder was read as a file";
  } catch (const harness::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("advice.json: a folder, not a file"), std::string::npos) << e.what();
  }
  const CommandOutput out = run_program(bench_mps_exe(), {"advise", "--redo", tmp.path().string()});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("a folder, not a file"), std::string::npos) << out.err;
  EXPECT_EQ(out.err.find("JSON"), std::string::npos) << out.err;
}

// Issue 44 item 4: a scenario's plan side is one row. Every --scenario has its own, named as it is parsed; the
// command line takes its defaults and limits from it (the sweep's spin,mlp; the fault's N >= 2; xray's own).
TEST(ScenarioPlans, EveryScenarioHasItsRowAndTheCommandLineFollowsIt) {
  for (const std::string& name : harness::scenario_names()) {
    const harness::Scenario s = *harness::parse_scenario(name);
    EXPECT_EQ(harness::scenario_plan(s).scenario, s) << name;
    EXPECT_EQ(harness::scenario_name(harness::scenario_plan(s).scenario), name);
  }
  // As typed (no origin): a stored command line's messages carry "stored command line: " before the same words.
  auto spec = [](std::vector<std::string> args) { return harness::parse_sweep_args(args, ""); };
  EXPECT_EQ(spec({}).workloads, (std::vector<std::string>{"spin", "mlp"}));
  EXPECT_EQ(spec({"--scenario", "fault", "--procs", "2"}).workloads, std::vector<std::string>{"spin"});
  EXPECT_EQ(spec({"--scenario", "regimes"}).workloads, (std::vector<std::string>{"xray", "duty"}));
  try {
    spec({"--scenario", "fault", "--procs", "1"});
    ADD_FAILURE() << "the fault scenario needs N >= 2";
  } catch (const harness::UsageError& e) {
    EXPECT_STREQ(e.what(), "--scenario fault: needs N >= 2 in --procs (N-1 victims and one faulting worker)");
  }
  try {
    spec({"--scenario", "interference", "--procs", "1,4"});
    ADD_FAILURE() << "interference needs every N >= 2";
  } catch (const harness::UsageError& e) {
    EXPECT_STREQ(e.what(),
                 "--scenario interference: every N in --procs must be at least 2 (one foreground, N-1 background)");
  }
}

}  // namespace
}  // namespace bench_mps::testing
