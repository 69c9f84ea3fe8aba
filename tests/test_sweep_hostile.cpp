// Hostile input and faults on the sweep's plan and writer side (issue 21), with real processes (the
// CPU-only worker, the fake MPS daemon): per-client lists that do not fit N, pinned memory limits MPS
// cannot express, run ids that would make nested folders, two sweeps given one --out, a folder
// holding someone else's CSV files, SIGQUIT and SIGHUP, and a full disk (a file size limit: EFBIG).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/sweep_fixture.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A usage error: exit 2, one line, and nothing written where the results would have gone.
void expect_refused(const CommandOutput& r, const fs::path& out, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const std::string& p : parts) EXPECT_TRUE(contains(r.err, p)) << "'" << p << "' not in: " << r.err;
  std::error_code ec;
  EXPECT_FALSE(fs::exists(out / "meta.json", ec)) << "a refused sweep wrote meta.json";
  EXPECT_FALSE(fs::exists(out / "summary.csv", ec)) << "a refused sweep wrote summary.csv";
}

// --- 1. per-client lists: one value for all, or exactly one entry per client at every N ----------

struct ListCase {
  std::string name;
  std::vector<std::string> args;
  std::vector<std::string> message;  ///< parts of the one line: the option, the list, the N
};

class PerClientLists : public Orchestration, public ::testing::WithParamInterface<ListCase> {};

TEST_P(PerClientLists, AListThatDoesNotFitNIsRefusedBeforeAnythingRuns) {
  const auto r = sweep(GetParam().args);
  expect_refused(r, out(), GetParam().message);
  EXPECT_EQ(journal_count("daemon start"), 0) << "a daemon was started for a refused sweep";
}

INSTANTIATE_TEST_SUITE_P(
    Lists, PerClientLists,
    ::testing::Values(
        // Values dropped: three percentages for two clients.
        ListCase{"PercentagesDropped",
                 {"--modes", "mps:60/20/20", "--procs", "2"},
                 {"--modes 'mps:60/20/20'", "(60/20/20)", "N=2"}},
        // Values dropped: the third priority.
        ListCase{"PrioritiesDropped",
                 {"--modes", "mps+prio=0/1/0", "--procs", "2"},
                 {"--modes 'mps+prio=0/1/0'", "(0/1/0)", "N=2"}},
        // A value reused: the third client would have taken 2G again.
        ListCase{"MemoryLimitReused",
                 {"--modes", "mps+mem=1G/2G", "--procs", "3"},
                 {"--modes 'mps+mem=1G/2G'", "(1G/2G)", "N=3"}},
        // Right at N=2, wrong at N=1 of the same sweep.
        ListCase{
            "WrongAtAnotherN", {"--modes", "timeslice,mps:60/40", "--procs", "1,2"}, {"'mps:60/40'", "(60/40)", "N=1"}},
        // The interference scenario runs the foreground alone (N=1): a two-entry list cannot serve it.
        ListCase{"InterferenceAloneRuns",
                 {"--scenario", "interference", "--foreground", "cpu", "--background", "cpu", "--modes", "mps:70/30",
                  "--procs", "2"},
                 {"'mps:70/30'", "(70/30)", "N=1", "interference_fg"}}),
    [](const ::testing::TestParamInfo<ListCase>& p) { return p.param.name; });

