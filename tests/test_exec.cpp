// The exec workload end to end with real processes: CPU-only shell commands stand in for the user's
// program and the fake nvidia-cuda-mps-control for MPS. A command "connects" to the fake daemon by
// appending its pid to $CUDA_MPS_PIPE_DIRECTORY/clients, which the fake's get_client_list reports.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/common/proc_scan.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/exec_fixture.hpp"

namespace bench_mps::testing {
namespace {

// Registers with the fake daemon where there is one, then reports 5 steps of 100.1..100.5 ms.
const std::string kClient =
    kJoinFakeMps +
    "echo \"env idx=$BENCH_MPS_WORKER_INDEX n=$BENCH_MPS_PROCS mode=$BENCH_MPS_MODE\"; "
    "for i in 1 2 3 4 5; do sleep 0.2; echo \"train step_ms=100.$i\"; done";  // 1 s: polled as a client under load

using Exec = ExecSweep;

TEST_F(Exec, TimesEachCopyReadsItsStepsAndProvesItsMode) {
  const auto r =
      sweep({"--command", kClient, "--exec-metric", "step_ms=([0-9.]+)", "--procs", "1,3", "--modes", "timeslice,mps"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = summary();
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& [id, row] : rows) {
    EXPECT_EQ(row.status, "ok") << id << ": " << row.reason;
    EXPECT_EQ(row.tasks_total, row.procs) << id << ": one task per copy, its completion";
  }
  const auto workers = harness::read_runs(out() / "runs.csv");
  ASSERT_EQ(workers.size(), 8u);
  for (const auto& w : workers) {
    // Completion covers the command's 5 sleeps of 200 ms (a copy of 0.25 s was once polled only once under a
    // loaded ctest, before it had listed itself: mps_unproven); the metric is what it printed.
    EXPECT_GE(w.fact("completion_s"), 1.0) << w.run_id;
    EXPECT_NEAR(w.task_mean_ms, w.fact("completion_s") * 1e3, 1e-3 * w.task_mean_ms) << w.run_id;
    EXPECT_EQ(w.fact("steps"), 5) << w.run_id;
    EXPECT_NEAR(w.fact("step_mean_ms"), (100.1 + 100.2 + 100.3 + 100.4 + 100.5) / 5, 1e-9) << w.run_id;
    EXPECT_NEAR(w.fact("step_p50_ms"), 100.3, 1e-9) << w.run_id;
    EXPECT_GE(w.fact("startup_s"), -0.1) << w.run_id;
    EXPECT_EQ(w.fact("exit_code"), 0) << w.run_id;
    const bool mps = w.mode != "timeslice";
    EXPECT_NE(w.facts.find(mps ? "mps_proof=client_list" : "mps_proof=no_mps_server"), std::string::npos)
        << w.run_id << ": " << w.facts;
    // Each copy saw its index, N and mode, and its output was kept.
    const std::string kept = read_text(out() / "exec" / w.run_id / ("w" + std::to_string(w.worker) + ".stdout"));
    EXPECT_NE(kept.find("env idx=" + std::to_string(w.worker) + " n=" + std::to_string(w.procs) + " mode=" + w.mode),
              std::string::npos)
        << kept;
  }
  // The start barrier: every copy's command started within 0.2 s of GO, after all were READY.
  for (const auto& t : harness::read_tasks(out() / "tasks.csv")) EXPECT_LT(t.start_ms, 200.0) << t.run_id;

  // The report: completion, start-up and steps per mode and N, and seed 001 beside it on its basis.
  const auto rep = run_program(bench_mps_exe(), {"report", out().string()}, env, 120);
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const std::string md = read_text(out() / "report.md");
  const auto section = md.substr(md.find("## Your program (exec)"));
  for (const char* row : {"| timeslice | 1 | 1 |", "| timeslice | 3 | 3 |", "| mps | 1 | 1 |", "| mps | 3 | 3 |"})
    EXPECT_NE(section.find(row), std::string::npos) << row << "\n" << section;
  EXPECT_NE(section.find("| 5 | 100.300 |"), std::string::npos) << "5 steps of mean 100.3 ms\n" << section;
  EXPECT_NE(md.find("| 10 | seed 001 (Tesla P100) | 221 s (2.76x) | 124 s (1.55x) | 1.78 |"), std::string::npos) << md;
  EXPECT_NE(md.find("ours: exec (seed 001's regime"), std::string::npos) << md;
}

TEST_F(Exec, ALadderRunsThreeAloneRunsAndItsRatiosCarryTheirSpread) {
  // Alone, each run's step is 10 + its repeat ms (11, 12, 13 in the order they run); at N=2 every step is 24 ms.
  const std::string cmd =
      "r=${BENCH_MPS_RUN_ID%%-*}; r=${r#r}; if [ \"$BENCH_MPS_PROCS\" = 1 ]; then s=$((10 + r)); else s=24; fi; "
      "for i in 1 2 3; do echo \"step_ms=$s\"; done";
  const auto r = sweep({"--command", cmd, "--exec-metric", "step_ms=([0-9.]+)", "--procs", "1,2", "--modes",
                        "timeslice", "--exec-alone-runs", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = summary();
  ASSERT_EQ(rows.size(), 4u);
  for (const char* id :
       {"r1-timeslice-exec-n1", "r2-timeslice-exec-n1", "r3-timeslice-exec-n1", "r1-timeslice-exec-n2"})
    EXPECT_EQ(rows.count(id), 1u) << id;
  // First, middle, last: the order they ran is the order runs.csv holds them.
  std::vector<std::string> order;
  for (const auto& w : harness::read_runs(out() / "runs.csv"))
    if (order.empty() || order.back() != w.run_id) order.push_back(w.run_id);  // a row per copy
  EXPECT_EQ(order, (std::vector<std::string>{"r1-timeslice-exec-n1", "r2-timeslice-exec-n1", "r1-timeslice-exec-n2",
                                             "r3-timeslice-exec-n1"}));
  EXPECT_EQ(read_text(out() / "meta.json").find("\"exec_alone_runs\": 3") != std::string::npos, true);

  const auto rep = run_program(bench_mps_exe(), {"report", out().string()}, env, 120);
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const std::string md = read_text(out() / "report.md");
  // The alone draws in run order, median 12, spread 11-13 (+-8 %), drift 13/11; N=2's step over the median
  // (24/12 = 2.00x) and over the largest and smallest draw (24/13, 24/11).
  EXPECT_NE(md.find("| timeslice | 3 | 11.000, 12.000, 13.000 | 12.000 | 11.000-13.000 (+-8 %) | 1.18x |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 24.000 | 2.00x (1.85-2.18) |"), std::string::npos) << md;
  const auto cells = run_program(
      "/usr/bin/env",
      {"python3", (source_dir() / "tests/reports/check_ratio_cells.py").string(), (out() / "report.md").string()});
  EXPECT_EQ(cells.exit_code, 0) << cells.out;
  EXPECT_NE(cells.out.find(" 0 contradiction(s)"), std::string::npos) << cells.out;
}

TEST_F(Exec, AFolderFromBeforeTheAloneRunsResumesAsZeroAndOnlyAsZero) {
  const std::vector<std::string> args{"--command", "true", "--procs", "1,2", "--modes", "timeslice"};
  ASSERT_EQ(sweep(args).exit_code, 0);
  // As a bench_mps before --exec-alone-runs wrote it: no such key, and no added alone runs.
  nlohmann::json meta = nlohmann::json::parse(read_text(out() / "meta.json"));
  ASSERT_EQ(meta["sweep"]["exec_alone_runs"], 1);  // the fixture's
  meta["sweep"].erase("exec_alone_runs");
  write_text(out() / "meta.json", meta.dump(2));
  const auto resume = [&](const char* alone_runs) {
    std::vector<std::string> a{"--workloads",       "exec",     "--repeats", "1",           "--settle", "0",
                               "--exec-alone-runs", alone_runs, "--resume",  out().string()};
    a.insert(a.end(), args.begin(), args.end());
    return run_program(bench_mps_exe(), a, env, 120);
  };
  const auto refused = resume("3");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("exec_alone_runs 0 there vs 3 here"), std::string::npos) << refused.err;
  const auto resumed = resume("0");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

// A resume gated at another point, or profiled otherwise, would mix two measurements in one folder: refused (exit 2,
// one line, nothing changed), saying how --resume is given; so is a resume given part of a sweep.
TEST_F(Exec, AResumeGatedOtherwiseIsRefusedAndSaysHowToResume) {
  const std::vector<std::string> args{"--command", "true", "--procs", "1,2", "--modes", "timeslice"};
  std::vector<std::string> gated = args;
  gated.insert(gated.end(), {"--exec-gate", "wait:2"});
  ASSERT_EQ(sweep(gated).exit_code, 0);
  std::map<std::string, std::string> before;
  for (const auto& e : fs::directory_iterator(out()))
    if (e.is_regular_file()) before[e.path().filename()] = read_text(e.path());
  const auto resume = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> a{"--workloads",       "exec", "--repeats", "1",           "--settle", "0",
                               "--exec-alone-runs", "1",    "--resume",  out().string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_program(bench_mps_exe(), a, env, 120);
  };
  for (const auto& other : {std::vector<std::string>{"--exec-gate", "first-kernel"},
                            std::vector<std::string>{"--exec-gate", "wait:2", "--exec-gate-timeout", "9"},
                            std::vector<std::string>{"--exec-gate", "wait:2", "--profile-gpu"}}) {
    std::vector<std::string> a = args;
    a.insert(a.end(), other.begin(), other.end());
    const auto r = resume(a);
    EXPECT_EQ(r.exit_code, 2) << other[1] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("the folder holds another sweep ("), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("give --resume DIR alone"), std::string::npos) << r.err;
  }
  EXPECT_NE(resume({"--command", "true", "--procs", "1,2", "--modes", "timeslice", "--exec-gate", "first-kernel"})
                .err.find("exec_gate \"wait:2\" there vs \"first-kernel\" here"),
            std::string::npos);
  const auto part = run_program(bench_mps_exe(), {"--resume", out().string(), "--exec-gate", "off"}, env, 60);
  EXPECT_EQ(part.exit_code, 2) << part.err;
  EXPECT_EQ(std::count(part.err.begin(), part.err.end(), '\n'), 1) << part.err;
  EXPECT_NE(part.err.find("with --resume, give --resume DIR alone"), std::string::npos) << part.err;
  for (const auto& [name, text] : before) EXPECT_EQ(read_text(out() / name), text) << name << " changed";
  gated = args;
  gated.insert(gated.end(), {"--exec-gate", "wait:2"});
  const auto same = resume(gated);
  EXPECT_EQ(same.exit_code, 0) << same.err;
}

TEST_F(Exec, AloneRunsRefuseABadCountAndASweepWithoutExec) {
  for (const char* bad : {"-1", "21", "two", "1.5"}) {
    const auto r = sweep({"--command", "true", "--procs", "1,2", "--exec-alone-runs", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--exec-alone-runs"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out())) << bad;
  }
  const auto r =
      run_program(bench_mps_exe(), {"--workloads", "cpu", "--exec-alone-runs", "3", "--out", out().string()}, env, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--exec-alone-runs: counts your program's alone runs; add --workloads exec"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(Exec, MpsCopyThatNeverConnectsIsUnproven) {
  const auto r = sweep({"--command", "sleep 0.4", "--procs", "2", "--modes", "mps"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto rows = summary();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows.begin()->second.status, "mps_unproven") << rows.begin()->second.reason;
  EXPECT_NE(worker_status("r1-mps-exec-n2", 1).find("mps_unproven: never listed"), std::string::npos);
}

TEST_F(Exec, EveryFailureIsARecordedStatusAndTheSweepGoesOn) {
  // N=1 and N=6 succeed; at N=5 copy 0 runs a missing program, 1 exits 3, 2 hangs past --timeout, 3 leaves a
  // child behind, 4 succeeds. Pids of what must be killed go to files.
  const fs::path d = tmp.path();
  const std::string cmd =
      "if [ \"$BENCH_MPS_PROCS\" != 5 ]; then exit 0; fi; case $BENCH_MPS_WORKER_INDEX in "
      "0) no_such_program_bench_mps --flag ;; "
      "1) echo first >&2; echo 'the last words' >&2; exit 3 ;; "
      "2) sleep 60 & echo $! > " +
      (d / "hung.pid").string() +
      "; wait ;; "
      "3) sleep 60 & echo $! > " +
      (d / "left.pid").string() +
      "; exit 0 ;; "
      "*) exit 0 ;; esac";
  const auto r = sweep({"--command", cmd, "--procs", "1,5,6", "--modes", "timeslice", "--timeout", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto rows = summary();
  ASSERT_EQ(rows.size(), 3u) << "every run recorded";
  EXPECT_EQ(rows.at("r1-timeslice-exec-n1").status, "ok");
  EXPECT_EQ(rows.at("r1-timeslice-exec-n6").status, "ok") << "the sweep goes on after the failing run";
  EXPECT_NE(rows.at("r1-timeslice-exec-n5").status, "ok");
  const std::string run = "r1-timeslice-exec-n5";
  EXPECT_EQ(worker_status(run, 0).rfind("exec_not_found: ", 0), 0u) << worker_status(run, 0);
  EXPECT_NE(worker_status(run, 0).find("no_such_program_bench_mps"), std::string::npos) << worker_status(run, 0);
  EXPECT_EQ(worker_status(run, 1), "exec_failed: exited with code 3: the last words");
  EXPECT_EQ(worker_status(run, 2).rfind("exec_timeout: still running after 2 s", 0), 0u) << worker_status(run, 2);
  EXPECT_EQ(worker_status(run, 3).rfind("exec_left_children: ", 0), 0u) << worker_status(run, 3);
  EXPECT_NE(worker_status(run, 3).find("(sleep)"), std::string::npos) << worker_status(run, 3);
  EXPECT_EQ(worker_status(run, 4), "ok: ");
  // A failed copy's facts are kept as an ok copy's are: its exit code a number, not only words in its reason.
  for (const auto& w : harness::read_runs(out() / "runs.csv"))
    if (w.run_id == run && w.worker == 1) {
      EXPECT_EQ(w.fact("exit_code"), 3) << w.facts;
      EXPECT_GE(w.fact("completion_s"), 0) << w.facts;
    }
  for (const char* f : {"hung.pid", "left.pid"}) {
    const pid_t pid = static_cast<pid_t>(std::stol(read_text(d / f)));
    EXPECT_TRUE(wait_until([&] { return !harness::process_alive(pid); }, 2)) << f << ": pid " << pid << " still runs";
  }
}

// Each copy says what CPU its processes used (getrusage of the worker's reaped children: the command and what it
// waited for): a copy that counts in a child shell it waits for used CPU for about as long as it ran, one that sleeps
// next to none, and its sleep is a voluntary context switch.
TEST_F(Exec, EachCopyRecordsTheCpuItsProcessesUsed) {
  const auto r = sweep({"--command",
                        "if [ \"$BENCH_MPS_WORKER_INDEX\" = 0 ]; then sh -c 'i=0; while [ $i -lt 300000 ]; do "
                        "i=$((i+1)); done'; else sleep 0.4; fi",
                        "--procs", "2", "--modes", "timeslice"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = harness::read_runs(out() / "runs.csv");
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& w : rows)
    for (const char* f : {"cpu_user_s", "cpu_system_s", "context_switches_voluntary", "context_switches_involuntary"})
      EXPECT_GE(w.fact(f), 0) << f << ": " << w.facts;
  const auto& counting = rows[0].worker == 0 ? rows[0] : rows[1];
  const auto& sleeping = rows[0].worker == 0 ? rows[1] : rows[0];
  const double counted = counting.fact("cpu_user_s") + counting.fact("cpu_system_s");
  EXPECT_GT(counted, 0.1) << counting.facts;
  EXPECT_LT(counted, counting.fact("completion_s") * 1.2 + 0.05)
      << "one process at a time, on its core: " << counting.facts;
  EXPECT_LT(sleeping.fact("cpu_user_s") + sleeping.fact("cpu_system_s"), 0.1) << sleeping.facts;
  EXPECT_GE(sleeping.fact("completion_s"), 0.4) << sleeping.facts;
  EXPECT_GE(sleeping.fact("context_switches_voluntary"), 1) << sleeping.facts;
}

TEST_F(Exec, OutputIsKeptUpToTheCap) {
  const auto r = sweep({"--command", "head -c 10000 /dev/zero | tr '\\0' x; echo; echo oops >&2", "--procs", "1",
                        "--modes", "timeslice", "--exec-log-cap", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string kept = read_text(out() / "exec" / "r1-timeslice-exec-n1" / "w0.stdout");
  EXPECT_EQ(kept.substr(0, 100), std::string(100, 'x'));
  EXPECT_NE(kept.find("output cut here, 100 bytes kept"), std::string::npos);
  EXPECT_LT(kept.size(), 200u);
  EXPECT_EQ(read_text(out() / "exec" / "r1-timeslice-exec-n1" / "w0.stderr"), "oops\n");
  EXPECT_EQ(harness::read_runs(out() / "runs.csv").front().fact("stdout_bytes"), 10001);
}

TEST_F(Exec, AFailingProgramsStderrQuotedInItsReasonHoldsNoControlBytes) {
  // Its last stderr line was quoted raw: an ESC recoloured the terminal, random bytes reached summary.csv.
  const auto r = sweep(
      {"--command", "printf 'bad\\033[31mRED\\bBS \\377end\\n' >&2; exit 1", "--procs", "1", "--modes", "timeslice"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto rows = harness::read_summary(out() / "summary.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0].reason.find("exited with code 1: bad?[31mRED?BS ?end"), std::string::npos) << rows[0].reason;
  EXPECT_EQ(r.err.find('\033'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\b'), std::string::npos) << r.err;
}

// Issue 34: --exec-check records the last value a copy printed of its result (advise --check-metric's input).
TEST_F(Exec, TheCheckValueIsTheLastOneACopyPrinted) {
  const auto r = sweep({"--command", "echo 'loss 0.75'; echo 'loss 0.5'; echo 'accuracy 97'", "--exec-check",
                        "loss ([0-9.]+)", "--procs", "2", "--modes", "timeslice"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto workers = harness::read_runs(out() / "runs.csv");
  ASSERT_EQ(workers.size(), 2u);
  for (const auto& w : workers) {
    EXPECT_EQ(w.fact("check_value"), 0.5) << w.facts;
    EXPECT_EQ(w.fact("check_matches"), 2) << w.facts;
  }
  EXPECT_NE(summary().begin()->second.params.find("check=loss ([0-9.]+);command="), std::string::npos);
  fs::remove_all(out());
  ASSERT_EQ(sweep({"--command", "echo done", "--exec-check", "loss ([0-9.]+)", "--procs", "1", "--modes", "timeslice"})
                .exit_code,
            0);
  const auto none = harness::read_runs(out() / "runs.csv").front();
  EXPECT_EQ(none.fact("check_matches"), 0) << none.facts;
  EXPECT_TRUE(std::isnan(none.fact("check_value"))) << "no line matched: no value";
}

// --exec-metric-kind latency: each copy's lines are requests served; the span from its first to its last line is
// recorded (steps_span_s), so that its rate is what it served (about 50/s here), not 1000 over its latency (500/s).
TEST_F(Exec, ALatencyMetricRecordsTheSpanItsRequestsWereServedIn) {
  const auto r = sweep({"--command", kPacedStandIn, "--exec-metric", "latency_ms=([0-9.]+)", "--exec-metric-kind",
                        "latency", "--procs", "2", "--modes", "timeslice"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(summary().begin()->second.params.find("metric=latency_ms=([0-9.]+);metric_kind=latency;command="),
            std::string::npos)
      << summary().begin()->second.params;
  const auto workers = harness::read_runs(out() / "runs.csv");
  ASSERT_EQ(workers.size(), 2u);
  for (const auto& w : workers) {
    EXPECT_EQ(w.fact("steps"), 30) << w.facts;
    EXPECT_EQ(w.fact("step_mean_ms"), 2.0) << w.facts;
    const double served = (w.fact("steps") - 1) / w.fact("steps_span_s");  // 29 gaps of at least 20 ms
    EXPECT_GT(served, 5.0) << w.facts;
    EXPECT_LT(served, 51.0) << w.facts;
    EXPECT_LT(w.fact("steps_batched"), 15) << w.facts;  // each line read as it came
  }
  // Through a block-buffered stdout the lines come in one batch: steps_batched says so (advise then reads no rate).
  fs::remove_all(out());
  ASSERT_EQ(sweep({"--command", kBufferedStandIn, "--exec-metric", "latency_ms=([0-9.]+)", "--exec-metric-kind",
                   "latency", "--procs", "1", "--modes", "timeslice"})
                .exit_code,
            0);
  const auto batched = harness::read_runs(out() / "runs.csv").front();
  EXPECT_EQ(batched.fact("steps"), 30) << batched.facts;
  EXPECT_GE(batched.fact("steps_batched"), 15) << batched.facts;
}

TEST_F(Exec, BadExecOptionsAreUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--procs", "1"}, "--command: the exec workload needs a command"},
      {{"--command", "true", "--exec-metric", "step_ms=[0-9.]+"}, "must have exactly one capture group, it has 0"},
      {{"--command", "true", "--exec-metric", "(a)(b)"}, "must have exactly one capture group, it has 2"},
      {{"--command", "true", "--exec-metric", "step_ms=([0-9.]+"}, "is not a valid regular expression"},
      {{"--command", "true", "--exec-check", "loss [0-9.]+"},
       "--exec-check: 'loss [0-9.]+' must have exactly one capture group"},
      {{"--command", "true", "--exec-metric-kind", "latency"}, "--exec-metric-kind latency: says what --exec-metric"},
      {{"--command", "true", "--exec-metric", "x=([0-9]+)", "--exec-metric-kind", "rate"}, "--exec-metric-kind"},
      {{"--command", "true", "--exec-metric", "x=([0-9]+)", "--exec-metric-kind", ""}, "--exec-metric-kind"},
      {{"--command", "true", "--exec-metric", "x=([0-9]+)", "--exec-metric-kind", "-1"}, "--exec-metric-kind"},
      {{"--command", "true", "--exec-metric", "x=([0-9]+)", "--exec-metric-kind", "nan"}, "--exec-metric-kind"},
      {{"--command", "true", "--exec-metric", "x=([0-9]+)", "--exec-metric-kind", "inf"}, "--exec-metric-kind"},
      {{"--command", "true", "--exec-metric", "x=([0-9]+)", "--exec-metric-kind", std::string(5000, 'L')},
       "--exec-metric-kind"},
  };
  for (const auto& [extra, message] : cases) {
    const auto r = sweep(extra);
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out())) << "nothing may be written: " << message;
  }
  const auto r =
      run_program(bench_mps_exe(), {"--workloads", "cpu", "--command", "true", "--out", out().string()}, env);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("add --workloads exec"), std::string::npos) << r.err;
  const auto kind = run_program(bench_mps_exe(),
                                {"--workloads", "cpu", "--exec-metric-kind", "latency", "--out", out().string()}, env);
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_NE(kind.err.find("--exec-metric-kind"), std::string::npos) << kind.err;
}

}  // namespace
}  // namespace bench_mps::testing
