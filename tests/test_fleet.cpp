// Many GPUs on one machine, and MPS run by the site: --device (one lock and one private daemon per
// device), --gpus (a child sweep per device, on cores of its own), --external-mps (clients of a daemon
// the test starts, as Slurm's prolog would), and the fleet report over many results folders. Real
// processes throughout: pretend devices cpu-<n> with the CPU-only workloads stand in for GPUs, the
// fake nvidia-cuda-mps-control for the daemons. Concurrency is arranged with gate files, never sleeps:
// an exec command that waits for a file holds one sweep inside its MPS block while another runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/common/errors.hpp"
#include "harness/common/proc_scan.hpp"
#include "harness/plan/device_options.hpp"
#include "harness/report/report_fleet.hpp"
#include "harness/results/gpus_index.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/sweep/cpu_affinity.hpp"
#include "harness/sweep/external_mps.hpp"
#include "harness/sweep/gpu_select.hpp"
#include "harness/sweep/multi_gpu.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

int count_lines_with(const fs::path& file, const std::string& what) {
  const auto lines = read_lines(file);
  return static_cast<int>(std::count_if(lines.begin(), lines.end(),
                                        [&](const std::string& l) { return l.find(what) != std::string::npos; }));
}

class Fleet : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(live_mps_process_count(), 0) << "an MPS daemon is already running on this machine";
    fs::create_directories(gate());
  }
  void TearDown() override {
    EXPECT_TRUE(wait_until([] { return live_mps_process_count() == 0; }, 10)) << "a daemon was left behind";
    EXPECT_FALSE(session_folder_left()) << "a private MPS folder was left behind";
    // A failed test must not fail every later one: whatever daemon of ours is still there goes.
    for (const harness::ProcInfo& p : harness::live_mps_processes()) {
      const auto pipe = harness::process_env(p.pid, "CUDA_MPS_PIPE_DIRECTORY");
      if (pipe && pipe->rfind(tmp.path().string(), 0) == 0) ::kill(p.pid, SIGKILL);
    }
  }

  fs::path gate() const { return tmp / "gate"; }
  fs::path journal(const std::string& who) const { return tmp / (who + ".journal"); }
  /// The pids in the pid files of the MPS sessions of a device folder (`cpu-0`), alive or not.
  std::vector<pid_t> daemons_of(const std::string& device_dir) const {
    std::vector<pid_t> pids;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(tmp / ("bench_mps-" + std::to_string(::getuid())) / device_dir, ec)) {
      const std::string text = read_text(e.path() / "pipe" / "nvidia-cuda-mps-control.pid");
      if (!text.empty()) pids.push_back(static_cast<pid_t>(std::stol(text)));
    }
    return pids;
  }
  bool session_folder_left() const {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(tmp.path(), ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->path().filename().string().rfind("session-", 0) == 0) return true;
    return false;
  }
  /// The fakes on PATH, the journal of `who`, one TMPDIR for everyone (so the locks are shared).
  Env env_of(const std::string& who) const {
    Env e = fake_mps_env(journal(who));
    e.set.emplace_back("TMPDIR", tmp.path().string());
    e.set.emplace_back("GATE_DIR", gate().string());
    return e;
  }
  std::vector<std::string> cpu_sweep(const std::string& out, std::vector<std::string> extra) const {
    std::vector<std::string> a{"--workloads", "cpu", "--cpu-task-us", "500", "--tasks", "5",
                               "--settle",    "0",   "--repeats",     "1",   "--out",   (tmp / out).string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  /// A sweep whose every copy registers with the (fake) daemon, says it waits, and waits for the gate;
  /// under MPS it then stays until the harness has read the client list twice since it registered (the
  /// journal says so), so that the harness's proof has seen it however slowly the fake answers.
  /// No exec warm-up: a warm-up copy would wait at the gate under another run id.
  std::vector<std::string> gated_sweep(const std::string& out, std::vector<std::string> extra) const {
    std::vector<std::string> a{
        "--workloads",
        "exec",
        "--repeats",
        "1",
        "--settle",
        "0",
        "--exec-warmups",
        "0",
        "--out",
        (tmp / out).string(),
        "--command",
        "polls() { grep -c get_client_list \"$FAKE_MPS_JOURNAL\" 2>/dev/null || true; }; need=-1; "
        "if [ -e \"$CUDA_MPS_PIPE_DIRECTORY/control\" ]; then echo $$ >> \"$CUDA_MPS_PIPE_DIRECTORY/clients\"; "
        "need=$(( $(polls) + 2 )); fi; "
        "touch \"$GATE_DIR/waiting-$BENCH_MPS_RUN_ID\"; while [ ! -e \"$GATE_DIR/open\" ]; do sleep 0.02; done; "
        "while [ \"$(polls)\" -lt \"$need\" ]; do sleep 0.02; done"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  bool waiting(const std::string& run_id) const { return fs::exists(gate() / ("waiting-" + run_id)); }
  /// Declared after a gated sweep: however the test ends, the gate opens and the sweep finishes (so
  /// it quits its daemon) before BackgroundProgram's destructor would SIGKILL it.
  struct Finish {
    const Fleet& fleet;
    BackgroundProgram& sweep;
    ~Finish() {
      fleet.open_gate();
      sweep.wait(60);
    }
  };
  void open_gate() const { write_text(gate() / "open", ""); }
  std::vector<harness::SummaryRecord> rows(const std::string& out) const {
    return harness::read_summary(tmp / out / "summary.csv");
  }
  void expect_all_ok(const std::string& out, std::size_t n) const {
    const auto r = rows(out);
    EXPECT_EQ(r.size(), n) << out;
    for (const auto& row : r) EXPECT_EQ(row.status, "ok") << out << " " << row.run_id << ": " << row.reason;
  }

  TempDir tmp;
};

TEST_F(Fleet, SweepsOfDifferentDevicesRunSideBySideEachWithItsOwnDaemon) {
  // A waits inside its MPS block (its daemon up) while B runs a whole sweep, MPS and time-sliced.
  BackgroundProgram a(bench_mps_exe(),
                      gated_sweep("a", {"--device", "cpu-0", "--modes", "mps,timeslice", "--procs", "1"}), env_of("a"));
  const Finish finish_a{*this, a};
  ASSERT_TRUE(wait_until([&] { return waiting("r1-mps-exec-n1"); }, 60)) << "sweep A never reached its MPS run";
  ASSERT_EQ(count_lines_with(journal("a"), "daemon started"), 1);

  const auto b =
      run_program(bench_mps_exe(), cpu_sweep("b", {"--device", "cpu-1", "--modes", "timeslice,mps", "--procs", "1,2"}),
                  env_of("b"));
  EXPECT_EQ(b.exit_code, 0) << b.err;
  expect_all_ok("b", 4);
  EXPECT_EQ(count_lines_with(journal("b"), "daemon started"), 1) << "B must start a daemon of its own";
  EXPECT_EQ(count_lines_with(journal("b"), "daemon stopped"), 1);
  EXPECT_EQ(count_lines_with(journal("a"), "daemon stopped"), 0) << "B stopped A's daemon";
  EXPECT_EQ(count_lines_with(journal("a"), "cmd quit"), 0);

  open_gate();
  const auto ra = a.wait(60);
  EXPECT_EQ(ra.exit_code, 0) << ra.err;
  expect_all_ok("a", 2);
  EXPECT_EQ(count_lines_with(journal("a"), "daemon stopped"), 1);
  // Each sweep names its device; the daemons were told which one they serve.
  EXPECT_EQ(harness::read_meta(tmp / "a")["device"]["key"], "cpu-0");
  EXPECT_EQ(harness::read_meta(tmp / "b")["device"]["key"], "cpu-1");
  EXPECT_EQ(harness::read_meta(tmp / "b")["environment"]["CUDA_VISIBLE_DEVICES"], "cpu-1");
  EXPECT_EQ(
      count_lines_with(journal("b"), "pipe=" + (tmp / ("bench_mps-" + std::to_string(::getuid())) / "cpu-1").string()),
      1)
      << read_text(journal("b"));
}

TEST_F(Fleet, SecondSweepOfTheSameDeviceExitsThreeNamingTheFirst) {
  BackgroundProgram a(bench_mps_exe(), gated_sweep("a", {"--device", "cpu-0", "--modes", "mps", "--procs", "1"}),
                      env_of("a"));
  const Finish finish_a{*this, a};
  ASSERT_TRUE(wait_until([&] { return waiting("r1-mps-exec-n1"); }, 60)) << "sweep A never reached its MPS run";

  const auto b =
      run_program(bench_mps_exe(), cpu_sweep("b", {"--device", "cpu-0", "--modes", "timeslice,mps"}), env_of("b"));
  EXPECT_EQ(b.exit_code, 3) << b.err;
  EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.err;
  EXPECT_NE(b.err.find("device cpu-0 is being measured by bench_mps pid " + std::to_string(a.pid())), std::string::npos)
      << b.err;
  EXPECT_NE(b.err.find((tmp / "a").string()), std::string::npos) << "the first sweep's results folder: " << b.err;
  EXPECT_FALSE(fs::exists(tmp / "b"));
  EXPECT_FALSE(fs::exists(journal("b"))) << "the second sweep started a daemon";
  EXPECT_EQ(count_lines_with(journal("a"), "daemon stopped"), 0) << "the second sweep stopped the first one's daemon";

  open_gate();
  const auto ra = a.wait(60);
  EXPECT_EQ(ra.exit_code, 0) << ra.err;
  expect_all_ok("a", 1);
  // The lock goes with its holder: the device is free again.
  const auto again =
      run_program(bench_mps_exe(), cpu_sweep("c", {"--device", "cpu-0", "--modes", "timeslice"}), env_of("c"));
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

/// Every core a sweep's meta.json says it used (workers and harness).
std::set<int> cores_used(const nlohmann::json& meta) {
  std::set<int> used;
  for (const char* part : {"workers", "harness"})
    for (const auto& c : meta["cpus"][part]) used.insert(c.get<int>());
  return used;
}

TEST_F(Fleet, SweepsOfTwoDevicesStartedApartClaimDisjointCores) {
  // Two independent sweeps of two (pretend) devices, as two shells or Slurm jobs without cpusets would
  // start them: the second plans its cores around the first's claims, or says it shares them.
  BackgroundProgram a(bench_mps_exe(), gated_sweep("a", {"--device", "cpu-0", "--modes", "timeslice", "--procs", "1"}),
                      env_of("a"));
  const Finish finish_a{*this, a};
  ASSERT_TRUE(wait_until([&] { return waiting("r1-timeslice-exec-n1"); }, 60)) << "sweep A never started its run";
  const auto b = run_program(
      bench_mps_exe(), cpu_sweep("b", {"--device", "cpu-1", "--modes", "timeslice", "--procs", "1"}), env_of("b"));
  EXPECT_EQ(b.exit_code, 0) << b.err;
  open_gate();
  EXPECT_EQ(a.wait(60).exit_code, 0);
  const nlohmann::json ma = harness::read_meta(tmp / "a"), mb = harness::read_meta(tmp / "b");
  const std::set<int> used_a = cores_used(ma), used_b = cores_used(mb);
  ASSERT_FALSE(used_a.empty()) << ma["cpus"].dump();
  if (harness::allowed_cpus().size() >= 4) {
    for (int c : used_b)
      EXPECT_EQ(used_a.count(c), 0u) << "core " << c << " used by both: " << ma["cpus"].dump() << " "
                                     << mb["cpus"].dump();
    EXPECT_FALSE(mb["cpus"]["shared_with_other_sweeps"].get<bool>());
    EXPECT_NE(mb["cpus"]["claimed_by_others"].dump().find("pid " + std::to_string(a.pid())), std::string::npos)
        << mb["cpus"].dump();
  } else {  // too few cores for two: the second shares them, and says so on screen and in meta.json
    EXPECT_TRUE(mb["cpus"]["shared_with_other_sweeps"].get<bool>()) << mb["cpus"].dump();
    EXPECT_NE(b.err.find("share cores with theirs"), std::string::npos) << b.err;
    EXPECT_NE(b.err.find("pid " + std::to_string(a.pid())), std::string::npos) << b.err;
  }
  // A's claims went with it: a third sweep may take its cores again.
  const auto c = run_program(
      bench_mps_exe(), cpu_sweep("c", {"--device", "cpu-0", "--modes", "timeslice", "--procs", "1"}), env_of("c"));
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(harness::read_meta(tmp / "c")["cpus"]["claimed_by_others"].empty());
}

TEST_F(Fleet, MoreWorkersThanCoresWarnOnScreenAndInMeta) {
  const int n = static_cast<int>(harness::allowed_cpus().size()) + 1;
  const auto r = run_program(bench_mps_exe(), cpu_sweep("many", {"--modes", "timeslice", "--procs", std::to_string(n)}),
                             env_of("many"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("up to " + std::to_string(n) + " workers on"), std::string::npos) << r.err;
  EXPECT_TRUE(harness::read_meta(tmp / "many")["cpus"]["workers_share_cores"].get<bool>());
}

TEST_F(Fleet, WithoutDeviceTwoSweepsShareCudasDeviceZeroAndTheSecondExitsThree) {
  BackgroundProgram a(bench_mps_exe(), gated_sweep("a", {"--modes", "timeslice", "--procs", "1"}), env_of("a"));
  const Finish finish_a{*this, a};
  ASSERT_TRUE(wait_until([&] { return waiting("r1-timeslice-exec-n1"); }, 60));
  const auto b = run_program(bench_mps_exe(), cpu_sweep("b", {"--modes", "timeslice"}), env_of("b"));
  EXPECT_EQ(b.exit_code, 3) << b.err;
  EXPECT_NE(b.err.find("is being measured by bench_mps pid " + std::to_string(a.pid())), std::string::npos) << b.err;
  open_gate();
  EXPECT_EQ(a.wait(60).exit_code, 0);
}

TEST_F(Fleet, StaleDaemonOfAKilledSweepOnAnotherDeviceIsStoppedAndALiveOnesIsNot) {
  // C: alive inside its MPS block on cpu-2.
  BackgroundProgram c(bench_mps_exe(), gated_sweep("c", {"--device", "cpu-2", "--modes", "mps:50", "--procs", "1"}),
                      env_of("c"));
  const Finish finish_c{*this, c};
  ASSERT_TRUE(wait_until([&] { return waiting("r1-mps:50-exec-n1"); }, 60));
  // A: killed outright inside its MPS block on cpu-0: its daemon stays behind.
  {
    BackgroundProgram a(bench_mps_exe(), gated_sweep("a", {"--device", "cpu-0", "--modes", "mps", "--procs", "1"}),
                        env_of("a"));
    ASSERT_TRUE(wait_until([&] { return waiting("r1-mps-exec-n1"); }, 60));
    a.signal(SIGKILL);
    EXPECT_EQ(a.wait(10).exit_code, 128 + SIGKILL);
  }
  const std::vector<pid_t> stale = daemons_of("cpu-0"), live = daemons_of("cpu-2");
  ASSERT_EQ(stale.size(), 1u);
  ASSERT_EQ(live.size(), 1u);
  ASSERT_TRUE(harness::process_alive(stale[0])) << "SIGKILL cannot clean up: A's daemon must still be there";
  // B on cpu-1: stops A's stale daemon, leaves C's alone, and runs.
  const auto b =
      run_program(bench_mps_exe(), cpu_sweep("b", {"--device", "cpu-1", "--modes", "timeslice,mps"}), env_of("b"));
  EXPECT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.err.find("left behind by bench_mps pid"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("/cpu-0/session-"), std::string::npos) << b.err;
  EXPECT_EQ(b.err.find("/cpu-2/session-"), std::string::npos) << b.err;
  EXPECT_EQ(count_lines_with(journal("c"), "daemon stopped"), 0) << "B stopped a live sweep's daemon";
  EXPECT_TRUE(harness::process_alive(live[0])) << "B stopped a live sweep's daemon";
  EXPECT_TRUE(wait_until([&] { return !harness::process_alive(stale[0]); }, 5)) << "A's stale daemon is still there";
  open_gate();
  const auto rc = c.wait(60);
  EXPECT_EQ(rc.exit_code, 0) << rc.err;
  expect_all_ok("c", 1);
}

TEST_F(Fleet, ADaemonServingAnotherDeviceIsNotForeignOneServingThisDeviceIs) {
  const fs::path control = fakes_dir() / "nvidia-cuda-mps-control";
  auto start_daemon = [&](const std::string& name, const std::string& visible) {
    Env site = env_of(name);
    site.set.emplace_back("CUDA_MPS_PIPE_DIRECTORY", (tmp / (name + "-pipe")).string());
    site.set.emplace_back("CUDA_MPS_LOG_DIRECTORY", (tmp / (name + "-log")).string());
    site.set.emplace_back("CUDA_VISIBLE_DEVICES", visible);
    EXPECT_EQ(run_program(control, {"-d"}, site).exit_code, 0);
    return site;
  };
  auto stop_daemon = [&](const Env& site) {
    BackgroundProgram quit(fs::path("/bin/sh"), {"-c", "echo quit | '" + control.string() + "'"}, site);
    EXPECT_EQ(quit.wait(10).exit_code, 0);
  };
  const Env other = start_daemon("other", "cpu-1");
  const auto ok =
      run_program(bench_mps_exe(), cpu_sweep("a", {"--device", "cpu-0", "--modes", "timeslice,mps"}), env_of("a"));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  // A time-sliced exec run beside another device's daemon (a --gpus sibling's): proven time-sliced, not a mismatch.
  const auto exec =
      run_program(bench_mps_exe(),
                  {"--device", "cpu-0", "--workloads", "exec", "--command", "sleep 0.1", "--modes", "timeslice",
                   "--procs", "1", "--repeats", "1", "--settle", "0", "--out", (tmp / "exec").string()},
                  env_of("exec"));
  EXPECT_EQ(exec.exit_code, 0) << exec.err;
  EXPECT_NE(read_text(tmp / "exec" / "runs.csv").find("mps_proof=no_mps_server"), std::string::npos)
      << read_text(tmp / "exec" / "runs.csv");
  const Env same = start_daemon("same", "cpu-0");
  const auto refused =
      run_program(bench_mps_exe(), cpu_sweep("b", {"--device", "cpu-0", "--modes", "timeslice"}), env_of("b"));
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_NE(refused.err.find("another MPS daemon is running"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("CUDA_VISIBLE_DEVICES=cpu-0"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(tmp / "b"));
  stop_daemon(other);
  stop_daemon(same);
}

TEST_F(Fleet, GpusRunsOneChildSweepPerDeviceOnCoresOfItsOwnAndIndexesThem) {
  const fs::path out = tmp / "fleet";
  const auto r =
      run_program(bench_mps_exe(),
                  {"--gpus", "cpu-0,cpu-1", "--workloads", "cpu", "--cpu-task-us", "500", "--tasks", "5", "--settle",
                   "0", "--repeats", "2", "--procs", "1,2", "--modes", "timeslice,mps", "--out", out.string()},
                  env_of("fleet"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("results: " + out.string() + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("[cpu-0] bench_mps: 8 runs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[cpu-1] bench_mps: 8 runs"), std::string::npos) << r.err;
  const harness::GpusIndex index = harness::read_gpus_index(out);
  ASSERT_EQ(index.gpus.size(), 2u);
  EXPECT_EQ(index.status, "complete");
  const std::vector<int> allowed = harness::allowed_cpus();
  std::set<int> used;
  for (const auto& g : index.gpus) {
    EXPECT_EQ(g.exit_code, 0) << g.folder;
    EXPECT_EQ(g.status, "complete") << g.folder;
    expect_all_ok("fleet/" + g.folder, 8);
    EXPECT_FALSE(read_text(out / (g.folder + ".log")).empty()) << g.folder;
    const auto meta = harness::read_meta(out / g.folder);
    EXPECT_EQ(meta["device"]["key"], g.device);
    if (allowed.size() < 2) continue;
    // Each child keeps to its share of the cores: the shares are disjoint, and so are its workers' cores.
    const std::vector<int> share = harness::parse_cpu_list(g.cpus, "cpus");
    EXPECT_EQ(meta["device"]["cpus_given"], g.cpus);
    for (int c : share) EXPECT_TRUE(used.insert(c).second) << "core " << c << " given twice";
    for (const auto& w : harness::read_runs(out / g.folder / "runs.csv"))
      EXPECT_NE(std::find(share.begin(), share.end(), static_cast<int>(w.fact("cpu"))), share.end())
          << g.folder << " " << w.run_id << " ran on core " << w.fact("cpu");
  }
  EXPECT_EQ(index.gpus[0].folder, "cpu-0");
  EXPECT_EQ(index.gpus[1].folder, "cpu-1");
  EXPECT_EQ(count_lines_with(journal("fleet"), "daemon started"), 2 * 2) << "one daemon per child and MPS block";
  EXPECT_EQ(count_lines_with(journal("fleet"), "daemon stopped"), 2 * 2);
  EXPECT_NE(read_text(out / "index.md").find("[cpu-1](cpu-1/)"), std::string::npos);

  const auto rep = run_program(bench_mps_exe(), {"report", out.string()}, env_of("report"));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const std::string md = read_text(out / "report.md");
  EXPECT_NE(md.find("# Fleet report: fleet"), std::string::npos) << md;
  EXPECT_NE(md.find("2 results folders"), std::string::npos) << md;
  EXPECT_NE(md.find("| cpu-0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| cpu-1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("### cpu (task_us=500), MPS, N=2"), std::string::npos) << md;
}

TEST_F(Fleet, GpusPassesCtrlCToEveryChildAndRecordsItInTheIndex) {
  const fs::path out = tmp / "fleet";
  std::vector<std::string> args = gated_sweep("fleet", {"--gpus", "cpu-0,cpu-1", "--modes", "mps", "--procs", "1"});
  BackgroundProgram parent(bench_mps_exe(), args, env_of("fleet"));
  const Finish finish{*this, parent};
  ASSERT_TRUE(wait_until([&] { return count_lines_with(journal("fleet"), "daemon started") == 2; }, 60));
  ASSERT_TRUE(wait_until([&] { return waiting("r1-mps-exec-n1"); }, 60));
  parent.signal(SIGINT);
  const auto r = parent.wait(60);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  const harness::GpusIndex index = harness::read_gpus_index(out);
  EXPECT_EQ(index.status, "interrupted");
  for (const auto& g : index.gpus) {
    EXPECT_EQ(g.exit_code, 128 + SIGINT) << g.folder << ": " << g.status;
    EXPECT_EQ(g.status, "interrupted") << g.folder;
  }
  EXPECT_EQ(count_lines_with(journal("fleet"), "daemon stopped"), 2) << "each child quits its daemon";
  // Each GPU's folder resumed on its own: the index follows it (it kept "interrupted" for a finished sweep).
  open_gate();
  for (std::size_t i = 0; i < index.gpus.size(); ++i) {
    const auto resumed =
        run_program(bench_mps_exe(), {"--resume", (out / index.gpus[i].folder).string()}, env_of("fleet"), 120);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.err.find(index.gpus[i].folder + " now says exit 0, complete; the run: " +
                               (i + 1 == index.gpus.size() ? "complete" : "failed")),
              std::string::npos)
        << resumed.err;
  }
  const harness::GpusIndex after = harness::read_gpus_index(out);
  EXPECT_EQ(after.status, "complete");
  for (const auto& g : after.gpus) EXPECT_EQ(g.status, "complete") << g.folder;
}

TEST_F(Fleet, GpusRecordsAChildKilledWhileRunningAsDiedNotAsRunning) {
  // A child sweep killed outright (SIGKILL, the OOM killer) leaves "running" in its meta.json: the index says it died.
  const fs::path out = tmp / "fleet";
  BackgroundProgram parent(bench_mps_exe(),
                           gated_sweep("fleet", {"--gpus", "cpu-0,cpu-1", "--modes", "timeslice", "--procs", "1"}),
                           env_of("fleet"));
  const Finish finish{*this, parent};
  const auto cmdline = [](pid_t pid) {
    std::string text = read_text("/proc/" + std::to_string(pid) + "/cmdline");
    std::replace(text.begin(), text.end(), '\0', ' ');
    return text;
  };
  pid_t child = 0;
  ASSERT_TRUE(wait_until(
      [&] {
        for (const harness::ProcInfo& p : harness::live_descendants(parent.pid()))
          if (harness::parent_pid(p.pid) == parent.pid() &&
              cmdline(p.pid).find("--device cpu-0 ") != std::string::npos && fs::exists(out / "cpu-0" / "meta.json"))
            child = p.pid;
        return child > 0 && waiting("r1-timeslice-exec-n1");
      },
      60));
  ::kill(child, SIGKILL);
  open_gate();
  const auto r = parent.wait(60);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.exit_code, 0) << r.err;
  const harness::GpusIndex index = harness::read_gpus_index(out);
  ASSERT_EQ(index.gpus.size(), 2u);
  EXPECT_EQ(index.gpus[0].exit_code, 128 + SIGKILL);
  EXPECT_EQ(index.gpus[0].status.rfind("died while running (exit 137, SIGKILL)", 0), 0u) << index.gpus[0].status;
  EXPECT_EQ(index.gpus[1].status, "complete");
  EXPECT_EQ(read_text(out / "index.md").find("| running |"), std::string::npos) << read_text(out / "index.md");
  // What the killed child could not stop (its daemon, its MPS folder) goes here, as the next sweep would stop it.
  for (const harness::ProcInfo& p : harness::live_mps_processes()) {
    const auto pipe = harness::process_env(p.pid, "CUDA_MPS_PIPE_DIRECTORY");
    if (pipe && pipe->find("/cpu-0/") != std::string::npos) ::kill(p.pid, SIGKILL);
  }
  std::error_code ec;
  fs::remove_all(tmp / ("bench_mps-" + std::to_string(::getuid())) / "cpu-0", ec);
}

TEST_F(Fleet, GpusKeepEveryChildToTheCpusGivenPinnedOrNot) {
  // --cpus with one core for two sweeps: no share each (unpinned, or pinned with fewer cores than sweeps), but every
  // child keeps to the cores given, as one sweep does.
  const std::string core = std::to_string(harness::allowed_cpus().back());
  for (const std::vector<std::string>& placement : {std::vector<std::string>{"--no-pin"}, std::vector<std::string>{}}) {
    const std::string name = placement.empty() ? "pinned" : "unpinned";
    const fs::path out = tmp / name;
    std::vector<std::string> args{"--gpus", "cpu-0,cpu-1", "--cpus", core, "--procs", "1", "--modes", "timeslice"};
    args.insert(args.end(), placement.begin(), placement.end());
    const auto r = run_program(bench_mps_exe(), cpu_sweep(name, args), env_of(name));
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const harness::GpusIndex index = harness::read_gpus_index(out);
    ASSERT_EQ(index.gpus.size(), 2u);
    for (const auto& g : index.gpus) {
      EXPECT_EQ(g.cpus, core) << name << " " << g.folder;
      EXPECT_EQ(harness::read_meta(out / g.folder)["device"]["cpus_given"], core) << name << " " << g.folder;
      for (const auto& w : harness::read_runs(out / g.folder / "runs.csv"))
        EXPECT_EQ(std::to_string(static_cast<int>(w.fact("cpu"))), core) << name << " " << g.folder << " " << w.run_id;
    }
  }
}

TEST_F(Fleet, GpusThatNameOneDeviceTwiceOrAreResumedAreRefused) {
  auto r = run_program(bench_mps_exe(), cpu_sweep("x", {"--gpus", "cpu-0,cpu-0"}), env_of("x"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_program(bench_mps_exe(), {"--gpus", "cpu-0", "--resume", (tmp / "x").string()}, env_of("x"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "x"));
  // A --gpus folder resumed whole: each GPU's sweep is resumed on its own, and the refusal says how.
  ASSERT_EQ(run_program(bench_mps_exe(), cpu_sweep("y", {"--gpus", "cpu-0", "--procs", "1", "--modes", "timeslice"}),
                        env_of("y"))
                .exit_code,
            0);
  r = run_program(bench_mps_exe(), {"--resume", (tmp / "y").string()}, env_of("y"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("holds one sweep per GPU (--gpus): resume each GPU's folder on its own: " +
                       (tmp / "y" / "cpu-0").string() + " (complete)"),
            std::string::npos)
      << r.err;  // the folders its index lists, not a pattern the user must fill in
}

/// A daemon the site runs, as Slurm's prolog or the device plugin would: the fake, in its own folders.
class ExternalMps : public Fleet {
 protected:
  void SetUp() override {
    Fleet::SetUp();
    if (HasFatalFailure()) return;
    site = env_of("site");
    site.set.emplace_back("CUDA_MPS_PIPE_DIRECTORY", (tmp / "site-pipe").string());
    site.set.emplace_back("CUDA_MPS_LOG_DIRECTORY", (tmp / "site-log").string());
    ASSERT_EQ(run_program(control(), {"-d"}, site).exit_code, 0);
  }
  void TearDown() override {
    if (!site.set.empty()) {
      BackgroundProgram quit(fs::path("/bin/sh"), {"-c", "echo quit | '" + control().string() + "'"}, site);
      EXPECT_EQ(quit.wait(10).exit_code, 0);
    }
    Fleet::TearDown();
  }
  static fs::path control() { return fakes_dir() / "nvidia-cuda-mps-control"; }
  /// A client of the site's daemon: its environment as the scheduler left it.
  Env client(std::vector<std::pair<std::string, std::string>> extra = {}) const {
    Env e = site;
    e.set.insert(e.set.end(), extra.begin(), extra.end());
    return e;
  }
  Env site;
};

TEST_F(ExternalMps, MeasuresAsClientsOfTheSitesDaemonWithTheSlurmPercentageAndLeavesItRunning) {
  const auto r = run_program(bench_mps_exe(), cpu_sweep("ext", {"--external-mps", "--procs", "1,2"}),
                             client({{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "50"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = rows("ext");
  ASSERT_EQ(summary.size(), 2u);
  for (const auto& row : summary) {
    EXPECT_EQ(row.status, "ok") << row.reason;
    EXPECT_EQ(row.mode, "external-mps");
    EXPECT_EQ(row.active_thread_pct, 50);
  }
  for (const auto& w : harness::read_runs(tmp / "ext" / "runs.csv")) EXPECT_TRUE(w.mps_enabled) << w.run_id;
  // Nothing of the site's daemon was changed: started once (by the test), never quit, no percentage set.
  EXPECT_EQ(count_lines_with(journal("site"), "start -d"), 1);
  EXPECT_EQ(count_lines_with(journal("site"), "cmd quit"), 0);
  EXPECT_EQ(count_lines_with(journal("site"), "set_default"), 0);
  EXPECT_GT(count_lines_with(journal("site"), "cmd get_server_list"), 0) << "the sweep checks the server it used";
  EXPECT_GT(live_mps_process_count(), 0) << "the site's daemon was stopped";
  const auto meta = harness::read_meta(tmp / "ext");
  EXPECT_EQ(meta["mps"]["external"]["pipe_directory"], (tmp / "site-pipe").string());
  EXPECT_EQ(meta["mps"]["external"]["active_thread_pct_source"], "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50");
  EXPECT_EQ(meta["mps"]["external"]["variables"]["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"], "50");
  EXPECT_EQ(meta["mps"]["modes"][0]["active_thread_pct"], 50);

  const auto rep = run_program(bench_mps_exe(), {"report", (tmp / "ext").string()}, site);
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const std::string md = read_text(tmp / "ext" / "report.md");
  EXPECT_NE(md.find("external MPS"), std::string::npos) << md;
  EXPECT_NE(md.find("no time-sliced baseline was measured"), std::string::npos) << md;
  // No time-sliced number is claimed: every ratio on a time-sliced basis is left empty.
  int external_rows = 0;
  const auto table_at = md.find("## Per workload, mode and N");
  ASSERT_NE(table_at, std::string::npos) << md;
  std::istringstream lines(md.substr(table_at, md.find("\n## ", table_at + 1) - table_at));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| cpu | external-mps |", 0) != 0) continue;
    ++external_rows;
    EXPECT_EQ(line.substr(line.size() - 5), "| - |") << line;
  }
  EXPECT_EQ(external_rows, 2) << md;
}

TEST_F(ExternalMps, WithoutTheVariableTheDaemonsDefaultPercentageIsRecorded) {
  BackgroundProgram set(fs::path("/bin/sh"),
                        {"-c", "echo set_default_active_thread_percentage 25 | '" + control().string() + "'"}, site);
  ASSERT_EQ(set.wait(10).exit_code, 0);
  const auto r = run_program(bench_mps_exe(), cpu_sweep("ext", {"--external-mps", "--procs", "1"}), client());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(rows("ext").size(), 1u);
  EXPECT_EQ(rows("ext")[0].active_thread_pct, 25);
  EXPECT_EQ(harness::read_meta(tmp / "ext")["mps"]["external"]["active_thread_pct_source"],
            "the daemon's default (25)");
}

TEST_F(ExternalMps, AskingForMoreThreadsThanTheSiteGivesIsRefused) {
  const auto r = run_program(bench_mps_exe(), cpu_sweep("ext", {"--external-mps", "--modes", "mps:75"}),
                             client({{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "50"}}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--modes mps:75: more than the 50%"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "ext"));
}

TEST_F(ExternalMps, NoDaemonAnsweringIsExitThree) {
  for (const std::string& pipe : {(tmp / "no-such-pipe").string(), (tmp / "gate").string()}) {
    const auto r =
        run_program(bench_mps_exe(), cpu_sweep("ext", {"--external-mps"}), client({{"CUDA_MPS_PIPE_DIRECTORY", pipe}}));
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("no MPS daemon"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(pipe), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(tmp / "ext"));
  }
  const auto garbage = run_program(bench_mps_exe(), cpu_sweep("ext", {"--external-mps"}),
                                   client({{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "lots"}}));
  EXPECT_EQ(garbage.exit_code, 3) << garbage.err;
  EXPECT_NE(garbage.err.find("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE='lots'"), std::string::npos) << garbage.err;
}

// --- the fleet report, over folders made from the compare fixtures (their numbers are synthesized) ---

fs::path make_fleet(const TempDir& tmp) {
  const fs::path fleet = tmp / "results" / "cluster-a";
  const std::map<std::string, std::string> nodes{
      {"node1-gpu0", "base"}, {"node2-gpu0", "aa"}, {"node3-gpu0", "slower"}, {"node4-gpu0", "bad_cell"}};
  for (const auto& [node, fixture] : nodes) {
    fs::create_directories(fleet / node);
    fs::copy(fixtures_dir() / "compare" / fixture, fleet / node, fs::copy_options::recursive);
  }
  return tmp / "results";
}

// An outlier is a verdict with its interval: a GPU whose repeats spread across the threshold is "unsure", not
// flagged (a review found one flagged 1.1 % off the fleet median with a 2.3 % spread of its own).
TEST(FleetReport, AGpuBeyondTheThresholdOnlyByItsNoiseIsUnsureNotAnOutlier) {
  using namespace harness;
  const auto member = [](const std::string& label, std::vector<double> throughputs) {
    FleetMember m;
    m.label = label;
    for (std::size_t i = 0; i < throughputs.size(); ++i) {
      SummaryRecord r;
      r.run_id = "r" + std::to_string(i + 1) + "-mps-spin-n4";
      r.repeat = static_cast<int>(i + 1);
      r.workload = "spin";
      r.mode = "mps";
      r.procs = 4;
      r.status = RunStatus::ok;
      r.throughput_tasks_per_s = throughputs[i];
      m.runs.push_back(r);
    }
    return m;
  };
  FleetFolder fleet;
  fleet.members = {member("a", {100, 100.2, 99.8}), member("b", {100.1, 99.9, 100}), member("c", {100, 99.9, 100.1}),
                   member("noisy", {96, 99, 102.5, 97.5}),  // mean 98.75: 1.25 % under the fleet's 100, spread 6.6 %
                   member("slow", {90, 90.2, 89.8})};
  const std::vector<FleetConfig> configs = judge_fleet(fleet, CompareOptions{});
  ASSERT_EQ(configs.size(), 1u);
  const std::vector<FleetCell>& cells = configs[0].cells;
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_DOUBLE_EQ(configs[0].fleet_median, 100);
  EXPECT_FALSE(cells[0].outlier || cells[0].unsure);
  EXPECT_FALSE(cells[3].outlier);
  EXPECT_TRUE(cells[3].unsure);
  EXPECT_LT(cells[3].vs_fleet.lo, 0.99);
  EXPECT_GT(cells[3].vs_fleet.hi, 1.0);
  EXPECT_TRUE(cells[4].outlier);
  EXPECT_LT(cells[4].vs_fleet.hi, 0.91);
  const std::string md = render_fleet_report(fleet, configs, CompareOptions{}, "t");
  EXPECT_NE(md.find("unsure (slower?)"), std::string::npos) << md;
  const std::size_t first = md.find("**outlier (slower)**");
  ASSERT_NE(first, std::string::npos) << md;
  EXPECT_EQ(md.find("**outlier (", first + 1), std::string::npos) << "one outlier: " << md;
  // Without the outlier, the unsure GPU is not said to be within the threshold (a review found "None: every GPU is
  // within 1%" above a row 30 % off, unsure).
  FleetFolder calm = fleet;
  calm.members.pop_back();
  const std::string calm_md = render_fleet_report(calm, judge_fleet(calm, CompareOptions{}), CompareOptions{}, "t");
  EXPECT_EQ(calm_md.find("None: every GPU is within"), std::string::npos) << calm_md;
  EXPECT_NE(calm_md.find("None flagged, and not every GPU is within 1%: 1 cell lies beyond it by the point alone"),
            std::string::npos)
      << calm_md;
  // Two repeats far apart: Student's t reaches below 0, which no throughput is; the interval stops at 0 (a review
  // found "0.43x (-0.78-1.65)").
  fleet.members.push_back(member("wild", {10, 76}));
  const std::vector<FleetConfig> wild = judge_fleet(fleet, CompareOptions{});
  EXPECT_DOUBLE_EQ(wild[0].cells.back().vs_fleet.lo, 0) << wild[0].cells.back().vs_fleet.ratio;
  EXPECT_GT(wild[0].cells.back().vs_fleet.hi, 1);
}

TEST(FleetReport, FlagsTheGpuSlowerThanTheFleetAndListsTheFolderItCannotRead) {
  TempDir tmp;
  const fs::path dir = make_fleet(tmp);
  const auto r = run_program(bench_mps_exe(), {"report", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 results folders, 12 configurations, 1 outlier(s), 1 unreadable"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("cluster-a/node4-gpu0 could not be read"), std::string::npos) << r.err;
  const std::string md = read_text(dir / "report.md");
  // `slower` has spin under MPS at N=4 10% slower than base; `aa` drifts 1%: within the threshold.
  const std::string outliers = md.substr(md.find("## Outliers"), md.find("## GPUs") - md.find("## Outliers"));
  EXPECT_NE(outliers.find("| cluster-a/node3-gpu0 | vm, GPU-67e8096b (driver 590.48.01) | spin "
                          "(blocks=4;threads=256;launch_us=100;launches=100), MPS, N=4 |"),
            std::string::npos)
      << outliers;
  EXPECT_EQ(std::count(outliers.begin(), outliers.end(), '\n'), 2 + 2 + 1 + 1) << "one outlier row only: " << outliers;
  EXPECT_NE(outliers.find("slower"), std::string::npos);
  EXPECT_NE(md.find("| cluster-a/node4-gpu0 | "), std::string::npos) << "the unreadable folder is listed: " << md;
  EXPECT_NE(md.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(md.find("580.159.04"), std::string::npos);
  EXPECT_NE(md.find("590.48.01"), std::string::npos) << "node3's driver";

  // A threshold above the 10% finds none; p99 latencies are judged too.
  const auto wide = run_program(bench_mps_exe(), {"report", dir.string(), "--threshold", "15"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_NE(wide.out.find(", 0 outlier(s)"), std::string::npos) << wide.out;
  EXPECT_NE(read_text(dir / "report.md")
                .find("None: every GPU is within 15% of the fleet median in every "
                      "configuration measured on two GPUs or more (12 of 12)"),
            std::string::npos);
  // A member reached twice through a link is read once and said (a review found a linked copy move the median
  // and take the outliers from 1 to 0).
  fs::create_directory_symlink("node3-gpu0", dir / "cluster-a" / "node0-gpu0");  // sorts first: still the link's
  const auto linked = run_program(bench_mps_exe(), {"report", dir.string()});
  ASSERT_EQ(linked.exit_code, 0) << linked.err;
  EXPECT_NE(linked.out.find(", 1 outlier(s), 2 unreadable"), std::string::npos) << linked.out;
  EXPECT_NE(read_text(dir / "report.md")
                .find("not read again: the same folder as cluster-a/node3-gpu0 (through a link), which would count "
                      "its GPU twice"),
            std::string::npos)
      << read_text(dir / "report.md");
  fs::remove(dir / "cluster-a" / "node0-gpu0");
  // One GPU alone has no fleet to be within: not judged, not "None" (REPORT.md: "nothing is judged").
  TempDir one;
  fs::create_directories(one / "fleet" / "node1-gpu0");
  fs::copy(fixtures_dir() / "compare" / "base", one / "fleet" / "node1-gpu0", fs::copy_options::recursive);
  ASSERT_EQ(run_program(bench_mps_exe(), {"report", (one / "fleet").string()}).exit_code, 0);
  const std::string alone = read_text(one / "fleet" / "report.md");
  EXPECT_NE(alone.find("Not judged: no configuration was measured on two GPUs or more"), std::string::npos) << alone;
  EXPECT_EQ(alone.find("None: every GPU"), std::string::npos) << alone;
  const auto p99 = run_program(bench_mps_exe(), {"report", dir.string(), "--metric", "p99"});
  ASSERT_EQ(p99.exit_code, 0) << p99.err;
  EXPECT_NE(read_text(dir / "report.md").find("p99 ms"), std::string::npos);
}

TEST(FleetReport, FoldersOfMixedGpuModelsAreWarnedAbout) {
  TempDir tmp;
  const fs::path dir = make_fleet(tmp);
  const auto same = run_program(bench_mps_exe(), {"report", dir.string()});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.err.find("mix GPU models"), std::string::npos) << same.err;
  // One node's GPU becomes another model: its differences may be just that, and the report says so.
  const fs::path meta = dir / "cluster-a" / "node2-gpu0" / "meta.json";
  nlohmann::json m = nlohmann::json::parse(read_text(meta));
  m["gpu"]["name"] = "NVIDIA H100 80GB HBM3";
  write_text(meta, m.dump(2));
  const auto mixed = run_program(bench_mps_exe(), {"report", dir.string()});
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_NE(mixed.err.find("warning: these folders mix GPU models (NVIDIA H100 80GB HBM3 x1, NVIDIA H200 x2)"),
            std::string::npos)
      << mixed.err;
  EXPECT_NE(read_text(dir / "report.md").find("**Warning:** these folders mix GPU models"), std::string::npos);
}

// Two folders of one GPU (the same UUID) are not two GPUs: the report counts GPUs by UUID and warns that a folder
// of it flagged beside the other is that GPU's spread between runs.
TEST(FleetReport, FoldersOfOneGpuAreCountedOnceAndWarnedAbout) {
  TempDir tmp;
  const fs::path dir = make_fleet(tmp);
  const auto set_uuid = [&](const std::string& node, const std::string& uuid) {
    const fs::path meta = dir / "cluster-a" / node / "meta.json";
    nlohmann::json m = nlohmann::json::parse(read_text(meta));
    m["gpu"]["uuid"] = uuid;
    write_text(meta, m.dump(2));
  };
  set_uuid("node1-gpu0", "GPU-1");
  set_uuid("node2-gpu0", "GPU-2");
  set_uuid("node3-gpu0", "GPU-3");
  const auto apart = run_program(bench_mps_exe(), {"report", dir.string()});
  ASSERT_EQ(apart.exit_code, 0) << apart.err;
  EXPECT_EQ(apart.err.find("measured the same device"), std::string::npos) << apart.err;
  EXPECT_NE(read_text(dir / "report.md").find("\n3 results folders of 3 GPU(s) by UUID, from "), std::string::npos)
      << read_text(dir / "report.md");
  set_uuid("node3-gpu0", "GPU-1");
  const auto same = run_program(bench_mps_exe(), {"report", dir.string()});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.err.find("warning: some folders measured the same device: GPU-1 in 2 folders (cluster-a/node1-gpu0, "
                          "cluster-a/node3-gpu0): "),
            std::string::npos)
      << same.err;
  const std::string md = read_text(dir / "report.md");
  EXPECT_NE(md.find("\n3 results folders of 2 GPU(s) by UUID, from "), std::string::npos) << md;
  EXPECT_NE(md.find("**Warning:** some folders measured the same device: GPU-1 in 2 folders"), std::string::npos) << md;
  // Folders that record no GPU at all (CPU stand-ins) are one host's CPU: counted apart from the GPUs, by the rule
  // the warning groups them by.
  for (const std::string node : {"node1-gpu0", "node3-gpu0"}) {
    const fs::path meta = dir / "cluster-a" / node / "meta.json";
    nlohmann::json m = nlohmann::json::parse(read_text(meta));
    m["gpu"] = nullptr;
    m.erase("device");
    write_text(meta, m.dump(2));
  }
  const auto cpu = run_program(bench_mps_exe(), {"report", dir.string()});
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_NE(cpu.err.find("measured the same device: no GPU recorded in 2 folders (cluster-a/node1-gpu0, "
                         "cluster-a/node3-gpu0)"),
            std::string::npos)
      << cpu.err;
  const std::string cpu_md = read_text(dir / "report.md");
  EXPECT_NE(cpu_md.find("\n3 results folders of 1 GPU(s) by UUID and 1 CPU stand-in device(s), from "),
            std::string::npos)
      << cpu_md;
}

TEST(FleetReport, NoResultsBelowIsExitTwoAndFleetOptionsNeedAFleet) {
  TempDir tmp;
  fs::create_directories(tmp / "empty" / "sub");
  auto r = run_program(bench_mps_exe(), {"report", (tmp / "empty").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("holds no results folder"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "empty" / "report.md"));
  fs::copy(fixtures_dir() / "compare" / "base", tmp / "one");
  r = run_program(bench_mps_exe(), {"report", (tmp / "one").string(), "--threshold", "10"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("only the fleet report"), std::string::npos) << r.err;
}

TEST(FleetReport, AGpusIndexNamesTheChildThatLeftNoResults) {
  TempDir tmp;
  const fs::path dir = tmp / "gpus";
  fs::create_directories(dir);
  fs::copy(fixtures_dir() / "compare" / "base", dir / "0-h200", fs::copy_options::recursive);
  harness::GpusIndex index;
  index.status = "failed";
  index.gpus.push_back({"0-h200", "GPU-a", "NVIDIA H200", "GPU-a", 0, "0-3", 0, "complete"});
  index.gpus.push_back({"1-h200", "GPU-b", "NVIDIA H200", "GPU-b", 1, "4-7", 3,
                        "no results (exit 3): bench_mps: GPU 1 is being measured by bench_mps pid 7"});
  harness::write_gpus_index(dir, index);
  const auto r = run_program(bench_mps_exe(), {"report", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string md = read_text(dir / "report.md");
  EXPECT_NE(
      md.find(
          "| 1-h200 | no results; index.json says: exit 3, no results (exit 3): bench_mps: GPU 1 is being measured"),
      std::string::npos)
      << md;
}

// --- the pieces, without processes ---

TEST(DeviceOptions, CpuListsDeviceNamesAndSplits) {
  using namespace harness;
  EXPECT_EQ(parse_cpu_list("0-3,8, 10-11", "--cpus"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({5}), "5");
  EXPECT_THROW(parse_cpu_list("3-1", "--cpus"), UsageError);
  EXPECT_THROW(parse_cpu_list("1,0-2", "--cpus"), UsageError);
  EXPECT_THROW(parse_cpu_list("-1", "--cpus"), UsageError);
  std::string why;
  for (const char* ok : {"0", "17", "GPU-8d3f1a2b", "GPU-8d3f1a2b-0c1d-2e3f-4a5b-6c7d8e9f0a1b", "cpu-0", "cpu-12"})
    EXPECT_TRUE(is_device_id(ok, why)) << ok;
  for (const char* bad : {"", "-1", "nan", "inf", "gpu0", "GPU-", "GPU-xyz", "cpu-", "cpu-x", "a/b", "99999", "MIG-1"})
    EXPECT_FALSE(is_device_id(bad, why)) << bad;
  EXPECT_EQ(split_cpus({0, 1, 2, 3, 4, 5, 6}, 3), (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4}, {5, 6}}));
  EXPECT_EQ(split_cpus({4, 9}, 2), (std::vector<std::vector<int>>{{4}, {9}}));
  EXPECT_TRUE(split_cpus({0}, 2).empty());
  EXPECT_EQ(without_options({"--gpus", "all", "--procs", "1", "--out=x", "--cpus", "0-3", "--device", "1"},
                            {"--gpus", "--out", "--cpus", "--device"}),
            (std::vector<std::string>{"--procs", "1"}));
  EXPECT_EQ(parse_active_thread_pct("50"), 50);
  EXPECT_EQ(parse_active_thread_pct("100.0"), 100);
  EXPECT_EQ(parse_active_thread_pct(" 25 "), 25);
  for (const char* bad : {"", "0", "101", "33.3", "nan", "inf", "-5", "lots"})
    EXPECT_EQ(parse_active_thread_pct(bad), -1) << bad;
}

TEST(DeviceOptions, ResolvesIndicesAndUuidsAmongTheVisibleGpus) {
  using namespace harness;
  const std::vector<GpuIdentity> visible{{2, "GPU-aaaa1111", "NVIDIA H200"}, {3, "GPU-bbbb2222", "NVIDIA H200"}};
  const DeviceChoice one = resolve_device("1", true, visible, 4);  // index 1 of the visible ones: driver's 3
  EXPECT_EQ(one.id.key, "GPU-bbbb2222");
  EXPECT_EQ(one.id.index, 3);
  EXPECT_EQ(device_folder_name(one), "3-h200");
  EXPECT_EQ(resolve_device("GPU-aaaa", true, visible, 4).id.index, 2);
  EXPECT_THROW(resolve_device("2", true, visible, 4), UsageError);
  EXPECT_THROW(resolve_device("GPU-cccc", true, visible, 4), UsageError);
  EXPECT_THROW(resolve_device("cpu-0", true, visible, 4), UsageError);
  EXPECT_EQ(resolve_device("cpu-0", false, visible, 4).id.key, "cpu-0");
  EXPECT_EQ(resolve_device("1", false, {}, 0).id.key, "1");  // no GPU, none needed: the name is the key
}

TEST(DeviceOptions, ADaemonServesTheGpusItsVisibleDevicesName) {
  using harness::daemon_serves;
  const harness::MeasuredDevice gpu{"GPU-aaaa1111", "GPU-aaaa1111", 2, 4};
  const std::optional<std::string> pci = std::string("PCI_BUS_ID"), unset;
  EXPECT_TRUE(daemon_serves(unset, unset, gpu)) << "no CUDA_VISIBLE_DEVICES: every GPU";
  EXPECT_TRUE(daemon_serves(std::string("GPU-aaaa"), unset, gpu));
  EXPECT_FALSE(daemon_serves(std::string("GPU-bbbb2222"), unset, gpu));
  EXPECT_TRUE(daemon_serves(std::string("2"), pci, gpu));
  EXPECT_FALSE(daemon_serves(std::string("1,3"), pci, gpu));
  EXPECT_TRUE(daemon_serves(std::string("1"), unset, gpu)) << "fastest-first order on 4 GPUs: index 1 may be ours";
  EXPECT_TRUE(daemon_serves(std::string("MIG-1234"), pci, gpu));
  EXPECT_FALSE(daemon_serves(std::string(""), unset, gpu)) << "an empty list hides every GPU";
  const harness::MeasuredDevice pretend{"cpu-0", "", -1, 1};
  EXPECT_TRUE(daemon_serves(std::string("cpu-0"), unset, pretend));
  EXPECT_FALSE(daemon_serves(std::string("cpu-1"), unset, pretend));
  EXPECT_FALSE(daemon_serves(std::string("GPU-aaaa1111"), unset, pretend));
  // A device's private folder: short (an MPS pipe folder's sockets must fit in 108 bytes), from the UUID.
  EXPECT_EQ(harness::device_dir_name(
                {"GPU-8d3f1a2b-0c1d-2e3f-4a5b-6c7d8e9f0a1b", "GPU-8d3f1a2b-0c1d-2e3f-4a5b-6c7d8e9f0a1b", 0, 2}),
            "gpu-8d3f1a2b0c1d");
  EXPECT_EQ(harness::device_dir_name(pretend), "cpu-0");
}

}  // namespace
}  // namespace bench_mps::testing
