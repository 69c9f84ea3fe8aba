// The harness end to end with real processes: the CPU-only worker stands in for the GPU and a fake
// nvidia-cuda-mps-control (tests/fakes) logs everything it is sent. Each test gets its own TMPDIR,
// so its private MPS folders are its own.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <regex>
#include <sstream>

#include "harness/common/proc_scan.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/sweep/cpu_affinity.hpp"
#include "tests/sweep_fixture.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

TEST_F(Orchestration, FullSweepRecordsEveryRunAndQuitsEachDaemon) {
  const auto r = sweep({"--modes", "timeslice,mps,mps:50", "--procs", "1,3", "--repeats", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = summary_by_id();
  ASSERT_EQ(rows.size(), 12u);
  for (const auto& [id, row] : rows) {
    EXPECT_EQ(row.status, "ok") << id << ": " << row.reason;
    EXPECT_EQ(row.tasks_total, 10 * row.procs) << id;
  }
  EXPECT_EQ(rows.at("r2-mps:50-cpu-n3").active_thread_pct, 50);
  EXPECT_DOUBLE_EQ(rows.at("r1-timeslice-cpu-n1").slowdown_vs_alone, 1.0);
  EXPECT_EQ(read_lines(out() / "runs.csv").size(), 1u + 2 * 3 * (1 + 3));
  EXPECT_EQ(read_lines(out() / "tasks.csv").size(), 1u + 2 * 3 * (1 + 3) * 10);
  for (const auto& w : harness::read_runs(out() / "runs.csv")) {
    EXPECT_EQ(w.mps_enabled, w.mode != "timeslice") << w.run_id;
    EXPECT_EQ(w.status, "ok") << w.run_id;
  }
  const auto meta = harness::read_meta(out());
  EXPECT_EQ(meta["status"], "complete");
  EXPECT_EQ(meta["runs_recorded"], 12);

  // One daemon per MPS block (2 repeats x 2 MPS modes), each quit before the next starts, the
  // percentage set before any client.
  EXPECT_EQ(journal_count("start -d"), 4);
  EXPECT_EQ(journal_count("cmd quit"), 4);
  EXPECT_EQ(journal_count("daemon stopped"), 4);
  EXPECT_EQ(journal_count("set_default_active_thread_percentage 50"), 2);
  int open = 0;
  for (const auto& l : journal_lines()) {
    if (l.find("start -d") != std::string::npos) {
      EXPECT_EQ(open++, 0) << "daemon started twice";
    }
    if (l.find("daemon stopped") != std::string::npos) --open;
  }
  EXPECT_NE(r.out.find("vs timeslice"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("[12/12]"), std::string::npos) << r.err;
}

TEST_F(Orchestration, StartBarrierReleasesWorkersTogether) {
  // Worker i takes i x 150 ms to get READY; the barrier must still start them together.
  const auto r = sweep({"--modes", "timeslice", "--procs", "4", "--cpu-setup-ms", "150"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<int, double> first_start;
  for (const auto& t : harness::read_tasks(out() / "tasks.csv"))
    if (!first_start.count(t.worker) || t.start_ms < first_start[t.worker]) first_start[t.worker] = t.start_ms;
  ASSERT_EQ(first_start.size(), 4u);
  double lo = 1e9, hi = -1e9;
  for (const auto& [w, s] : first_start) {
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi - lo, 60.0) << "workers started " << hi - lo << " ms apart";
}

/// "0,3-5" (a Cpus_allowed_list) -> {0, 3, 4, 5}.
std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    const auto dash = part.find('-');
    const int lo = std::stoi(part.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

TEST_F(Orchestration, EachWorkerHasACoreOfItsOwnAndTheHarnessAndDaemonKeepOff) {
  const std::vector<int> allowed = harness::allowed_cpus();
  if (allowed.size() < 2) GTEST_SKIP() << "one CPU: nothing to pin";
  const auto r = sweep({"--modes", "timeslice,mps", "--procs", "1,3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto meta = harness::read_meta(out());
  // The sweep claims 1 + 3 cores (core_claims: other sweeps may have the rest), and plans over those.
  const std::vector<int> claimed(
      allowed.begin(), allowed.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(4, allowed.size())));
  const harness::CpuPlan plan = harness::plan_cpus(claimed, 3);
  ASSERT_EQ(meta["cpus"]["workers"].get<std::vector<int>>(), plan.workers);
  ASSERT_EQ(meta["cpus"]["harness"].get<std::vector<int>>(), plan.harness);
  // The plan itself: the workers' cores are distinct (as far as there are cores) and none is the harness's.
  const std::set<int> worker_cores(plan.workers.begin(), plan.workers.end());
  EXPECT_EQ(worker_cores.size(), plan.workers.size());
  for (int c : plan.harness) EXPECT_EQ(worker_cores.count(c), 0u) << "core " << c << " is a worker's and the harness's";
  for (const auto& w : harness::read_runs(out() / "runs.csv")) {
    EXPECT_EQ(w.fact("allowed_cpus"), 1) << w.run_id << " worker " << w.worker << ": " << w.facts;
    EXPECT_EQ(w.fact("cpu"), plan.workers[static_cast<std::size_t>(w.worker) % plan.workers.size()]) << w.run_id;
  }
  // The MPS daemon inherits the harness's cores: none of the workers'.
  int daemons = 0;
  for (const auto& line : journal_lines()) {
    const auto at = line.find("cpus=");
    if (line.find("start -d") == std::string::npos || at == std::string::npos) continue;
    ++daemons;
    EXPECT_EQ(parse_cpu_list(line.substr(at + 5)), plan.harness) << line;
  }
  EXPECT_EQ(daemons, 1);
}

TEST_F(Orchestration, NoPinLeavesEveryoneOnAllCores) {
  const auto r = sweep({"--modes", "timeslice", "--procs", "2", "--no-pin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto meta = harness::read_meta(out());
  EXPECT_TRUE(meta["cpus"]["workers"].empty()) << meta["cpus"].dump();
  for (const auto& w : harness::read_runs(out() / "runs.csv"))
    EXPECT_EQ(w.fact("allowed_cpus"), static_cast<double>(harness::allowed_cpus().size())) << w.facts;
}

TEST_F(Orchestration, CoresPerWorkerPinsEachWorkerToThatManyCoresOfItsOwn) {
  const std::vector<int> allowed = harness::allowed_cpus();
  if (allowed.size() < 2) GTEST_SKIP() << "one CPU: nothing to pin";
  const auto r = sweep({"--modes", "timeslice,mps", "--procs", "1,2", "--cores-per-worker", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto meta = harness::read_meta(out());
  EXPECT_EQ(meta["sweep"]["cores_per_worker"], 2);
  EXPECT_EQ(meta["cpus"]["cores_per_worker"], 2);
  // 1 + 2 x 2 cores wanted; with fewer the workers wrap around the ones they got (and the sweep warns).
  const std::vector<int> claimed(
      allowed.begin(), allowed.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(5, allowed.size())));
  const harness::CpuPlan plan = harness::plan_cpus(claimed, 4);
  ASSERT_EQ(meta["cpus"]["workers"].get<std::vector<int>>(), plan.workers);
  if (plan.workers.size() < 4) {
    EXPECT_NE(r.err.find("of 2 cores each on"), std::string::npos) << r.err;
  }
  for (const auto& w : harness::read_runs(out() / "runs.csv")) {
    std::set<int> mine;
    for (int k = 0; k < 2; ++k)
      mine.insert(plan.workers[static_cast<std::size_t>(w.worker * 2 + k) % plan.workers.size()]);
    EXPECT_EQ(w.fact("allowed_cpus"), static_cast<double>(mine.size()))
        << w.run_id << " worker " << w.worker << ": " << w.facts;
    EXPECT_EQ(mine.count(static_cast<int>(w.fact("cpu"))), 1u) << w.run_id << " worker " << w.worker << ": " << w.facts;
  }
}

TEST_F(Orchestration, RunShDemoRendersAStampedReportWithoutAGpu) {
  // scripts/run.sh --demo: what a newcomer without a GPU can try (the fakes are put on PATH by run.sh).
  const auto start = std::chrono::steady_clock::now();
  Env e;
  e.set = {{"TMPDIR", tmp.path().string()}, {"BENCH_MPS_NO_BUILD", "1"}, {"BENCH_MPS_BUILD_DIR", build_dir().string()}};
  const auto r = run_program(source_dir() / "scripts" / "run.sh", {"--demo", "--out", out().string()}, e, 120);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_LE(seconds, 60) << "the demo must finish, report included, within a minute";
  EXPECT_TRUE(harness::read_meta(out())["sweep"]["demo"].get<bool>());
  const std::string report = read_text(out() / "report.md");
  EXPECT_EQ(report.rfind("> **DEMO, no GPU data.**", 0), 0u) << report.substr(0, 200);
  EXPECT_NE(read_text(out() / "plots" / "plot_data.json").find("\"DEMO, no GPU data: "), std::string::npos);
  EXPECT_EQ(harness::read_summary(out() / "summary.csv").size(), 12u);
  // The demo's plan gives way to the user's options (it once added its own --procs beside theirs: "given 2 times").
  const fs::path own = tmp / "own";
  const auto mine = run_program(source_dir() / "scripts" / "run.sh",
                                {"--demo", "--procs", "1,3", "--repeats=1", "--out", own.string()}, e, 120);
  ASSERT_EQ(mine.exit_code, 0) << mine.out << mine.err;
  const auto rows = harness::read_summary(own / "summary.csv");
  ASSERT_EQ(rows.size(), 4u);  // N = 1, 3 in two modes, one repeat
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](const auto& row) { return row.procs == 3; }));
  // A demo measures no GPU: a GPU workload is refused before anything runs.
  const auto gpu =
      run_program(bench_mps_exe(), {"--demo", "--workloads", "spin", "--out", (tmp / "gpu").string()}, env);
  EXPECT_EQ(gpu.exit_code, 2) << gpu.err;
  EXPECT_NE(gpu.err.find("--demo: the spin workload would measure a GPU"), std::string::npos) << gpu.err;
  EXPECT_FALSE(fs::exists(tmp / "gpu"));
  const auto exec = run_program(
      bench_mps_exe(), {"--demo", "--workloads", "exec", "--command", "true", "--out", (tmp / "exec").string()}, env);
  EXPECT_EQ(exec.exit_code, 2) << exec.err;
  EXPECT_NE(exec.err.find("--demo: the exec workload would measure your program"), std::string::npos) << exec.err;
  EXPECT_FALSE(fs::exists(tmp / "exec"));
}

TEST_F(Orchestration, NoiseTargetAddsRepeatsUntilItsCapsAndSaysWhichMissed) {
  // A target no host meets: every configuration gets fresh repeats up to --max-repeats, each said missed.
  const auto r = sweep({"--modes", "timeslice,mps", "--procs", "1,2", "--repeats", "2", "--noise-target", "0.0001",
                        "--max-repeats", "4", "--noise-time-cap", "60"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = harness::read_summary(out() / "summary.csv");
  EXPECT_EQ(rows.size(), 4u * 4u) << "4 configurations x 4 repeats";
  std::set<int> repeats;
  for (const auto& row : rows) repeats.insert(row.repeat);
  EXPECT_EQ(repeats, (std::set<int>{1, 2, 3, 4}));
  const auto meta = harness::read_meta(out());
  EXPECT_EQ(meta["noise"]["added_runs"], 8);
  EXPECT_EQ(meta["noise"]["configs"].size(), 4u);
  for (const auto& c : meta["noise"]["configs"]) EXPECT_FALSE(c["target_met"].get<bool>()) << c.dump();
  EXPECT_NE(r.out.find("noise: cpu mps N=2 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("after 4 ok repeats (--max-repeats 4 reached)"), std::string::npos) << r.out;
  // The folder reads (repeats beyond --repeats are the plan's) and renders.
  EXPECT_EQ(run_program(bench_mps_exe(), {"report", out().string()}).exit_code, 0);

  // A target every configuration meets adds nothing; so does a time cap of 0 s, which says so.
  fs::remove_all(out());
  // (Five sets of one round: two sets know their mean only to 10.15 times their difference, which a
  // loaded host's CPU workers can take past 100 %.)
  const auto easy =
      sweep({"--modes", "timeslice", "--procs", "1", "--repeats", "5", "--rounds", "1", "--noise-target", "100"});
  ASSERT_EQ(easy.exit_code, 0) << easy.err;
  EXPECT_EQ(harness::read_summary(out() / "summary.csv").size(), 5u);
  EXPECT_EQ(harness::read_meta(out())["noise"]["added_runs"], 0);
  fs::remove_all(out());
  const auto capped = sweep(
      {"--modes", "timeslice", "--procs", "1", "--repeats", "3", "--noise-target", "0.0001", "--noise-time-cap", "0"});
  ASSERT_EQ(capped.exit_code, 0) << capped.err;
  EXPECT_EQ(harness::read_summary(out() / "summary.csv").size(), 3u);
  EXPECT_TRUE(harness::read_meta(out())["noise"]["time_capped"].get<bool>());
  EXPECT_NE(capped.out.find("(--noise-time-cap reached)"), std::string::npos) << capped.out;
  // By default a CPU-only sweep chases no noise (its noise is the host's).
  fs::remove_all(out());
  ASSERT_EQ(sweep({"--modes", "timeslice", "--procs", "1", "--repeats", "2"}).exit_code, 0);
  EXPECT_EQ(harness::read_meta(out())["sweep"]["noise_target_pct"], 0.0);
  EXPECT_FALSE(harness::read_meta(out()).contains("noise"));
}

TEST_F(Orchestration, AMonitorPeriodThatIsNoNumberIsSaidAndTheSweepSamplesAsUsual) {
  // BENCH_MPS_MONITOR_MS (a diagnostic): a bad value warns once and changes nothing else.
  for (const std::string bad : {"", "abc", "-5", "1e9", "nan", "99999999999999999999", "12ms"}) {
    fs::remove_all(out());
    const auto r =
        sweep({"--modes", "timeslice", "--procs", "1", "--repeats", "1"}, Env{{{"BENCH_MPS_MONITOR_MS", bad}}, {}});
    ASSERT_EQ(r.exit_code, 0) << bad << ": " << r.err;
    const bool warned =
        r.err.find("BENCH_MPS_MONITOR_MS='" + bad + "' is not 0-60000 ms; sampling every 100 ms") != std::string::npos;
    EXPECT_EQ(warned, !bad.empty()) << bad << ": " << r.err;  // empty: unset, the default
    EXPECT_EQ(harness::read_summary(out() / "summary.csv").size(), 1u) << bad;
  }
  fs::remove_all(out());
  const auto off =
      sweep({"--modes", "timeslice", "--procs", "1", "--repeats", "1"}, Env{{{"BENCH_MPS_MONITOR_MS", "0"}}, {}});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.err.find("BENCH_MPS_MONITOR_MS"), std::string::npos) << off.err;
}

TEST(CpuPlan, FirstCoreAndLeftoversForTheHarnessTheRestOneEachForWorkers) {
  using harness::plan_cpus;
  EXPECT_TRUE(plan_cpus({0}, 4).workers.empty());
  EXPECT_TRUE(plan_cpus({0}, 4).harness.empty());
  EXPECT_EQ(plan_cpus({0, 1, 2, 3, 4, 5}, 3).workers, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(plan_cpus({0, 1, 2, 3, 4, 5}, 3).harness, (std::vector<int>{0, 4, 5}));
  EXPECT_EQ(plan_cpus({2, 5, 7}, 10).workers, (std::vector<int>{5, 7}));  // more workers than cores: they share
  EXPECT_EQ(plan_cpus({2, 5, 7}, 10).harness, (std::vector<int>{2}));
}

TEST_F(Orchestration, HungWorkerTimesOutThroughTerminateClientAndTheSweepGoesOn) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = sweep({"--modes", "timeslice,mps", "--procs", "1,2", "--cpu-fault", "hang", "--cpu-fault-worker", "1",
                        "--timeout", "1"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto rows = summary_by_id();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows.at("r1-timeslice-cpu-n1").status, "ok");
  EXPECT_EQ(rows.at("r1-timeslice-cpu-n2").status, "timeout");
  EXPECT_EQ(rows.at("r1-mps-cpu-n1").status, "ok");
  EXPECT_EQ(rows.at("r1-mps-cpu-n2").status, "timeout");
  EXPECT_NE(rows.at("r1-mps-cpu-n2").reason.find("worker 1"), std::string::npos);
  EXPECT_EQ(journal_count("cmd terminate_client"), 1);
  expect_worker_processes_gone();
  EXPECT_NE(r.out.find("0/1 ok"), std::string::npos) << r.out;
}

struct FaultCase {
  std::string fault, status, reason;
};

void PrintTo(const FaultCase& f, std::ostream* os) { *os << f.fault; }

class WorkerFault : public Orchestration, public ::testing::WithParamInterface<FaultCase> {};

TEST_P(WorkerFault, IsRecordedWithItsReasonAndTheSweepGoesOn) {
  const auto r = sweep({"--modes", "timeslice", "--procs", "1,3", "--cpu-fault", GetParam().fault, "--cpu-fault-worker",
                        "2", "--repeats", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto rows = summary_by_id();
  ASSERT_EQ(rows.size(), 4u);
  for (const char* id : {"r1-timeslice-cpu-n1", "r2-timeslice-cpu-n1"}) EXPECT_EQ(rows.at(id).status, "ok");
  for (const char* id : {"r1-timeslice-cpu-n3", "r2-timeslice-cpu-n3"}) {
    EXPECT_EQ(rows.at(id).status, GetParam().status) << rows.at(id).reason;
    EXPECT_NE(rows.at(id).reason.find(GetParam().reason), std::string::npos) << rows.at(id).reason;
  }
  expect_worker_processes_gone();
}

INSTANTIATE_TEST_SUITE_P(Faults, WorkerFault,
                         ::testing::Values(FaultCase{"error", "error", "worker 2: injected fault: cpu workload error"},
                                           FaultCase{"crash", "crashed", "worker 2: exited with code 3"},
                                           FaultCase{"abort", "crashed",
                                                     "worker 2: killed by signal Segmentation fault"},
                                           FaultCase{"exit-before-ready", "crashed", "worker 2: exited with code 7"}),
                         [](const auto& p) {
                           std::string n = p.param.fault;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST_F(Orchestration, WorkerThatNeverGetsReadyTimesOut) {
  const auto r = sweep({"--modes", "timeslice", "--procs", "2", "--cpu-fault", "hang-before-ready",
                        "--cpu-fault-worker", "1", "--ready-timeout", "1"});
  EXPECT_EQ(r.exit_code, 1);
  const auto rows = summary_by_id();
  EXPECT_EQ(rows.at("r1-timeslice-cpu-n2").status, "timeout");
  EXPECT_NE(rows.at("r1-timeslice-cpu-n2").reason.find("worker 1: not READY"), std::string::npos)
      << "the late worker is the cause, not worker 0, which was READY: " << rows.at("r1-timeslice-cpu-n2").reason;
  const std::string runs = read_text(out() / "runs.csv");
  EXPECT_NE(runs.find("aborted,another worker was not READY within 1 s"), std::string::npos) << runs;
  expect_worker_processes_gone();
}

class Interrupt : public Orchestration, public ::testing::WithParamInterface<int> {};

TEST_P(Interrupt, StopsWorkersQuitsDaemonKeepsFinishedRows) {
  // N=1 finishes; N=2 hangs in worker 1 under MPS until the signal comes.
  BackgroundProgram bench(bench_mps_exe(),
                          args({"--modes", "mps", "--procs", "1,2", "--cpu-fault", "hang", "--cpu-fault-worker", "1"}),
                          env);
  ASSERT_TRUE(wait_until([&] { return read_lines(out() / "summary.csv").size() == 2; }, 30));
  ASSERT_TRUE(wait_until([&] { return fs::exists(hang_mark()); }, 30)) << "the worker never reached its hang";
  bench.signal(GetParam());
  const auto r = bench.wait(30);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + GetParam()) << r.err;
  const auto rows = read_summary(out() / "summary.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].run_id, "r1-mps-cpu-n1");
  EXPECT_EQ(rows[0].status, "ok");
  EXPECT_EQ(harness::read_meta(out())["status"], "interrupted");
  EXPECT_EQ(journal_count("cmd quit"), 1);
  expect_worker_processes_gone();
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupt, ::testing::Values(SIGINT, SIGTERM), [](const auto& p) {
  return p.param == SIGINT ? std::string("SIGINT") : std::string("SIGTERM");
});

// A daemon whose control commands never answer: Ctrl-C cuts the hung command short, the way out gives each command
// a few seconds (harness/mps: kStoppingCommandTimeoutS) and then forces the daemon down. The sweep ends within
// seconds, not a 15 s timeout per command, the run whose server check was cut short is not recorded (--resume runs
// it), and nothing a control client started (the fake's hung `sleep`) is left.
TEST_F(Orchestration, CtrlCWhileTheDaemonsCommandsHangEndsWithinSeconds) {
  env.set.emplace_back("FAKE_MPS_HANG_COMMANDS", "1");
  BackgroundProgram bench(bench_mps_exe(), args({"--modes", "mps", "--procs", "1"}), env);
  ASSERT_TRUE(wait_until([&] { return journal_count("cmd get_server_list") >= 1; }, 30)) << "no command was sent";
  const auto signalled = std::chrono::steady_clock::now();
  bench.signal(SIGINT);
  const auto r = bench.wait(40);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_LT(took, 12.0) << r.err;
  EXPECT_NE(r.err.find("interrupted while its MPS server was checked; it is not recorded"), std::string::npos) << r.err;
  EXPECT_EQ(harness::read_meta(out())["status"], "interrupted");
  EXPECT_TRUE(!fs::exists(out() / "summary.csv") || read_summary(out() / "summary.csv").empty());
  EXPECT_TRUE(wait_until(
      [&] {
        for (const auto& [p, journal] : harness::live_processes_with_env("FAKE_MPS_JOURNAL"))
          if (journal == this->journal().string()) return false;
        return true;
      },
      5))
      << "a process the fake control client started is still running";
}

// A daemon whose control commands stop answering: only the block's first run was checked, so it alone was mps_error
// and the later runs of the block ok, though nothing proved a server there either. Every run of the block fails
// alike, each saying why; the daemon is asked once (each run asked, and each unanswered command waited 15 s, the
// way out's two as well), the later runs naming that check, and the way out's commands get 3 s each; the time the
// hung commands took is said as the sweep's "other" time.
TEST_F(Orchestration, ADaemonThatStopsAnsweringFailsEveryRunOfItsBlockAlike) {
  const auto started = std::chrono::steady_clock::now();
  const auto r = sweep({"--modes", "mps", "--procs", "1", "--repeats", "3", "--rounds", "3"},
                       Env{{{"FAKE_MPS_HANG_COMMANDS", "1"}}, {}});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 40.0) << r.out;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto rows = harness::read_summary(out() / "summary.csv");
  ASSERT_EQ(rows.size(), 3u) << r.err;
  int not_asked = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(row.status, harness::RunStatus::mps_error) << row.run_id;
    EXPECT_NE(row.reason.find("did not answer within 15 s (input: get_server_list)"), std::string::npos) << row.reason;
    not_asked +=
        row.reason.find("(at an earlier command to this block's daemon; not asked again)") != std::string::npos;
  }
  EXPECT_EQ(not_asked, 2);
  EXPECT_EQ(journal_count("cmd get_server_list"), 2);  // the first run's check, and the way out's
  EXPECT_NE(r.err.find("did not answer within 3 s (input: quit)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(" s, other "), std::string::npos) << r.out;
}

// A run's progress line says its own time: a set's last run is recorded while the next set starts (its MPS server
// check inside, here 3 s), and those seconds went into the next run's `[x s]` (3.2 s for a run of 0.2 s).
TEST_F(Orchestration, ARunsSecondsLeaveOutTheRecordingOfTheSetBefore) {
  const auto r =
      sweep({"--modes", "mps", "--procs", "1,2", "--repeats", "1"}, Env{{{"FAKE_MPS_SLOW_SERVER_LIST", "3"}}, {}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex line(R"(\[2/2\] r1-mps-cpu-n2: ok .*\[([0-9.]+) s\])");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, line)) << r.err;
  EXPECT_LT(std::stod(m[1]), 2.5) << r.err;            // its own time, a set's start-up inside: 0.2 s when idle
  EXPECT_EQ(journal_count("cmd get_server_list"), 2);  // the N=1 run's check, and the way out's
}

// The session tells a daemon that did not answer from one that answered with a failure by the error's type: a
// command not answered in time is an MpsTimeout and the session keeps why (the block's later server checks fail on
// it at once, unasked); a command the control client refused (exit 1) is a plain MpsError and leaves nothing kept.
TEST(MpsSessionCommands, OnlyACommandNotAnsweredInTimeLeavesTheDaemonUnanswered) {
  const TempDir tmp;
  ::setenv("FAKE_MPS_JOURNAL", (tmp / "journal").c_str(), 1);
  harness::MpsSessionOptions options;
  options.control_exe = (fakes_dir() / "nvidia-cuda-mps-control").string();
  options.base_dir = tmp / "mps";
  options.command_timeout_s = 5;  // the fake answers in milliseconds; a loaded machine still within 5 s
  harness::MpsSession session(options);
  EXPECT_FALSE(session.server_pids().empty());
  const fs::path control = session.dir() / "pipe" / "control";  // the fake's "a daemon runs here"
  ASSERT_TRUE(fs::remove(control));
  try {
    session.command("get_server_list");
    ADD_FAILURE() << "a refused command returned";
  } catch (const harness::MpsTimeout& e) {
    ADD_FAILURE() << "a refused command was taken for a timeout: " << e.what();
  } catch (const harness::MpsError& e) {
    EXPECT_NE(std::string(e.what()).find("failed (exit 1)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(session.unanswered(), "");
  write_text(control, "");
  ::setenv("FAKE_MPS_HANG_COMMANDS", "1", 1);
  EXPECT_THROW(session.command("get_server_list"), harness::MpsTimeout);
  ::unsetenv("FAKE_MPS_HANG_COMMANDS");
  EXPECT_NE(session.unanswered().find("did not answer within 5 s (input: get_server_list)"), std::string::npos)
      << session.unanswered();
  EXPECT_FALSE(session.server_pids().empty());  // it answers again; what it once failed to answer is kept
  EXPECT_NE(session.unanswered().find("did not answer within 5 s"), std::string::npos);
  ::unsetenv("FAKE_MPS_JOURNAL");  // the daemon is quit (or ended) as the session goes
}

TEST_F(Orchestration, ForeignDaemonIsRefused) {
  const ForeignDaemon foreign(env, tmp.path());  // quit at the end, however the test ends
  ASSERT_TRUE(foreign.running());

  const auto r = sweep({"--modes", "timeslice", "--procs", "1"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("another MPS daemon is running"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((tmp / "foreign-pipe").string()), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(Orchestration, DaemonThatWillNotStartIsAnEnvironmentError) {
  const auto r = sweep({"--modes", "timeslice,mps", "--procs", "1"}, Env{{{"FAKE_MPS_FAIL_START", "1"}}, {}});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("MPS unavailable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fake: cannot start"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did not start; finished runs are in " + out().string() +
                       " (once that is mended, continue "
                       "with --resume " +
                       out().string() + ")"),
            std::string::npos)
      << r.err;
  const auto rows = summary_by_id();
  ASSERT_EQ(rows.size(), 1u);  // the time-sliced run before the MPS block is kept
  EXPECT_EQ(rows.begin()->second.status, "ok");
  // meta.json keeps why, and the report's headline says it holds the runs finished, not the plan.
  EXPECT_NE(harness::read_meta(out()).value("stop_reason", "").find("fake: cannot start"), std::string::npos);
  ASSERT_EQ(run_program(bench_mps_exe(), {"report", out().string()}).exit_code, 0);
  const std::string report = read_text(out() / "report.md");
  const std::string headline = report.substr(0, report.find('\n'));
  EXPECT_NE(headline.find("The sweep stopped on an environment error (MPS unavailable: "), std::string::npos)
      << headline;
  EXPECT_NE(headline.find("these are the runs it finished, not its whole plan"), std::string::npos) << headline;
}

TEST_F(Orchestration, AnMpsOnlySweepWhoseDaemonWillNotStartSaysNoRunFinished) {
  const auto r = sweep({"--modes", "mps", "--procs", "1,2"}, Env{{{"FAKE_MPS_FAIL_START", "1"}}, {}});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("no run finished in this invocation"), std::string::npos) << r.out;  // not a bare blank
  EXPECT_TRUE(summary_by_id().empty());
}

TEST_F(Orchestration, DaemonThatIgnoresQuitIsStoppedBySignal) {
  const auto r = sweep({"--modes", "mps", "--procs", "1"}, Env{{{"FAKE_MPS_IGNORE_QUIT", "1"}}, {}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ended with SIGTERM/SIGKILL instead"), std::string::npos) << r.err;
  EXPECT_EQ(journal_count("daemon ignores quit"), 1);
}

TEST_F(Orchestration, StaleDaemonOfAKilledHarnessIsStoppedByTheNextRun) {
  {
    BackgroundProgram bench(bench_mps_exe(),
                            args({"--modes", "mps", "--procs", "2", "--cpu-fault", "hang", "--cpu-fault-worker", "1"}),
                            env);
    ASSERT_TRUE(wait_until([&] { return journal_count("daemon started") == 1; }, 30));
    ASSERT_TRUE(wait_until([&] { return fs::exists(hang_mark()); }, 30)) << "the worker never reached its hang";
    bench.signal(SIGKILL);
    EXPECT_EQ(bench.wait(10).exit_code, 128 + SIGKILL);
  }
  EXPECT_GT(live_mps_process_count(), 0) << "SIGKILL cannot clean up: the daemon must still be there";
  fs::remove_all(out());
  const auto r = sweep({"--modes", "timeslice", "--procs", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("left behind by bench_mps pid"), std::string::npos) << r.err;
  EXPECT_EQ(live_mps_process_count(), 0);
}

TEST_F(Orchestration, NoGpuIsOneLineAndExitThree) {
  if (gpu_available()) GTEST_SKIP() << "this machine has a GPU";
  const auto r = run_program(bench_mps_exe(), {"--procs", "1,4,10", "--out", out().string()}, env);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("no GPU visible"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out()));
}

}  // namespace
}  // namespace bench_mps::testing