TEST_F(Orchestration, OneValueServesEveryClientAndPlusPrioIsARuleNotAList) {
  const auto r = sweep({"--modes", "mps+mem=1G,mps+prio,mps:60/40+prio=0/1", "--procs", "2,3"});
  // mps:60/40 at N=3 is refused; without it every N is fine.
  expect_refused(r, out(), {"'mps:60/40+prio=0/1'", "N=3"});
  const auto ok = sweep({"--modes", "mps+mem=1G,mps+prio", "--procs", "1,3"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  int workers = 0;
  for (const auto& row : csv_records(out() / "runs.csv")) {
    ++workers;
    if (row.at("mode") == "mps+mem=1G") {
      EXPECT_EQ(row.at("client_mem_limit_bytes"), "1073741824");
    } else {
      EXPECT_EQ(row.at("client_priority"), row.at("worker") == "0" ? "0" : "1");
    }
  }
  EXPECT_EQ(workers, 2 * (1 + 3));
}

// --- 2. a pinned memory limit is one value everywhere, or refused --------------------------------

TEST_F(Orchestration, MemoryLimitMpsCannotExpressIsRefused) {
  for (const char* size : {"0.5M", "1.5M", "1.0000001G"}) {
    const auto r = sweep({"--modes", std::string("mps+mem=") + size, "--procs", "1"});
    expect_refused(r, out(), {size, "whole number of MiB"});
  }
}

TEST_F(Orchestration, MemoryLimitIsNamedRecordedAndAppliedAsOneValue) {
  const auto r = sweep({"--modes", "mps+mem=1.5G", "--procs", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = harness::read_runs(out() / "runs.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].run_id, "r1-mps+mem=1536M-cpu-n1");                                         // named
  EXPECT_EQ(csv_records(out() / "runs.csv").at(0).at("client_mem_limit_bytes"), "1610612736");  // recorded
  EXPECT_EQ(rows[0].fact("mps_mem_limit_mib"), 1536) << rows[0].facts;  // applied (what the client saw)
}

// --- 3. run ids are safe file names --------------------------------------------------------------

TEST_F(Orchestration, RunIdsHoldNoSlashAndMakeNoNestedFolders) {
  const auto r = run_program(bench_mps_exe(),
                             {"--workloads", "exec", "--command", "true", "--modes", "mps:60/40+mem=1G/512M", "--procs",
                              "2", "--repeats", "1", "--settle", "0", "--timeout", "20", "--out", out().string()},
                             env, 120);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;  // the fake daemon may leave exec's MPS proof unproven
  const auto rows = summary_by_id();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows.begin()->first, "r1-mps:60_40+mem=1G_512M-exec-n2");
  EXPECT_EQ(rows.begin()->second.mode, "mps:60/40+mem=1G/512M");  // the mode keeps its name
  // exec's logs: one folder per run, directly under exec/.
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(out() / "exec")) entries.push_back(e.path().filename().string());
  EXPECT_EQ(entries, std::vector<std::string>{"r1-mps:60_40+mem=1G_512M-exec-n2"});
}

// --- 4. one sweep per --out ----------------------------------------------------------------------

TEST_F(Orchestration, AFolderClaimedByAnotherSweepIsRefusedNamingItsPid) {
  fs::create_directories(out());
  const fs::path claim = out() / ".bench_mps.lock";
  const int fd = ::open(claim.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  ASSERT_EQ(::write(fd, "4242\n", 5), 5);
  const auto r = sweep({"--modes", "timeslice", "--procs", "1"});
  // A folder the holder has already written meta.json into: named with the holder's pid too, not "holds results";
  // and so is a --resume of it (not the GPU's lock, exit 3).
  write_text(out() / "meta.json", "{}");
  const auto written = sweep({"--modes", "timeslice", "--procs", "1"});
  const auto resumed = run_program(bench_mps_exe(), {"--resume", out().string()}, env);
  ::close(fd);
  fs::remove(out() / "meta.json");
  expect_refused(r, out(), {out().string(), "pid 4242"});
  EXPECT_EQ(written.exit_code, 2) << written.err;
  EXPECT_TRUE(contains(written.err, "in use by another bench_mps sweep (pid 4242)")) << written.err;
  EXPECT_EQ(resumed.exit_code, 2) << resumed.err;
  EXPECT_TRUE(contains(resumed.err, "in use by another bench_mps sweep (pid 4242)")) << resumed.err;
  EXPECT_TRUE(contains(resumed.err, "error: --resume: ")) << "the option the user gave: " << resumed.err;
  // Released (as a crashed sweep's is): the stale file is taken over, and removed at the end.
  const auto again = sweep({"--modes", "timeslice", "--procs", "1"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(fs::exists(claim)) << "the claim file outlived its sweep";
}

TEST_F(Orchestration, TwoSweepsStartedAtOnceWithOneOutNeverShareIt) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    fs::remove_all(out());
    std::vector<std::unique_ptr<BackgroundProgram>> sweeps;
    for (const char* device : {"cpu-0", "cpu-1"})
      sweeps.push_back(std::make_unique<BackgroundProgram>(
          bench_mps_exe(), args({"--device", device, "--modes", "timeslice", "--procs", "1,2"}), env));
    std::multiset<int> codes;
    std::string errs;
    for (auto& s : sweeps) {
      const CommandOutput r = s->wait(60);
      codes.insert(r.exit_code);
      errs += r.err;
      if (r.exit_code == 2) {
        EXPECT_TRUE(contains(r.err, "--out: " + out().string())) << r.err;
      }
    }
    ASSERT_EQ(codes, (std::multiset<int>{0, 2})) << "attempt " << attempt << ": " << errs;
    // The folder holds one sweep: one device, each run once.
    const auto rows = read_summary(out() / "summary.csv");
    EXPECT_EQ(rows.size(), 2u) << "attempt " << attempt;
    const std::string device = harness::read_meta(out())["device"]["key"];
    EXPECT_TRUE(device == "cpu-0" || device == "cpu-1") << device;
  }
}

TEST_F(Orchestration, ResumeTakesOverTheClaimOfASweepKilledMidRun) {
  BackgroundProgram b(
      bench_mps_exe(),
      args({"--modes", "timeslice", "--procs", "1,2", "--cpu-fault", "hang", "--cpu-fault-worker", "1"}), env);
  ASSERT_TRUE(wait_until([&] { return fs::exists(hang_mark()); }, 60)) << "the worker never reached its hang";
  b.signal(SIGKILL);
  b.wait(10);
  ASSERT_TRUE(fs::exists(out() / ".bench_mps.lock")) << "a killed sweep cannot remove its claim";
  const auto r = run_program(bench_mps_exe(), {"--resume", out().string(), "--timeout", "1"}, env, 40);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the hang recurs and times out: a recorded failure
  EXPECT_FALSE(contains(r.err, "in use")) << r.err;
  EXPECT_EQ(read_summary(out() / "summary.csv").size(), 2u);
  EXPECT_FALSE(fs::exists(out() / ".bench_mps.lock"));
}

TEST_F(Orchestration, AWorkerTheUserNamedThatCannotRunIsBadInput) {
  // It exited 3 ("the machine cannot run it") and called a file that is there "not found".
  write_text(tmp / "plain-file", "not a program\n");
  const std::vector<std::pair<std::string, std::string>> cases{{(tmp / "nosuch").string(), "no such file"},
                                                               {(tmp / "plain-file").string(), "not executable"},
                                                               {tmp.path().string(), "a folder, not a program"}};
  for (const auto& [worker, why] : cases) {
    const auto r = sweep({"--modes", "timeslice", "--procs", "1", "--worker", worker});
    EXPECT_EQ(r.exit_code, 2) << worker << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "--worker: " + worker + ": " + why)) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out())) << worker;
  }
}

