#pragma once
// The fixture of the end-to-end tests: a private TMPDIR (so its MPS folders are its own), the fake
// nvidia-cuda-mps-control on PATH with its journal, bench_mps run as a real process on the CPU-only
// workload, and the checks every such test ends with (no daemon, no private folder, no worker left).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "harness/common/proc_scan.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {

using harness::read_summary;

class Orchestration : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(live_mps_process_count(), 0) << "an MPS daemon is already running on this machine";
    env = fake_mps_env(journal());
    env.set.emplace_back("TMPDIR", tmp.path().string());
    env.set.emplace_back("BENCH_MPS_CPU_HANG_MARK", hang_mark().string());
  }
  void TearDown() override {
    EXPECT_EQ(live_mps_process_count(), 0) << "a daemon was left behind";
    EXPECT_FALSE(wait_until([&] { return has_session_dirs(); }, 0)) << "a private MPS folder was left behind";
  }

  fs::path journal() const { return tmp / "journal.log"; }
  fs::path out() const { return tmp / "out"; }
  std::vector<std::string> journal_lines() const { return read_lines(journal()); }
  int journal_count(const std::string& what) const {
    const auto lines = journal_lines();
    return static_cast<int>(std::count_if(lines.begin(), lines.end(),
                                          [&](const std::string& l) { return l.find(what) != std::string::npos; }));
  }
  bool has_session_dirs() const {  // under bench_mps-<uid>/ or a device's folder in it (<uuid>/, cpu-0/)
    std::error_code ec;
    const fs::path base = tmp / ("bench_mps-" + std::to_string(::getuid()));
    if (!fs::is_directory(base, ec)) return false;
    for (auto it = fs::recursive_directory_iterator(base, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->path().filename().string().rfind("session-", 0) == 0) return true;
    return false;
  }

  /// The cpu workload, 10 tasks of 0.5 ms, one repeat, unless `extra` says otherwise (--duration
  /// replaces the task count; --workloads, and --scenario interference, xray and regimes name their own).
  std::vector<std::string> args(std::vector<std::string> extra) const {
    auto has = [&extra](const char* flag) { return std::find(extra.begin(), extra.end(), flag) != extra.end(); };
    // Scenarios that name their own workloads: interference (--foreground/--background), xray, regimes.
    const bool own_workloads = has("interference") || has("xray") || has("regimes") || has("--workloads");
    std::vector<std::string> a{"--cpu-task-us", "500", "--settle", "0", "--out", out().string()};
    if (!own_workloads) a.insert(a.end(), {"--workloads", "cpu"});
    if (!has("--duration")) a.insert(a.end(), {"--tasks", "10"});
    if (std::find(extra.begin(), extra.end(), "--repeats") == extra.end()) a.insert(a.end(), {"--repeats", "1"});
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  CommandOutput sweep(std::vector<std::string> extra, const Env& extra_env = {}) {
    Env e = env;
    e.set.insert(e.set.end(), extra_env.set.begin(), extra_env.set.end());
    return run_program(bench_mps_exe(), args(std::move(extra)), e, 120);
  }
  std::map<std::string, harness::SummaryRecord> summary_by_id() const {
    std::map<std::string, harness::SummaryRecord> rows;
    for (const auto& r : read_summary(out() / "summary.csv")) rows[r.run_id] = r;
    return rows;
  }
  void expect_worker_processes_gone() const {
    for (const auto& w : harness::read_runs(out() / "runs.csv")) {
      if (w.pid) {
        EXPECT_FALSE(harness::process_alive(static_cast<pid_t>(w.pid))) << "worker " << w.pid << " still runs";
      }
    }
  }

  TempDir tmp;
  /// Created by a cpu worker when it reaches an injected hang (cpu_workload.cpp).
  fs::path hang_mark() const { return tmp / "hanging"; }

  Env env;
};

}  // namespace bench_mps::testing
