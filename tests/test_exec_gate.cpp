// The start gate (--exec-gate, harness/sweep/exec_gate.hpp) on CPU stand-in copies
// (tests/gate/gate_copy.cpp reaches the gate where the injected profiler would hold a CUDA program): every
// copy arrives; one dies before the gate; one never arrives (the timeout); one never uses CUDA; Ctrl-C while
// held; bad values. Real processes, the fake MPS daemon.
#include <signal.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "harness/predict/measured_units.hpp"
#include "harness/sweep/exec_gate.hpp"
#include "tests/exec_fixture.hpp"

namespace bench_mps::testing {
namespace {

using ExecGate = ExecSweep;

const std::string kCopy = BENCH_MPS_GATE_COPY;
const std::string kMetric = "step_ms=([0-9.]+)";

std::vector<harness::WorkerRecord> rows_of(const fs::path& out, int procs) {
  std::vector<harness::WorkerRecord> rows;
  for (const auto& w : harness::read_runs(out / "runs.csv"))
    if (w.procs == procs) rows.push_back(w);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.worker < b.worker; });
  return rows;
}

nlohmann::json gate_meta(const fs::path& out) {
  std::ifstream in(out / "meta.json");
  return nlohmann::json::parse(in).at("exec_gate");
}

// Lines a copy printed before the gate released it (a warm-up before the gate point) are not the steps its N copies
// share: its step time, count and span are from its release on, and those before are counted apart.
TEST_F(ExecGate, LinesPrintedBeforeTheReleaseAreCountedApart) {
  const auto r = sweep({"--modes", "timeslice", "--procs", "2", "--exec-warmups", "0", "--exec-gate", "first-kernel",
                        "--exec-metric", kMetric, "--command",
                        kCopy + " --arrive-ms 0,300 --warmup-steps 4 --steps 5 --step-ms 20"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = rows_of(out(), 2);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& w : rows) {
    EXPECT_EQ(w.fact("steps_before_release"), 4) << w.facts;
    EXPECT_EQ(w.fact("steps"), 5) << w.facts;
    EXPECT_NEAR(w.fact("step_mean_ms"), 20, 5) << "not the warm-up's 99 ms: " << w.facts;
    EXPECT_LT(w.fact("step_p99_ms"), 50) << w.facts;
    EXPECT_LT(w.fact("steps_span_s"), 0.2) << "from its release on: " << w.facts;
  }
  // Released together, the two copies' lines met: the run is co-run by its metric.
  std::vector<const harness::WorkerRecord*> copies;
  for (const auto& w : rows) copies.push_back(&w);
  const harness::MetricWindow lines = harness::metric_window(copies);
  ASSERT_TRUE(lines.checked()) << rows[0].facts;
  EXPECT_GT(lines.coverage, 0.8) << rows[0].facts << " | " << rows[1].facts;
  EXPECT_TRUE(lines.co_run());
}

TEST_F(ExecGate, EveryCopyArrivesAndAllAreReleasedTogether) {
  const auto r =
      sweep({"--modes", "timeslice", "--procs", "4", "--exec-warmups", "0", "--exec-gate", "first-kernel",
             "--exec-metric", kMetric, "--command", kCopy + " --arrive-ms 0,300,600,900 --steps 3 --step-ms 20"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = rows_of(out(), 4);
  ASSERT_EQ(rows.size(), 4u);
  std::vector<double> release;
  for (const auto& w : rows) {
    EXPECT_EQ(w.status, "ok") << w.worker << ": " << w.reason;
    EXPECT_EQ(w.fact("gate_arrived"), 1) << w.facts;
    release.push_back(w.fact("gate_release_s"));
    // Held from its arrival until the last copy's (900 ms after GO, give or take its start-up).
    EXPECT_NEAR(w.fact("gate_release_s") - w.fact("gate_arrive_s"), w.fact("gate_held_s"), 0.05) << w.facts;
    // Its run leaves the time held out: about its own arrival, 3 steps of 20 ms and its start.
    EXPECT_LT(w.fact("completion_s"), 0.3 * w.worker + 0.5) << w.facts;
    EXPECT_NEAR(w.task_mean_ms, w.fact("completion_s") * 1e3, 1e-3 * w.task_mean_ms) << w.facts;
  }
  for (const auto& w : rows) EXPECT_GE(w.fact("core"), 0) << "each copy's core: " << w.facts;
  const nlohmann::json host = nlohmann::json::parse(read_text(out() / "meta.json")).at("host");
  for (const char* key : {"cpu_model", "smt_threads_per_core", "numa_nodes"})
    EXPECT_TRUE(host.contains(key)) << key << ": " << host.dump();
  EXPECT_GT(rows[0].fact("gate_held_s"), 0.6) << rows[0].facts;
  EXPECT_LT(rows[3].fact("gate_held_s"), 0.2) << rows[3].facts;
  const auto [lo, hi] = std::minmax_element(release.begin(), release.end());
  EXPECT_LT(*hi - *lo, 0.1) << "released together";
  EXPECT_GT(*lo, 0.8) << "none before the last arrival";
  const nlohmann::json g = gate_meta(out());
  EXPECT_EQ(g.at("asked"), "first-kernel");
  EXPECT_EQ(g.at("after_open"), "detach") << "BENCH_MPS_GATE_CALLBACKS unset: the default";
  const auto run = std::find_if(g.at("runs").begin(), g.at("runs").end(),
                                [](const nlohmann::json& j) { return j.at("copies") == 4; });
  ASSERT_NE(run, g.at("runs").end()) << g.dump();
  EXPECT_EQ(run->at("release"), "every copy arrived");
  EXPECT_EQ(run->at("arrived"), 4);
  EXPECT_LT(run->at("release_spread_s").get<double>(), 0.1);
}

TEST_F(ExecGate, ACopyThatDiesBeforeTheGateReleasesTheRest) {
  const auto r = sweep({"--modes", "timeslice", "--procs", "3", "--exec-warmups", "0", "--exec-gate", "wait:5",
                        "--exec-gate-timeout", "60", "--exec-metric", kMetric, "--command",
                        kCopy + " --arrive-ms 0,100,700 --die 2 --steps 2 --step-ms 10"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // a run failed
  const auto rows = rows_of(out(), 3);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].status, "exec_failed") << rows[2].reason;
  EXPECT_NE(rows[2].reason.find("never reached the start gate (wait:5): it ended first"), std::string::npos)
      << rows[2].reason;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(rows[i].status, "ok") << rows[i].reason;
    // Released when copy 2 ended (about 0.7 s), not at the 60 s timeout.
    EXPECT_LT(rows[i].fact("gate_release_s"), 5.0) << rows[i].facts;
  }
  const auto run = gate_meta(out()).at("runs").back();
  EXPECT_EQ(run.at("release"), "opened once the copies that never arrived had ended") << run.dump();
  EXPECT_EQ(run.at("missing"), 1);
}

TEST_F(ExecGate, ACopyThatNeverArrivesReleasesTheRestAtTheTimeout) {
  const auto r = sweep({"--modes", "timeslice", "--procs", "3", "--exec-warmups", "0", "--exec-gate", "first-kernel",
                        "--exec-gate-timeout", "1", "--exec-metric", kMetric, "--command",
                        kCopy + " --never 1 --never-ms 4000 --steps 2 --step-ms 10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = rows_of(out(), 3);
  ASSERT_EQ(rows.size(), 3u);
  for (int i : {0, 2}) {
    EXPECT_EQ(rows[i].status, "ok") << rows[i].reason;
    EXPECT_NEAR(rows[i].fact("gate_held_s"), 1.0, 0.5) << rows[i].facts;  // the timeout, not copy 1's 4 s
  }
  EXPECT_EQ(rows[1].fact("gate_arrived"), 0) << rows[1].facts;
  const auto summary_rows = summary();
  const auto s =
      std::find_if(summary_rows.begin(), summary_rows.end(), [](const auto& kv) { return kv.second.procs == 3; });
  ASSERT_NE(s, summary_rows.end());
  EXPECT_NE(s->second.reason.find("opened at the timeout, before every copy had arrived (2 of 3 copies arrived)"),
            std::string::npos)
      << s->second.reason;
}

TEST_F(ExecGate, AProgramThatNeverUsesCudaIsNeverHeldAndSaysSo) {
  // The default gate (steady) without a profile falls back to first-kernel, and says so; a program that never
  // initialises CUDA never loads the profiler, never arrives, and is never held.
  const auto r = sweep({"--modes", "timeslice", "--procs", "1,2", "--exec-warmups", "0", "--command", "sleep 0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--exec-gate steady: no alone run was profiled; the copies are held at their first kernel "
                       "launch instead"),
            std::string::npos)
      << r.err;
  for (const auto& w : harness::read_runs(out() / "runs.csv")) {
    EXPECT_EQ(w.status, "ok") << w.reason;
    EXPECT_EQ(w.fact("gate_arrived"), 0) << w.facts;
    EXPECT_EQ(w.fact("gate_held_s"), 0) << w.facts;
    EXPECT_EQ(w.reason, "") << "the gate did not hold anything: nothing to note per copy";
    EXPECT_LT(w.fact("completion_s"), 5.0);
  }
  const nlohmann::json gate = gate_meta(out());  // held: .at() of a temporary would outlive it in the loop
  for (const auto& run : gate.at("runs")) {      // noted where the gate's passages are
    EXPECT_EQ(run.at("arrived"), 0) << run.dump();
    EXPECT_EQ(run.at("missing"), run.at("copies")) << run.dump();
  }
}

TEST_F(ExecGate, CopiesStillHeldWhenTheRunTimesOutSaySoAndTheTimeoutsWarn) {
  // The run's --timeout (2 s) comes before the gate's (60 s): warned at the start; copy 1 never arrives, so the
  // others are still held when the run is ended, and their reasons say where they were.
  const auto r = sweep({"--modes", "timeslice", "--procs", "2", "--exec-warmups", "0", "--exec-gate", "first-kernel",
                        "--exec-gate-timeout", "60", "--timeout", "2", "--command",
                        kCopy + " --never 1 --never-ms 30000 --steps 2 --step-ms 10"});
  EXPECT_NE(r.err.find("warning: --exec-gate-timeout 60 s is not under --timeout 2 s"), std::string::npos) << r.err;
  const auto rows = rows_of(out(), 2);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0].reason.find("held at the start gate (first-kernel) when the run ended"), std::string::npos)
      << rows[0].reason;
  EXPECT_EQ(rows[1].reason.find("held at the start gate"), std::string::npos) << rows[1].reason;
}

TEST_F(ExecGate, APointPastWhereTheProgramGetsSaysTheRunWentUngated) {
  // wait:K past the program's last host wait: every copy starts CUDA and ends before the point. Not a program
  // without CUDA: each copy and the run say so, and meta.json counts the copies that started.
  const auto r = sweep({"--modes", "timeslice", "--procs", "2", "--exec-warmups", "0", "--exec-gate", "wait:50",
                        "--command", kCopy + " --short all --never-ms 100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& w : harness::read_runs(out() / "runs.csv"))
    EXPECT_NE(w.reason.find("never reached the start gate (wait:50): it ended first"), std::string::npos) << w.reason;
  const auto rows = summary();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows.begin()->second.reason.find("start gate wait:50: no copy got there (2 of 2 started CUDA and ended "
                                             "first): the run was not gated"),
            std::string::npos)
      << rows.begin()->second.reason;
  const auto run = gate_meta(out()).at("runs").back();
  EXPECT_EQ(run.at("arrived"), 0) << run.dump();
  EXPECT_EQ(run.at("attached"), 2) << run.dump();
}

TEST_F(ExecGate, CtrlCWhileHeldStopsCleanlyAndLeavesNothing) {
  BackgroundProgram p(
      bench_mps_exe(),
      sweep_args({"--modes", "timeslice,mps", "--procs", "3", "--exec-warmups", "0", "--exec-gate", "first-kernel",
                  "--exec-gate-timeout", "300", "--command", kCopy + " --never 2 --never-ms 300000"}),
      env);
  // Copies 0 and 1 held, copy 2 running without arriving: stop it there.
  ASSERT_TRUE(wait_until([] { return system("pgrep -f '[b]ench_mps_gate_copy' >/dev/null 2>&1") == 0; }, 60));
  ::usleep(1'000'000);
  p.signal(SIGINT);
  const auto r = p.wait(30);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  EXPECT_TRUE(wait_until([] { return system("pgrep -f '[b]ench_mps_gate_copy' >/dev/null 2>&1") != 0; }, 2))
      << "a copy was left running";
  std::ifstream in(out() / "meta.json");
  EXPECT_EQ(nlohmann::json::parse(in).at("status"), "interrupted");
  for (const auto& e : fs::directory_iterator(tmp.path()))  // the gates went with their sets (TMPDIR: ours)
    EXPECT_EQ(e.path().filename().string().rfind("bench_mps-gate-", 0), std::string::npos) << e.path();
}

TEST_F(ExecGate, BadGateValuesAreOneLineAndWriteNothing) {
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--exec-gate", "sometimes"},
                                              {"--exec-gate", "wait:0"},
                                              {"--exec-gate", "wait:"},
                                              {"--exec-gate", "wait:-3"},
                                              {"--exec-gate", ""},
                                              {"--exec-gate", "wait:1.5"},
                                              {"--exec-gate", "wait:99999999999999999999999"},
                                              {"--exec-gate-timeout", "inf"},
                                              {"--exec-gate-timeout", "1e12"},
                                              {"--exec-gate-timeout", ""},
                                              {"--exec-gate-timeout", "soon"},
                                              {"--exec-gate-timeout", "-1"},
                                              {"--exec-gate-timeout", "nan"},
                                              {"--exec-gate-timeout", "0x10"},
                                              {"--exec-gate-timeout", "5", "--exec-gate", "off"}}) {
    std::vector<std::string> a = bad;
    a.insert(a.end(), {"--command", "true"});
    const auto r = sweep(a);
    EXPECT_EQ(r.exit_code, 2) << bad[0] << " " << bad[1] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(bad[0]), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out())) << bad[0] << " " << bad[1];
  }
  // What the gate does once it opens, asked of the environment: detach, unsubscribe or keep, else refused before a
  // copy starts.
  // (set but empty is unset: the default)
  for (const std::string& value :
       {std::string("remove"), std::string("Keep"), std::string("detach "), std::string("1"), std::string("-1"),
        std::string("nan"), std::string("inf"), std::string(100000, 'k')}) {
    Env asked = env;
    asked.set.emplace_back("BENCH_MPS_GATE_CALLBACKS", value);
    const auto r = run_program(bench_mps_exe(), sweep_args({"--command", "true"}), asked, 120);
    EXPECT_EQ(r.exit_code, 2) << value.substr(0, 40) << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("BENCH_MPS_GATE_CALLBACKS='" + value.substr(0, 40) + "': none of detach, unsubscribe, keep"),
              std::string::npos)
        << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 300u) << "a huge value is cut, not echoed whole";
    EXPECT_FALSE(fs::exists(out())) << value.substr(0, 40);
  }
  Env ungated = env;  // no copy held: nothing for it to do, nothing refused
  ungated.set.emplace_back("BENCH_MPS_GATE_CALLBACKS", "remove");
  const auto off = run_program(bench_mps_exe(), sweep_args({"--command", "true", "--exec-gate", "off"}), ungated, 120);
  EXPECT_NE(off.exit_code, 2) << off.err;  // `true` is never an MPS client of the fake daemon: those runs fail
  EXPECT_EQ(off.err.find("none of detach"), std::string::npos) << off.err;
  EXPECT_TRUE(fs::exists(out() / "runs.csv")) << "the sweep ran";
  fs::remove_all(out());
  Env unsubscribing = env;  // a value it knows, gated: taken, and meta.json says it
  unsubscribing.set.emplace_back("BENCH_MPS_GATE_CALLBACKS", "unsubscribe");
  const auto taken = run_program(
      bench_mps_exe(), sweep_args({"--command", "true", "--exec-gate", "first-kernel", "--modes", "timeslice"}),
      unsubscribing, 120);
  EXPECT_EQ(taken.exit_code, 0) << taken.err;
  EXPECT_EQ(gate_meta(out()).at("after_open"), "unsubscribe");
  fs::remove_all(out());
  const auto no_exec =
      run_program(bench_mps_exe(), {"--workloads", "spin", "--exec-gate", "off", "--out", out().string()}, env);
  EXPECT_EQ(no_exec.exit_code, 2);
  EXPECT_NE(no_exec.err.find("--exec-gate: holds your program's copies; add --workloads exec"), std::string::npos)
      << no_exec.err;
  EXPECT_FALSE(fs::exists(out()));
}