// --- 5. never append under someone else's header -------------------------------------------------

TEST_F(Orchestration, AFolderHoldingTheUsersOwnCsvIsRefusedAndLeftAlone) {
  for (const char* name : {"tasks.csv", "summary.csv", "runs.csv", "timeline.csv"}) {
    fs::remove_all(out());
    fs::create_directories(out());
    const std::string mine = "my,own,header\n1,2,3\n";
    write_text(out() / name, mine);
    const auto r = sweep({"--modes", "timeslice", "--procs", "1"});
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
    EXPECT_TRUE(contains(r.err, name)) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(read_text(out() / name), mine) << name << " was changed";
    EXPECT_FALSE(fs::exists(out() / "meta.json"));
  }
}

TEST(AppendDurably, NeverAppendsUnderAnotherHeader) {
  TempDir tmp;
  const fs::path file = tmp / "tasks.csv";
  write_text(file, "x,y\n1,2\n");
  EXPECT_THROW(harness::append_durably(file, "a,b\n", "3,4\n"), harness::UsageError);
  EXPECT_EQ(read_text(file), "x,y\n1,2\n");
  write_text(file, "a,b\n1,2\n");
  harness::append_durably(file, "a,b\n", "3,4\n");
  EXPECT_EQ(read_text(file), "a,b\n1,2\n3,4\n");
}

// --- 6. SIGQUIT, SIGHUP and a batch job's SIGUSR1/SIGALRM stop a sweep like Ctrl-C ----------------------------------------------

class StopSignals : public Orchestration, public ::testing::WithParamInterface<int> {};

TEST_P(StopSignals, StopTheDaemonRecordInterruptedAndExitWith128PlusTheSignal) {
  const int sig = GetParam();
  BackgroundProgram b(bench_mps_exe(),
                      args({"--modes", "mps", "--procs", "2", "--cpu-fault", "hang", "--cpu-fault-worker", "1"}), env);
  ASSERT_TRUE(wait_until([&] { return fs::exists(hang_mark()); }, 60)) << "the worker never reached its hang";
  ASSERT_GT(live_mps_process_count(), 0);
  b.signal(sig);
  const CommandOutput r = b.wait(60);
  EXPECT_EQ(r.exit_code, 128 + sig) << r.err;
  EXPECT_TRUE(contains(r.err, "--resume " + out().string())) << r.err;
  EXPECT_EQ(harness::read_meta(out())["status"], "interrupted");
  EXPECT_EQ(journal_count("daemon stopped"), 1);
  EXPECT_FALSE(fs::exists(out() / ".bench_mps.lock"));
}

