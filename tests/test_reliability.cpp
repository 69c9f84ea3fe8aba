// Reliability with real processes (CPU worker, fake MPS daemon, fake nvidia-smi): --resume after a
// SIGKILL and after a torn write, resume refusals, the fault scenario's bookkeeping, and
// --set-exclusive restoring the compute mode on every way out.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "harness/common/csv_table.hpp"
#include "harness/common/parallel.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

std::string trim_line(const std::string& s) { return s.substr(0, s.find('\n')); }

class Reliability : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(live_mps_process_count(), 0) << "an MPS daemon is already running on this machine";
    env = fake_mps_env(tmp / "journal.log");
    env.set.emplace_back("TMPDIR", tmp.path().string());
    env.set.emplace_back("BENCH_MPS_CPU_HANG_MARK", hang_mark().string());
    env.set.emplace_back("BENCH_MPS_NVIDIA_SMI", (fakes_dir() / "nvidia-smi").string());
    env.set.emplace_back("FAKE_SMI_STATE", (tmp / "smi-state").string());
    env.set.emplace_back("FAKE_SMI_JOURNAL", smi_journal().string());
  }
  void TearDown() override { EXPECT_EQ(live_mps_process_count(), 0) << "a daemon was left behind"; }

  fs::path out() const { return tmp / "out"; }
  fs::path smi_journal() const { return tmp / "smi.log"; }
  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> a{"--workloads", "cpu", "--settle", "0", "--out", out().string()};
    if (std::find(extra.begin(), extra.end(), "--repeats") == extra.end()) a.insert(a.end(), {"--repeats", "1"});
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  CommandOutput bench(const std::vector<std::string>& a) { return run_program(bench_mps_exe(), a, env, 120); }
  std::vector<harness::SummaryRecord> summary() const { return harness::read_summary(out() / "summary.csv"); }

  /// Every recorded run appears once in summary.csv, with exactly its rows in runs.csv and tasks.csv.
  void expect_consistent(std::size_t runs, long tasks_per_worker) {
    const auto rows = summary();
    std::set<std::string> ids;
    std::map<std::string, int> procs;
    for (const auto& r : rows) {
      EXPECT_TRUE(ids.insert(r.run_id).second) << r.run_id << " recorded twice";
      EXPECT_EQ(r.status, "ok") << r.run_id << ": " << r.reason;
      procs[r.run_id] = r.procs;
    }
    EXPECT_EQ(ids.size(), runs);
    std::map<std::string, int> workers, tasks;
    for (const auto& w : harness::read_runs(out() / "runs.csv")) ++workers[w.run_id];
    for (const auto& t : harness::read_tasks(out() / "tasks.csv")) ++tasks[t.run_id];
    for (const auto& [id, n] : procs) {
      EXPECT_EQ(workers[id], n) << id;
      EXPECT_EQ(tasks[id], n * tasks_per_worker) << id;
    }
    EXPECT_EQ(workers.size(), procs.size());
    EXPECT_EQ(tasks.size(), procs.size());
  }

  TempDir tmp;
  /// Created by a cpu worker when it reaches an injected hang (cpu_workload.cpp).
  fs::path hang_mark() const { return tmp / "hanging"; }

  Env env;
};