// `--exec-gate steady` holds the copies where the unit's steady part begins (the host wait measure_units and
// predict start counting from), not where the profile summary's steady part begins: on an H200 the GEMM loop's
// summary began before its first host wait (the copies were held at their first kernel, and its warm-up of 38
// steps at 3.69x the step spread them apart), while its unit leaves that head out
// (results/2026-12-03-advise-profiled/gemm: sweeps/alone/units.csv, "steps 39-754 of 754").
TEST(ExecGateSteady, TheGateIsWhereTheUnitsSteadyPartBeginsAfterAWarmUpOfSlowerSteps) {
  const fs::path dir =
      source_dir() / "results/2026-12-03-advise-profiled/gemm/sweeps/alone/profiles/r1-timeslice-exec-n1/w0";
  std::string why, note;
  const long k = harness::waits_before_steady(dir, why);
  EXPECT_TRUE(why.empty()) << why;
  EXPECT_GE(k, 38);  // the head of 38 step ends the unit leaves out, and the waits before the first of them
  EXPECT_LE(k, 45);
  EXPECT_EQ(harness::resolve_gate_point("steady", dir, note), "wait:" + std::to_string(k));
  EXPECT_NE(note.find("after host wait " + std::to_string(k)), std::string::npos) << note;
  // `bench_mps profile` says where the gate would hold copies with this run as their alone run.
  const auto printed = run_program(bench_mps_exe(), {"profile", dir.string()});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_NE(printed.out.find("start gate (--exec-gate steady, from this run alone): after host wait " +
                             std::to_string(k) + ", where its unit's steady part begins"),
            std::string::npos)
      << printed.out;
  // Given points pass through; no profile: the first kernel, and why.
  EXPECT_EQ(harness::resolve_gate_point("wait:7", dir, note), "wait:7");
  TempDir empty;
  EXPECT_EQ(harness::resolve_gate_point("steady", empty.path(), note), "first-kernel");
  EXPECT_NE(note.find("no GPU profile of the alone run"), std::string::npos) << note;
}

}  // namespace
}  // namespace bench_mps::testing