INSTANTIATE_TEST_SUITE_P(Signals, StopSignals, ::testing::Values(SIGQUIT, SIGHUP, SIGUSR1, SIGALRM),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return p.param == SIGQUIT   ? "SIGQUIT"
                                  : p.param == SIGHUP  ? "SIGHUP"
                                  : p.param == SIGUSR1 ? "SIGUSR1"
                                                       : "SIGALRM";
                         });

// --- 7. a full disk: stop cleanly, say how to go on ----------------------------------------------

/// Runs `body` in a child process whose files may not grow past `limit` bytes (SIGXFSZ ignored, so a
/// write past it fails with EFBIG as on a full disk); the child's exit code.
int with_file_size_limit(rlim_t limit, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit l{limit, limit};
    if (::setrlimit(RLIMIT_FSIZE, &l) != 0) ::_exit(100);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(FullDisk, AnAtomicWriteThatFailsLeavesNoTmpAndTheOldFile) {
  TempDir tmp;
  const fs::path file = tmp / "meta.json";
  write_text(file, "old\n");
  const int code = with_file_size_limit(4096, [&] {
    try {
      harness::write_file_atomically(file, std::string(10000, 'x'));
    } catch (const harness::FileWriteError& e) {
      return contains(e.what(), "meta.json.tmp") && contains(e.what(), "File too large") ? 0 : 2;
    }
    return 1;
  });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(read_text(file), "old\n");
  EXPECT_FALSE(fs::exists(tmp / "meta.json.tmp"));
}

TEST(FullDisk, AnAppendThatFailsLeavesTheFileAsItWas) {
  TempDir tmp;
  const fs::path file = tmp / "tasks.csv";
  const std::string before = "a,b\n" + std::string(3000, '1') + "\n";
  write_text(file, before);
  const int code = with_file_size_limit(4096, [&] {
    try {
      harness::append_durably(file, "a,b\n", std::string(2000, '2') + "\n");
    } catch (const harness::FileWriteError& e) {
      return contains(e.what(), "tasks.csv") ? 0 : 2;
    }
    return 1;
  });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(read_text(file), before) << "a torn row was left";
}

TEST_F(Orchestration, FullDiskStopsTheSweepCleanlyAndResumeFinishesIt) {
  // 8 KiB per file: meta.json (about 3 KiB) fits, tasks.csv (about 0.6 KiB a run) fills up halfway
  // (dash counts 512-byte blocks).
  const std::vector<std::string> a =
      args({"--modes", "timeslice,mps", "--procs", "1,2", "--repeats", "6", "--rounds", "1"});
  std::vector<std::string> sh{"-c", "ulimit -f 16 && exec \"$0\" \"$@\"", bench_mps_exe().string()};
  sh.insert(sh.end(), a.begin(), a.end());
  const auto r = run_program("/bin/sh", sh, env, 120);
  ASSERT_EQ(r.exit_code, 3) << r.err;
  // One line naming the file, the error and how to go on.
  const std::string last = r.err.substr(r.err.rfind('\n', r.err.size() - 2) + 1);
  EXPECT_TRUE(contains(last, "File too large")) << last;
  EXPECT_TRUE(contains(last, ".csv")) << last;
  EXPECT_TRUE(contains(last, "--resume " + out().string())) << last;
  const auto meta = harness::read_meta(out());
  EXPECT_EQ(meta["status"], "interrupted");
  EXPECT_TRUE(contains(meta.value("stop_reason", ""), "File too large")) << meta.dump();
  for (const auto& e : fs::directory_iterator(out()))
    EXPECT_NE(e.path().extension(), ".tmp") << e.path() << " was left behind";
  EXPECT_FALSE(fs::exists(out() / ".bench_mps.lock"));
  const std::size_t recorded = read_summary(out() / "summary.csv").size();
  EXPECT_GT(recorded, 0u);
  EXPECT_LT(recorded, 24u);

  const auto resumed = run_program(bench_mps_exe(), {"--resume", out().string()}, env, 120);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::set<std::string> ids;
  for (const auto& row : read_summary(out() / "summary.csv")) EXPECT_TRUE(ids.insert(row.run_id).second) << row.run_id;
  EXPECT_EQ(ids.size(), 24u);
  EXPECT_EQ(harness::read_meta(out())["status"], "complete");
  harness::read_tasks(out() / "tasks.csv");  // whole rows only
  harness::read_runs(out() / "runs.csv");
}

}  // namespace
}  // namespace bench_mps::testing
