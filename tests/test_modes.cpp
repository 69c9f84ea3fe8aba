// End to end, with the CPU-only worker and the fake MPS daemon: worker sets that run several rounds,
// the in-process modes (one process, N instances), MPS provisioning per client (percentages,
// priorities, pinned memory limits) and the interference scenario.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "harness/results/co_run.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/sweep_fixture.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

using harness::WorkerRecord;

std::map<std::string, std::vector<WorkerRecord>> workers_by_run(const fs::path& runs_csv) {
  std::map<std::string, std::vector<WorkerRecord>> out;
  for (const auto& w : harness::read_runs(runs_csv)) out[w.run_id].push_back(w);
  return out;
}

std::set<long> pids_of(const std::vector<WorkerRecord>& rows) {
  std::set<long> pids;
  for (const auto& w : rows) pids.insert(w.pid);
  return pids;
}

TEST_F(Orchestration, ConsecutiveRepeatsShareTheirWorkersAndEachSetIsFresh) {
  const auto r = sweep({"--modes", "timeslice,mps", "--procs", "1,2", "--repeats", "4", "--rounds", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto runs = workers_by_run(out() / "runs.csv");
  const auto rows = summary_by_id();
  ASSERT_EQ(rows.size(), 16u);
  for (const char* mode : {"timeslice", "mps"})
    for (int n : {1, 2}) {
      const auto id = [&](int repeat) {
        return "r" + std::to_string(repeat) + "-" + mode + "-cpu-n" + std::to_string(n);
      };
      // Rounds 1-2 share one set of processes, 3-4 another.
      EXPECT_EQ(pids_of(runs.at(id(1))), pids_of(runs.at(id(2)))) << id(1);
      EXPECT_EQ(pids_of(runs.at(id(3))), pids_of(runs.at(id(4)))) << id(3);
      EXPECT_NE(pids_of(runs.at(id(2))), pids_of(runs.at(id(3)))) << id(2);
      EXPECT_EQ(pids_of(runs.at(id(1))).size(), static_cast<std::size_t>(n));
      // Start-up belongs to a set's first run, teardown to its last.
      for (int repeat : {1, 3}) {
        EXPECT_GT(rows.at(id(repeat)).startup_s, 0) << id(repeat);
        EXPECT_EQ(rows.at(id(repeat)).teardown_s, 0) << id(repeat);
      }
      for (int repeat : {2, 4}) {
        EXPECT_EQ(rows.at(id(repeat)).startup_s, 0) << id(repeat);
        EXPECT_GE(rows.at(id(repeat)).teardown_s, 0) << id(repeat);
      }
      for (int repeat = 1; repeat <= 4; ++repeat) EXPECT_EQ(rows.at(id(repeat)).tasks_total, 10 * n) << id(repeat);
      // summary.csv names each run's set and its round in it: repeats 1-2 one set, 3-4 the next.
      EXPECT_GT(rows.at(id(1)).worker_set, 0) << id(1);
      EXPECT_EQ(rows.at(id(2)).worker_set, rows.at(id(1)).worker_set) << id(2);
      EXPECT_EQ(rows.at(id(4)).worker_set, rows.at(id(3)).worker_set) << id(4);
      EXPECT_NE(rows.at(id(3)).worker_set, rows.at(id(1)).worker_set) << id(3);
      for (int repeat = 1; repeat <= 4; ++repeat) EXPECT_EQ(rows.at(id(repeat)).round, 2 - repeat % 2) << id(repeat);
    }
  std::set<int> sets;  // numbered across the sweep: every configuration's sets are its own
  for (const auto& [id, row] : rows) sets.insert(row.worker_set);
  EXPECT_EQ(sets.size(), 8u);
  // One daemon per group of repeats and mode: groups 1-2 and 3-4, MPS in each.
  EXPECT_EQ(journal_count("daemon start"), 2);
  EXPECT_EQ(journal_count("cmd quit"), 2);
  const auto meta = harness::read_meta(out());
  ASSERT_TRUE(meta.contains("timing")) << meta.dump();
  EXPECT_GT(meta["timing"]["timed_s"].get<double>(), 0);
  EXPECT_LT(meta["timing"]["timed_s"].get<double>(), meta["timing"]["wall_s"].get<double>());
  EXPECT_NE(r.out.find("s timed ("), std::string::npos) << r.out;
  expect_worker_processes_gone();
}

TEST_F(Orchestration, InProcessModesRunNInstancesInOneProcessWithARowEach) {
  const auto r = sweep({"--modes", "threads,streams,streams:4", "--procs", "1,3", "--repeats", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto runs = workers_by_run(out() / "runs.csv");
  for (const char* mode : {"threads", "streams", "streams:4"}) {
    const auto& rows = runs.at(std::string("r1-") + mode + "-cpu-n3");
    ASSERT_EQ(rows.size(), 3u) << mode;
    EXPECT_EQ(pids_of(rows).size(), 1u) << mode << ": one process runs the three instances";
    std::set<int> instances;
    for (const auto& w : rows) {
      instances.insert(w.worker);
      EXPECT_EQ(w.status, "ok") << mode;
      EXPECT_EQ(w.tasks, 10) << mode;
      EXPECT_FALSE(w.mps_enabled) << mode;
    }
    EXPECT_EQ(instances, (std::set<int>{0, 1, 2})) << mode;
  }
  // streams:<c> sets CUDA_DEVICE_MAX_CONNECTIONS for its process, the others leave it unset.
  EXPECT_EQ(runs.at("r1-streams:4-cpu-n3").front().fact("max_connections"), 4);
  EXPECT_TRUE(std::isnan(runs.at("r1-streams-cpu-n3").front().fact("max_connections")));
  // Three instances, one process, so the tasks of one run all come from one pid's lines.
  EXPECT_EQ(read_lines(out() / "tasks.csv").size(), 1u + 2 * 3 * (1 + 3) * 10);
  expect_worker_processes_gone();
}

TEST_F(Orchestration, MpsProvisioningReachesEachClientAndIsRecordedPerWorker) {
  const auto r = sweep({"--modes", "mps:60/30/10,mps:auto+prio,mps+mem=1G/512M/512M", "--procs", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto runs = workers_by_run(out() / "runs.csv");
  struct Want {
    const char* run;
    int worker;
    double pct, priority, mem_mib;
  };
  const double none = NAN;
  for (const Want& want :
       {Want{"r1-mps:60_30_10-cpu-n3", 0, 60, none, none}, Want{"r1-mps:60_30_10-cpu-n3", 2, 10, none, none},
        Want{"r1-mps:auto+prio-cpu-n3", 0, 33, 0, none}, Want{"r1-mps:auto+prio-cpu-n3", 1, 33, 1, none},
        Want{"r1-mps:auto+prio-cpu-n3", 2, 33, 1, none}, Want{"r1-mps+mem=1G_512M_512M-cpu-n3", 0, none, none, 1024},
        Want{"r1-mps+mem=1G_512M_512M-cpu-n3", 2, none, none, 512}}) {
    const WorkerRecord& w = runs.at(want.run).at(static_cast<std::size_t>(want.worker));
    ASSERT_EQ(w.worker, want.worker);
    // What the client saw in its environment (the cpu stand-in reports it) ...
    const auto same = [](double got, double expected) {
      return std::isnan(expected) ? std::isnan(got) : got == expected;
    };
    EXPECT_TRUE(same(w.fact("mps_active_thread_pct"), want.pct)) << want.run << " " << w.facts;
    EXPECT_TRUE(same(w.fact("mps_client_priority"), want.priority)) << want.run << " " << w.facts;
    EXPECT_TRUE(same(w.fact("mps_mem_limit_mib"), want.mem_mib)) << want.run << " " << w.facts;
  }
  // ... and what runs.csv says it was given.
  int checked = 0;
  for (const auto& row : csv_records(out() / "runs.csv")) {
    if (row.at("run_id") == "r1-mps:auto+prio-cpu-n3") {
      EXPECT_EQ(row.at("client_active_thread_pct"), "33");
      EXPECT_EQ(row.at("client_priority"), row.at("worker") == "0" ? "0" : "1");
      ++checked;
    }
    if (row.at("run_id") == "r1-mps+mem=1G_512M_512M-cpu-n3") {
      EXPECT_EQ(row.at("client_mem_limit_bytes"), row.at("worker") == "0" ? "1073741824" : "536870912");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 6);
  const auto rows = summary_by_id();
  EXPECT_EQ(rows.at("r1-mps:auto+prio-cpu-n3").active_thread_pct, 33);  // the same for every client
  EXPECT_EQ(rows.at("r1-mps:60_30_10-cpu-n3").active_thread_pct, 0);    // they differ: runs.csv has each
  // No default percentage was sent to the daemon for these modes (each client sets its own).
  EXPECT_EQ(journal_count("set_default_active_thread_percentage"), 0);
}

TEST_F(Orchestration, ClientOverItsPinnedMemoryLimitIsRecordedAndTheSweepGoesOn) {
  const auto r =
      sweep({"--modes", "mps+mem=256M,mps+mem=1G", "--procs", "1,2", "--cpu-mem-mib", "300", "--timeout", "20"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto rows = summary_by_id();
  ASSERT_EQ(rows.size(), 4u);
  for (const char* id : {"r1-mps+mem=256M-cpu-n1", "r1-mps+mem=256M-cpu-n2"}) {
    EXPECT_EQ(rows.at(id).status, "mps_mem_limit") << id;
    EXPECT_NE(rows.at(id).reason.find("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=256M"), std::string::npos)
        << rows.at(id).reason;
  }
  for (const char* id : {"r1-mps+mem=1G-cpu-n1", "r1-mps+mem=1G-cpu-n2"}) EXPECT_EQ(rows.at(id).status, "ok") << id;
  expect_worker_processes_gone();
}

TEST_F(Orchestration, InterferenceRunsForegroundAloneBackgroundAloneAndBothPerModeAndRepeat) {
  const auto r = sweep({"--scenario", "interference", "--foreground", "cpu", "--background", "cpu", "--procs", "3",
                        "--modes", "timeslice,mps+prio,threads", "--repeats", "2", "--duration", "0.3"},
                       {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = summary_by_id();
  ASSERT_EQ(rows.size(), 3u * 3u * 2u);
  for (const char* mode : {"timeslice", "mps+prio", "threads"})
    for (int repeat : {1, 2}) {
      const std::string p = "r" + std::to_string(repeat) + "-" + mode + "-cpu-";
      const auto& fg = rows.at(p + "n1-interference_fg");
      const auto& bg = rows.at(p + "n2-interference_bg");
      const auto& mix = rows.at(p + "n3-interference");
      for (const auto* row : {&fg, &bg, &mix}) EXPECT_EQ(row->status, "ok") << row->run_id << row->reason;
      EXPECT_EQ(fg.scenario.name(), "interference_fg");
      EXPECT_GT(fg.fg_latency_p99_ms, 0);
      EXPECT_GT(bg.bg_throughput_per_s, 0);
      // The side-by-side run's ratios are its own figures over the alone runs' of its repeat and mode. Each is
      // written to 7 significant digits, as are the figures it divides: recomputed from them, a ratio may differ
      // from the one written by up to about 1.5e-6 of it (a throughput kept of 1.1447580 read 1.1447567 from them).
      EXPECT_NEAR(mix.fg_p99_vs_alone, mix.fg_latency_p99_ms / fg.fg_latency_p99_ms, 3e-6 * mix.fg_p99_vs_alone);
      EXPECT_NEAR(mix.bg_throughput_kept, mix.bg_throughput_per_s / bg.bg_throughput_per_s,
                  3e-6 * mix.bg_throughput_kept);
      EXPECT_NEAR(mix.fg_throughput_vs_alone, mix.fg_throughput_per_s / fg.fg_throughput_per_s,
                  3e-6 * mix.fg_throughput_vs_alone);
      EXPECT_GE(mix.fg_overlap, harness::kMinCoRunCoverage) << "jobs of one --duration run side by side";
      EXPECT_LE(mix.fg_latency_p50_ms, mix.fg_latency_p95_ms);
      EXPECT_LE(mix.fg_latency_p95_ms, mix.fg_latency_p99_ms);
    }
  // Roles: worker 0 of a side-by-side run is the foreground; with +prio it runs at normal priority,
  // the background below it.
  for (const auto& row : csv_records(out() / "runs.csv")) {
    const std::string& id = row.at("run_id");
    const bool fg = id.find("-interference_fg") != std::string::npos ||
                    (id.size() > 13 && id.substr(id.size() - 13) == "-interference" && row.at("worker") == "0");
    EXPECT_EQ(row.at("role"), fg ? "foreground" : "background") << id << " worker " << row.at("worker");
  }
  const auto runs = workers_by_run(out() / "runs.csv");
  const auto& prio = runs.at("r1-mps+prio-cpu-n3-interference");
  ASSERT_EQ(prio.size(), 3u);
  EXPECT_EQ(prio[0].fact("mps_client_priority"), 0);
  EXPECT_EQ(prio[1].fact("mps_client_priority"), 1);
  EXPECT_EQ(pids_of(runs.at("r1-threads-cpu-n3-interference")).size(), 1u);
  EXPECT_NE(r.out.find("interference"), std::string::npos) << r.out;
  expect_worker_processes_gone();
}

// A program as the foreground runs once, to its end; its background runs its own length beside it (--duration), as
// alone, not the program's one task: a review found mlp beside a program timed over its first task (a millisecond,
// before the program did any work), which made the pair's sum 3.15 against an ideal of 2.
TEST_F(Orchestration, ABackgroundBesideAProgramRunsItsOwnLength) {
  const auto r = sweep({"--scenario", "interference", "--foreground", "exec", "--command", "sleep 0.3", "--background",
                        "cpu", "--procs", "2", "--modes", "timeslice", "--repeats", "1", "--duration", "0.5"},
                       {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--duration: sets the background's length (cpu), not your program's"), std::string::npos)
      << r.err;
  const auto runs = workers_by_run(out() / "runs.csv");
  const auto& alone = runs.at("r1-timeslice-cpu-n1-interference_bg");
  const auto& mix = runs.at("r1-timeslice-exec-n2-interference");
  ASSERT_EQ(mix.size(), 2u);
  EXPECT_EQ(mix[0].tasks, 1) << "the program runs once";
  EXPECT_GT(mix[1].tasks, 10) << "the background beside it";
  EXPECT_GT(mix[1].tasks, alone[0].tasks / 2) << "as long as alone: " << alone[0].tasks << " tasks";
  const auto rows = summary_by_id();
  const harness::SummaryRecord& side = rows.at("r1-timeslice-exec-n2-interference");
  EXPECT_GE(side.fg_overlap, harness::kMinCoRunCoverage) << "the background ran throughout the program";
  // The background's rate beside is its tasks inside the program's run over that run (it ran on, alone, after it).
  double program_start = 0, program_end = 0, inside = 0;
  const auto tasks = harness::read_tasks(out() / "tasks.csv");
  for (const auto& t : tasks)
    if (t.run_id == side.run_id && t.worker == 0) {
      program_start = t.start_ms;
      program_end = t.start_ms + t.duration_ms;
    }
  for (const auto& t : tasks)
    if (t.run_id == side.run_id && t.worker == 1 && t.duration_ms > 0)
      inside += std::max(0.0, std::min(t.start_ms + t.duration_ms, program_end) - std::max(t.start_ms, program_start)) /
                t.duration_ms;
  ASSERT_GT(program_end, program_start);
  EXPECT_NEAR(side.bg_throughput_per_s, inside / ((program_end - program_start) * 1e-3),
              1e-5 * side.bg_throughput_per_s);
}

// A foreground that outlasts its background ran mostly alone: the run is marked `not side by side` (fg_overlap under
// 0.8), shown and counted, and left out of its cell, so it is not read as undisturbed (a review found a run whose jobs
// never overlapped reported at 1.00x). A folder written before the column gets the overlap from tasks.csv; a value
// outside 0..1 is a damaged file.
TEST_F(Orchestration, AForegroundThatOutlastsItsBackgroundIsNotSideBySide) {
  const auto r = sweep({"--scenario", "interference", "--foreground", "exec", "--command", "sleep 0.6", "--background",
                        "cpu", "--procs", "2", "--modes", "timeslice", "--repeats", "2", "--duration", "0.1"},
                       {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* id : {"r1-timeslice-exec-n2-interference", "r2-timeslice-exec-n2-interference"}) {
    const harness::SummaryRecord mix = summary_by_id().at(id);
    EXPECT_EQ(mix.status, harness::RunStatus::ok) << id;
    EXPECT_GT(mix.fg_overlap, 0.05) << id << ": the background's 0.1 s inside the program's 0.6 s";
    EXPECT_LT(mix.fg_overlap, 0.5) << id;
    EXPECT_NE(mix.reason.find("not side by side: every background job ran during only "), std::string::npos)
        << mix.reason;
    EXPECT_NE(mix.reason.find(" of the foreground's timed span (the foreground ran "), std::string::npos) << mix.reason;
    EXPECT_NE(mix.reason.find(" ms against the shortest background job's "), std::string::npos) << mix.reason;
  }
  EXPECT_NE(r.out.find("(2 not side by side)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("keeps the foreground's p99"), std::string::npos) << "no verdict from runs not side by side";
  const fs::path summary = out() / "summary.csv";
  const auto render = [&] { return run_program(bench_mps_exe(), {"report", out().string()}); };
  const std::string none =
      "Side-by-side runs finished, but in none did every background job run during at least 80 % of the "
      "foreground's timed span";
  ASSERT_EQ(render().exit_code, 0);
  EXPECT_EQ(read_text(out() / "report.md").rfind(none, 0), 0u) << read_text(out() / "report.md").substr(0, 300);
  EXPECT_NE(read_text(out() / "report.md").find("| 0/2 (2 not side by side) |"), std::string::npos);
  // compare leaves them out and counts them, as it does runs not ok (a review found one read as +67.4 % FASTER).
  const auto compared = run_program(bench_mps_exe(), {"compare", out().string(), out().string()});
  EXPECT_NE(compared.out.find("interference runs not side by side (left out): base 2, new 2"), std::string::npos)
      << compared.out << compared.err;
  // history counts them among the runs left out of a point (runs_not_ok), not as measurements of it.
  const fs::path twin = out().parent_path() / "twin";
  fs::copy(out(), twin, fs::copy_options::recursive);
  const auto followed = run_program(bench_mps_exe(), {"history", out().string(), twin.string(), "--format", "json"});
  ASSERT_EQ(followed.exit_code, 0) << followed.err;
  int side_points = 0;
  const nlohmann::json history = nlohmann::json::parse(followed.out);
  for (const auto& series : history.at("series"))
    if (series.at("procs") == 2)
      for (const auto& point : series.at("points")) {
        ++side_points;
        EXPECT_EQ(point.at("runs_not_ok"), 2) << point;
      }
  EXPECT_EQ(side_points, 2) << followed.out;
  // Written before the column: every side-by-side row's fg_overlap empty, its overlap read from tasks.csv.
  const auto lines = read_lines(summary);
  for (std::size_t row = 1; row < lines.size(); ++row) set_csv_cell(summary, row, "fg_overlap", "");
  ASSERT_EQ(render().exit_code, 0);
  EXPECT_EQ(read_text(out() / "report.md").rfind(none, 0), 0u) << read_text(out() / "report.md").substr(0, 300);
  for (const auto& [bad, why] : std::vector<std::pair<std::string, std::string>>{
           {"1.5", "fg_overlap of 1.5 (a share of the foreground's span: 0 to 1)"},
           {"-0.1", "fg_overlap: -0.1 is negative"}}) {
    set_csv_cell(summary, lines.size() - 1, "fg_overlap", bad);
    fs::remove(out() / "report.md");
    const auto refused = render();
    EXPECT_EQ(refused.exit_code, 2) << bad << refused.err;
    EXPECT_NE(refused.err.find(why), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(out() / "report.md"));
  }
}

}  // namespace
}  // namespace bench_mps::testing