TEST_F(Reliability, ResumeCompletesASweepKilledWithSigkill) {
  const auto sweep = args(
      {"--modes", "timeslice,mps", "--procs", "1,2,3", "--repeats", "2", "--tasks", "40", "--cpu-task-us", "5000"});
  {
    BackgroundProgram first(bench_mps_exe(), sweep, env);
    ASSERT_TRUE(wait_until([&] { return read_lines(out() / "summary.csv").size() >= 5; }, 60));
    first.signal(SIGKILL);
    first.wait(10);
  }
  const std::size_t before = summary().size();
  ASSERT_GE(before, 4u);
  ASSERT_LT(before, 12u) << "the sweep finished before it was killed: the test proves nothing";
  // Its report's headline says these are the runs it finished, not its plan.
  const std::string partial =
      "meta.json still says running (the sweep was killed, or is still going): these are the "
      "runs it finished, not its whole plan";
  ASSERT_EQ(bench({"report", out().string()}).exit_code, 0);
  EXPECT_NE(trim_line(read_text(out() / "report.md")).find(partial), std::string::npos)
      << read_text(out() / "report.md");
  const auto r = bench({"--resume", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("(" + std::to_string(before) + " already recorded)"), std::string::npos) << r.err;
  expect_consistent(12, 40);
  const auto meta = harness::read_meta(out());
  EXPECT_EQ(meta["status"], "complete");
  EXPECT_EQ(meta["resumed_utc"].size(), 1u);
  ASSERT_EQ(bench({"report", out().string()}).exit_code, 0);
  EXPECT_EQ(read_text(out() / "report.md").find("not its whole plan"), std::string::npos);
}

// A --noise-target sweep killed while it adds repeats: the resume counts the repeats added before in its total
// (no "[5/4]") and in meta.json's noise, and a no-op resume after it keeps them.
TEST_F(Reliability, AResumedNoiseTargetSweepCountsTheRepeatsAddedBefore) {
  const auto sweep = args({"--modes", "timeslice", "--procs", "1,2", "--repeats", "2", "--noise-target", "0.0001",
                           "--max-repeats", "4", "--noise-time-cap", "600", "--tasks", "40", "--cpu-task-us", "5000"});
  {
    BackgroundProgram first(bench_mps_exe(), sweep, env);
    ASSERT_TRUE(wait_until([&] { return read_lines(out() / "summary.csv").size() >= 1 + 5; }, 60));
    first.signal(SIGKILL);
    first.wait(10);
  }
  const std::size_t before = summary().size();
  ASSERT_GE(before, 5u);
  ASSERT_LT(before, 8u) << "the sweep finished before it was killed: the test proves nothing";
  auto r = bench({"--resume", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("bench_mps: " + std::to_string(before) + " runs (" + std::to_string(before) +
                       " already recorded, " + std::to_string(before - 4) + " of them repeats --noise-target added)"),
            std::string::npos)
      << r.err;
  const std::regex progress(R"(\[(\d+)/(\d+)\] )");
  int lines = 0;
  for (std::sregex_iterator it(r.err.begin(), r.err.end(), progress), end; it != end; ++it, ++lines)
    EXPECT_LE(std::stoi((*it)[1]), std::stoi((*it)[2])) << it->str() << "\n" << r.err;
  EXPECT_EQ(lines, static_cast<int>(8 - before)) << r.err;
  EXPECT_NE(r.err.find("[8/8] "), std::string::npos) << r.err;
  expect_consistent(8, 40);
  auto meta = harness::read_meta(out());
  EXPECT_EQ(meta["noise"]["added_runs"], 4) << meta["noise"].dump();
  const double added_s = meta["noise"]["added_s"].get<double>();
  EXPECT_GT(added_s, 0.0);
  // Nothing left to run: the noise section stays what it was.
  r = bench({"--resume", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  meta = harness::read_meta(out());
  EXPECT_EQ(meta["noise"]["added_runs"], 4) << meta["noise"].dump();
  EXPECT_GE(meta["noise"]["added_s"].get<double>(), added_s);
}

// A resume of a finished sweep runs nothing and keeps the sweep's time: its timing sums both invocations.
TEST_F(Reliability, ANoOpResumeKeepsTheSweepsTime) {
  ASSERT_EQ(bench(args({"--modes", "timeslice", "--procs", "1,2", "--tasks", "5", "--cpu-task-us", "20000"})).exit_code,
            0);
  const auto first = harness::read_meta(out())["timing"];
  ASSERT_GT(first["wall_s"].get<double>(), 0.1) << first.dump();
  const auto r = bench({"--resume", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("(2 already recorded)"), std::string::npos) << r.err;
  const auto again = harness::read_meta(out())["timing"];
  EXPECT_GE(again["wall_s"].get<double>(), first["wall_s"].get<double>()) << again.dump();
  EXPECT_DOUBLE_EQ(again["timed_s"].get<double>(), first["timed_s"].get<double>()) << again.dump();
  EXPECT_EQ(again["runs"], first["runs"]);
  EXPECT_EQ(again["invocations"], 2);
  EXPECT_NE(r.out.find("over 2 invocations (a first run and its resumes)"), std::string::npos) << r.out;
}

// --resume with limits: meta.json's sweep section says what the runs from there on used, and `resumes` names each
// limit that changed (was, now) with the runs recorded before; a stored --cpus this process may not use is refused
// with the way on, and --cpus given then resumes it elsewhere.
TEST_F(Reliability, AResumeWithLimitsSaysInMetaWhatChangedAndFromWhichRun) {
  ASSERT_EQ(bench(args({"--modes", "timeslice", "--procs", "1", "--tasks", "5", "--no-pin"})).exit_code, 0);
  const std::size_t recorded = summary().size();
  auto r = bench({"--resume", out().string(), "--cores-per-worker", "2", "--timeout", "77"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto meta = harness::read_meta(out());
  EXPECT_EQ(meta["sweep"]["pin_cpus"], true);
  EXPECT_EQ(meta["sweep"]["cores_per_worker"], 2);
  EXPECT_EQ(meta["sweep"]["run_timeout_s"], 77.0);
  ASSERT_EQ(meta["resumes"].size(), 1u) << meta.dump(2);
  const auto& first = meta["resumes"][0];
  EXPECT_EQ(first["utc"], meta["resumed_utc"][0]);
  EXPECT_EQ(first["runs_recorded_before"], recorded);
  const auto& changed = first["limits_changed"];
  EXPECT_EQ(changed["pin_cpus"], (nlohmann::json{{"was", false}, {"now", true}})) << changed.dump();
  EXPECT_EQ(changed["cores_per_worker"], (nlohmann::json{{"was", 1}, {"now", 2}})) << changed.dump();
  EXPECT_EQ(changed["run_timeout_s"], (nlohmann::json{{"was", 300.0}, {"now", 77.0}})) << changed.dump();
  EXPECT_FALSE(changed.contains("settle_s")) << changed.dump();

  // As if swept with --cpus 1023, a core this process may not use.
  auto stored = nlohmann::json::parse(read_text(out() / "meta.json"));
  stored["argv"].push_back("--cpus");
  stored["argv"].push_back("1023");
  write_text(out() / "meta.json", stored.dump(2));
  r = bench({"--resume", out().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("keeps to --cpus 1023, but CPU 1023 is not one this process may run on"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("give --cpus to go on with other cores"), std::string::npos) << r.err;
  const std::string core = std::to_string(harness::allowed_cpus().back());
  r = bench({"--resume", out().string(), "--cpus", core});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  meta = harness::read_meta(out());
  ASSERT_EQ(meta["resumes"].size(), 2u);
  EXPECT_EQ(meta["resumes"][1]["limits_changed"]["cpus"]["now"], core) << meta["resumes"].dump();
  EXPECT_EQ(meta["device"]["cpus_given"], core);
}

// A crash of bench_mps itself (here a SIGSEGV sent to it while an MPS block runs) says what it was doing, where
// (a backtrace) and how to stop the MPS daemon it leaves; the next bench_mps (--resume) stops any it left and
// finishes the sweep (TearDown: no daemon alive after).
TEST_F(Reliability, ACrashOfTheHarnessSaysWhereAndNamesTheMpsDaemonItLeft) {
  const auto sweep =
      args({"--modes", "mps", "--procs", "1,2", "--repeats", "2", "--tasks", "200", "--cpu-task-us", "5000"});
  {
    BackgroundProgram b(bench_mps_exe(), sweep, env);
    ASSERT_TRUE(wait_until([&] { return read_lines(out() / "summary.csv").size() >= 2; }, 60));
    b.signal(SIGSEGV);  // r1-mps-cpu-n2 is running: its block's daemon is up
    const CommandOutput r = b.wait(30);
    EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << r.err;
    EXPECT_NE(r.err.find("bench_mps: crashed: SIGSEGV sent by process " + std::to_string(::getpid())),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(" while "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("bench_mps: backtrace (addr2line"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("echo quit | CUDA_MPS_PIPE_DIRECTORY=" + (tmp / "bench_mps-").string()), std::string::npos)
        << r.err;
  }
  const auto again = bench({"--resume", out().string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  expect_consistent(4, 200);
}

TEST_F(Reliability, ResumeRepairsATornWriteAndRerunsThatRun) {
  ASSERT_EQ(bench(args({"--modes", "timeslice", "--procs", "1,2", "--tasks", "5"})).exit_code, 0);
  // A crash in the middle of the last run's writes: its summary row is cut short, tasks.csv too.
  std::string s = read_text(out() / "summary.csv");
  write_text(out() / "summary.csv", s.substr(0, s.size() - 25));
  std::string t = read_text(out() / "tasks.csv");
  write_text(out() / "tasks.csv", t + "r1-timeslice-cpu-n2,0,9,1.5");
  const auto r = bench({"--resume", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("dropped a torn last line of summary.csv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rows of unrecorded runs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[2/2] r1-timeslice-cpu-n2"), std::string::npos) << r.err;
  expect_consistent(2, 5);
}

TEST_F(Reliability, ResumeRepairsATornTasksFileAndSaysSo) {
  ASSERT_EQ(bench(args({"--modes", "timeslice", "--procs", "1,2", "--tasks", "5", "--repeats", "2"})).exit_code, 0);
  // The crash came while the last run's task lines were written: summary.csv lacks that run's row, and
  // tasks.csv ends in half a line.
  std::vector<std::string> rows = read_lines(out() / "summary.csv");
  const std::string last_run = rows.back().substr(0, rows.back().find(','));
  std::string summary;
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) summary += rows[i] + "\n";
  write_text(out() / "summary.csv", summary);
  write_text(out() / "tasks.csv", read_text(out() / "tasks.csv") + last_run + ",1,3,0.");
  const auto r = bench({"--resume", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("dropped a torn last line of tasks.csv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(last_run), std::string::npos) << "the run is measured again: " << r.err;
  expect_consistent(4, 5);
}

TEST_F(Reliability, ResumeChangesNothingWhenTheMachineCannotRunIt) {
  ASSERT_EQ(bench(args({"--modes", "timeslice", "--procs", "1,2", "--tasks", "5"})).exit_code, 0);
  std::string s = read_text(out() / "summary.csv");
  write_text(out() / "summary.csv", s.substr(0, s.size() - 25));
  write_text(out() / "tasks.csv", read_text(out() / "tasks.csv") + "r1-timeslice-cpu-n2,0,9,1.5");
  std::map<std::string, std::string> before;
  for (const auto& e : fs::directory_iterator(out())) before[e.path().filename()] = read_text(e.path());
  // A foreign MPS daemon: the preflight refuses the machine (exit 3) before any repair.
  const ForeignDaemon foreign(env, tmp.path());  // quit at the end, however the test ends
  ASSERT_TRUE(foreign.running());
  const auto r = bench({"--resume", out().string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err.find("resume:"), std::string::npos) << "nothing may be repaired: " << r.err;
  for (const auto& [name, text] : before) EXPECT_EQ(read_text(out() / name), text) << name << " was changed";
  for (const auto& e : fs::directory_iterator(out()))
    EXPECT_TRUE(before.count(e.path().filename())) << e.path().filename() << " was written";
}

struct Refusal {
  std::string name;
  std::function<void(const fs::path&)> damage;
  std::vector<std::string> extra_args;
  std::string message;
};

void PrintTo(const Refusal& r, std::ostream* os) { *os << r.name; }

class ResumeRefusal : public Reliability, public ::testing::WithParamInterface<Refusal> {};

TEST_P(ResumeRefusal, OneLineExitTwoFolderUntouched) {
  ASSERT_EQ(bench(args({"--modes", "timeslice", "--procs", "1,2", "--tasks", "5"})).exit_code, 0);
  GetParam().damage(out());
  std::map<std::string, std::string> before;
  for (const auto& e : fs::directory_iterator(out())) before[e.path().filename()] = read_text(e.path());
  std::vector<std::string> a{"--resume", out().string()};
  a.insert(a.end(), GetParam().extra_args.begin(), GetParam().extra_args.end());
  const auto r = bench(a);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
  for (const auto& [name, text] : before) EXPECT_EQ(read_text(out() / name), text) << name << " changed";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ResumeRefusal,
    ::testing::Values(
        Refusal{"other_schema",
                [](const fs::path& d) {
                  std::string m = read_text(d / "meta.json");
                  m.replace(m.find("\"schema_version\": 1"), 19, "\"schema_version\": 7");
                  write_text(d / "meta.json", m);
                },
                {},
                "schema version 7"},
        Refusal{"meta_section_of_wrong_type",
                [](const fs::path& d) {
                  auto m = nlohmann::json::parse(read_text(d / "meta.json"));
                  m["mps"] = nlohmann::json::array({1});
                  write_text(d / "meta.json", m.dump(2));
                },
                {},
                "meta.json: \"mps\" is a array, not an object"},
        Refusal{"meta_value_of_wrong_type",
                [](const fs::path& d) {
                  auto m = nlohmann::json::parse(read_text(d / "meta.json"));
                  m["sweep"]["procs"] = "one and two";
                  write_text(d / "meta.json", m.dump(2));
                },
                {},
                "meta.json: sweep.procs is \"one and two\", not a list, each a whole number: the file is damaged"},
        Refusal{"other_sweep",
                [](const fs::path&) {},
                {"--workloads", "cpu", "--procs", "1,4", "--modes", "timeslice"},
                "holds another sweep (procs [1,2] there vs [1,4] here; repeats 1 there vs 5 here;"},
        Refusal{"other_sweep_in_two_fields",  // every difference named, not the first in key order only
                [](const fs::path&) {},
                {"--workloads", "cpu", "--procs", "1,4", "--modes", "timeslice,mps"},
                "(modes [\"timeslice\"] there vs [\"timeslice\",\"mps\"] here; procs [1,2] there vs [1,4] here;"},
        Refusal{"other_device",  // the whole command line retyped with another --device (or without it)
                [](const fs::path&) {},
                {"--workloads", "cpu", "--settle", "0", "--repeats", "1", "--modes", "timeslice", "--procs", "1,2",
                 "--tasks", "5", "--device", "cpu-5"},
                "holds another sweep (device \"\" there vs \"cpu-5\" here)"},
        Refusal{"row_of_unplanned_configuration",  // a copied row renamed to an N the sweep never planned
                [](const fs::path& d) {
                  const std::vector<std::string> lines = read_lines(d / "summary.csv");
                  std::string row = lines.back();
                  row.replace(0, row.find(','), "r9-timeslice-cpu-n7");
                  write_text(d / "summary.csv", read_text(d / "summary.csv") + row + "\n");
                },
                {},
                "summary.csv: run r9-timeslice-cpu-n7 is none of this sweep's configurations"},
        Refusal{"garbage_row",
                [](const fs::path& d) {
                  std::string s = read_text(d / "summary.csv");
                  write_text(d / "summary.csv", s + "r9-x,zz,cpu\n");
                },
                {},
                "summary.csv"},
        Refusal{"garbage_cell",
                [](const fs::path& d) {
                  std::string s = read_text(d / "runs.csv");
                  s.replace(s.rfind(",ok,"), 4, ",ok,\"unterminated");
                  write_text(d / "runs.csv", s);
                },
                {},
                "runs.csv"},
        Refusal{"missing_file", [](const fs::path& d) { fs::remove(d / "tasks.csv"); }, {}, "tasks.csv: no such file"},
        // issue 35: a damaged timeline.csv beside a summary that needs repair: checked before any file changes
        Refusal{"damaged_timeline_header_after_repairable_rows",
                [](const fs::path& d) {
                  std::string s = read_text(d / "summary.csv");
                  write_text(d / "summary.csv", s.substr(0, s.size() - 25));  // a cut last row: repairable
                  write_text(d / "timeline.csv", "run_id,what\n" + read_text(d / "timeline.csv"));
                },
                {},
                "timeline.csv: its first line is not the header this bench_mps writes"},
        Refusal{"crlf_summary",
                [](const fs::path& d) {
                  std::string s = read_text(d / "summary.csv"), crlf;
                  for (const char c : s) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
                  write_text(d / "summary.csv", crlf);
                },
                {},
                "summary.csv: has CRLF line ends"},
        Refusal{"with_out",
                [](const fs::path&) {},
                {"--out", "/tmp/elsewhere"},
                "--out and --resume cannot be given together"}),
    [](const auto& p) { return p.param.name; });

TEST_F(Reliability, FaultScenarioRecordsVictimsFaulterAndRecovery) {
  const auto r = bench(args({"--scenario", "fault", "--modes", "timeslice,mps", "--procs", "3", "--tasks", "30",
                             "--cpu-task-us", "2000", "--fault-delay-ms", "10"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  static constexpr std::array<const char*, 9> cols{
      "run_id",           "procs",       "status",           "scenario",      "victims",
      "victims_survived", "fault_error", "mps_server_state", "mps_recovery_s"};
  std::map<std::string, std::array<std::string, 9>> rows;
  for (const auto& row : harness::read_csv_columns(out() / "summary.csv", cols)) rows[row[0]] = row;
  ASSERT_EQ(rows.size(), 4u);
  const auto& base = rows.at("r1-timeslice-cpu-n2-fault_baseline");
  EXPECT_EQ(base[1], "2");
  EXPECT_EQ(base[3], "fault_baseline");
  for (const char* id : {"r1-timeslice-cpu-n3-fault", "r1-mps-cpu-n3-fault"}) {
    const auto& f = rows.at(id);
    EXPECT_EQ(f[2], "ok") << id;
    EXPECT_EQ(f[3], "fault");
    EXPECT_EQ(f[4], "2");
    EXPECT_EQ(f[5], "2") << "CPU victims cannot be hurt by the fault";
    EXPECT_NE(f[6].find("injected fault"), std::string::npos) << f[6];
  }
  EXPECT_TRUE(rows.at("r1-timeslice-cpu-n3-fault")[8].empty());
  EXPECT_NE(rows.at("r1-mps-cpu-n3-fault")[7].find("survived (pid"), std::string::npos);
  EXPECT_GT(std::stod(rows.at("r1-mps-cpu-n3-fault")[8]), 0.0);
  std::map<std::string, int> roles;
  static constexpr std::array<const char*, 2> run_cols{"run_id", "role"};
  for (const auto& row : harness::read_csv_columns(out() / "runs.csv", run_cols))
    if (row[0] == "r1-mps-cpu-n3-fault") ++roles[row[1]];
  EXPECT_EQ(roles["victim"], 2);
  EXPECT_EQ(roles["faulter"], 1);
  EXPECT_NE(r.out.find("fault isolation"), std::string::npos) << r.out;

  // Its report: tables only, the victims' fate per mode in the first line.
  const auto rep = run_program(bench_mps_exe(), {"report", out().string()}, env);
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const auto lines = read_lines(out() / "report.md");
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find("timeslice (N=3, cpu) 2/2 victims survived"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("a new MPS client ran again"), std::string::npos) << lines[0];
  EXPECT_NE(read_text(out() / "report.md").find("| cpu | mps | 3 | 2/2 |"), std::string::npos);
  EXPECT_NE(lines[0].find("each froze at the fault for"), std::string::npos) << lines[0];
  EXPECT_NE(read_text(out() / "report.md").find("## The freeze"), std::string::npos);
  EXPECT_FALSE(fs::exists(out() / "plots"));
  // Each fault run says what the kernel log held, or why it could not be read.
  static constexpr std::array<const char*, 3> xid_cols{"run_id", "scenario", "driver_messages"};
  int fault_runs = 0;
  for (const auto& row : harness::read_csv_columns(out() / "summary.csv", xid_cols)) {
    if (row[1] != "fault") continue;
    ++fault_runs;
    EXPECT_TRUE(row[2] == "none in the kernel log" || row[2].rfind("kernel log not readable: ", 0) == 0 ||
                row[2].find("NVRM: Xid") != std::string::npos)
        << row[0] << ": " << row[2];
  }
  EXPECT_EQ(fault_runs, 2);
  EXPECT_NE(read_text(out() / "report.md").find("## Driver messages (Xid)"), std::string::npos);
}

// Victims whose tasks are all done before the faulter fails were not exposed to the fault: not counted among the
// victims nor said to survive it or freeze at it (a review found a demo's report say "2/2 victims survived: each froze
// at the fault" of victims that had ended before it).
TEST_F(Reliability, VictimsThatEndedBeforeTheFaultAreNotCounted) {
  const auto r = bench(args({"--scenario", "fault", "--modes", "timeslice", "--procs", "1,3", "--tasks", "2",
                             "--cpu-task-us", "2000", "--fault-delay-ms", "300"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // N=1 has no victim: the command line passes (its default --procs holds 1), and the sweep and the report say N=1
  // ran nothing (a review found the report's Sweep row list N=1 as if measured).
  const std::string left_out =
      "--scenario fault: N=1 in --procs runs nothing (N-1 victims and one faulting worker): left out";
  EXPECT_NE(r.err.find("bench_mps: " + left_out), std::string::npos) << r.err;
  static constexpr std::array<const char*, 5> cols{"run_id", "status", "reason", "victims", "victims_survived"};
  std::map<std::string, std::array<std::string, 5>> rows;
  for (const auto& row : harness::read_csv_columns(out() / "summary.csv", cols)) rows[row[0]] = row;
  const auto& f = rows.at("r1-timeslice-cpu-n3-fault");
  EXPECT_EQ(f[1], "ok");
  EXPECT_EQ(f[2],
            "2 of 2 victims ended before the fault, not counted (give them more --tasks, or a shorter "
            "--fault-delay-ms)");
  EXPECT_EQ(f[3], "0");
  EXPECT_EQ(f[4], "0");
  static constexpr std::array<const char*, 2> run_cols{"run_id", "role"};
  int early = 0;
  for (const auto& row : harness::read_csv_columns(out() / "runs.csv", run_cols))
    early += row[0] == "r1-timeslice-cpu-n3-fault" && row[1] == "victim (ended before the fault)";
  EXPECT_EQ(early, 2);
  ASSERT_EQ(run_program(bench_mps_exe(), {"report", out().string()}, env).exit_code, 0);
  const std::string headline = read_lines(out() / "report.md").at(0);
  EXPECT_NE(headline.find("when one of N processes failed (the CPU stand-in's injected error: no GPU fault)"),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find("timeslice (N=3, cpu) no victim was running at the fault"), std::string::npos) << headline;
  EXPECT_EQ(headline.find("froze"), std::string::npos) << headline;
  EXPECT_NE(read_text(out() / "report.md").find("then fails with an injected error (a CPU stand-in: no GPU fault)"),
            std::string::npos);
  EXPECT_NE(read_text(out() / "report.md").find("| Sweep | N = 1, 3 (" + left_out + "); repeats "), std::string::npos)
      << read_text(out() / "report.md");
}

class SetExclusive : public Reliability {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "--set-exclusive needs root";
    Reliability::SetUp();
  }
  std::vector<std::string> smi_calls() const { return read_lines(smi_journal()); }
};

TEST_F(SetExclusive, SwitchesForMpsBlocksAndRestores) {
  const auto r =
      bench(args({"--modes", "timeslice,mps", "--procs", "1", "--tasks", "3", "--repeats", "2", "--set-exclusive"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int switched = 0, restored = 0;
  for (const auto& call : smi_calls()) {
    switched += call.find("-c EXCLUSIVE_PROCESS") != std::string::npos;
    restored += call.find("-c DEFAULT") != std::string::npos;
  }
  EXPECT_EQ(switched, 2);  // one per MPS block
  EXPECT_EQ(restored, 2);
  EXPECT_EQ(trim_line(read_text(tmp / "smi-state")), "Default");
}

TEST_F(SetExclusive, SwitchesTheDeviceMeasuredNotGpuZero) {
  const auto r =
      bench(args({"--modes", "mps", "--procs", "1", "--tasks", "3", "--device", "cpu-3", "--set-exclusive"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto calls = smi_calls();
  ASSERT_FALSE(calls.empty());
  for (const auto& call : calls) EXPECT_NE(call.find("-i cpu-3"), std::string::npos) << call;
}

TEST_F(SetExclusive, RestoredAfterCtrlCAndAfterSigkill) {
  const auto hang = args({"--modes", "mps", "--procs", "2", "--tasks", "3", "--cpu-fault", "hang", "--cpu-fault-worker",
                          "1", "--set-exclusive"});
  {
    BackgroundProgram b(bench_mps_exe(), hang, env);
    ASSERT_TRUE(wait_until([&] { return read_text(tmp / "smi-state").find("Exclusive") != std::string::npos; }, 30));
    ASSERT_TRUE(wait_until([&] { return fs::exists(hang_mark()); }, 30)) << "the worker never reached its hang";
    b.signal(SIGINT);
    EXPECT_EQ(b.wait(30).exit_code, 130);
  }
  EXPECT_EQ(trim_line(read_text(tmp / "smi-state")), "Default");

  fs::remove_all(out());
  fs::remove(hang_mark());
  {
    BackgroundProgram b(bench_mps_exe(), hang, env);
    ASSERT_TRUE(wait_until([&] { return read_text(tmp / "smi-state").find("Exclusive") != std::string::npos; }, 30));
    ASSERT_TRUE(wait_until([&] { return fs::exists(hang_mark()); }, 30)) << "the worker never reached its hang";
    b.signal(SIGKILL);
    b.wait(10);
  }
  EXPECT_EQ(trim_line(read_text(tmp / "smi-state")), "Exclusive_Process") << "SIGKILL cannot restore it";
  fs::remove_all(out());
  const auto r = bench(args({"--modes", "timeslice", "--procs", "1", "--tasks", "3"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("restored compute mode DEFAULT"), std::string::npos) << r.err;
  EXPECT_EQ(trim_line(read_text(tmp / "smi-state")), "Default");
}

}  // namespace
}  // namespace bench_mps::testing
