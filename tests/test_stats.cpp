// Statistics, planning, the worker protocol and run reduction, on synthetic inputs.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "harness/common/parallel.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/results/run_record.hpp"
#include "harness/sweep/run_reduction.hpp"
#include "harness/workers/worker_protocol.hpp"
#include "harness/workers/workload_config.hpp"
#include "tests/test_support.hpp"  // a status compared with its word

namespace bench_mps::harness {
namespace {

TEST(Stats, MeanQuantileMedian) {
  EXPECT_DOUBLE_EQ(mean({1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(quantile({0, 10}, 0.99), 9.9);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.99), 7);
  EXPECT_TRUE(std::isnan(mean({})));
  EXPECT_TRUE(std::isnan(quantile({}, 0.5)));
}

TEST(Stats, TheRatioOfTwoMeansHasWelchsIntervalOnTheLogScale) {
  // One degree of freedom (b does not vary): t(0.96875, 1) = tan(0.46875 pi) = 10.153.
  const RatioInterval r = ratio_of_means({1.0, 1.1}, {1.0, 1.0});
  EXPECT_DOUBLE_EQ(r.ratio, 1.05);
  EXPECT_NEAR(r.lo, 0.647463, 1e-5);
  EXPECT_NEAR(r.hi, 1.702801, 1e-5);
  EXPECT_NEAR(r.lo * r.hi, r.ratio * r.ratio, 1e-9);  // symmetric on the log scale
  // More sets narrow it; neither side varying gives the ratio itself; one value gives none.
  const RatioInterval more = ratio_of_means({1.0, 1.1, 1.0, 1.1, 1.0, 1.1}, {1.0, 1.0, 1.0});
  EXPECT_LT(more.hi - more.lo, r.hi - r.lo);
  const RatioInterval exact = ratio_of_means({2, 2}, {1, 1});
  EXPECT_DOUBLE_EQ(exact.lo, 2);
  EXPECT_DOUBLE_EQ(exact.hi, 2);
  EXPECT_FALSE(ratio_of_means({2}, {1, 1}).has_interval());
  EXPECT_DOUBLE_EQ(ratio_of_means({2}, {1, 1}).ratio, 2);
}

// How many more sets would decide: none where the interval is already on one side; more the nearer the ratio lies
// to the line; -1 where the cap would not do (a ratio on the line itself), and with one value on a side.
TEST(Stats, MoreSamplesToClearALineGrowAsTheRatioNearsIt) {
  const std::vector<double> ts = {1.00, 1.04, 0.96, 1.02};
  const std::vector<double> mps = {1.08, 1.16, 1.04, 1.12}, nearer = {1.06, 1.14, 1.02, 1.10};
  EXPECT_EQ(more_samples_to_clear({1.30, 1.34, 1.26, 1.32}, ts, 1.05, 100), 0);  // 1.30x: above already
  EXPECT_LT(ratio_of_means(mps, ts).lo, 1.05);                                   // 1.09x, across the line
  EXPECT_EQ(more_samples_to_clear(mps, ts, 1.05, 100), 5);
  EXPECT_EQ(more_samples_to_clear(nearer, ts, 1.05, 100), 20);  // 1.07x: nearer the line, more sets
  EXPECT_EQ(more_samples_to_clear(nearer, ts, 1.05, 10), -1);   // past the cap
  EXPECT_EQ(more_samples_to_clear({1.2}, ts, 1.05, 100), -1);   // one value: no interval to narrow
  // Each side twice over (four more values each, the same means, a spread 6/7 as wide): wholly above the line, as
  // the five more at the first spread said it would nearly be.
  std::vector<double> mps8 = mps, ts8 = ts;
  mps8.insert(mps8.end(), mps.begin(), mps.end());
  ts8.insert(ts8.end(), ts.begin(), ts.end());
  EXPECT_GE(ratio_of_means(mps8, ts8).lo, 1.05);
  EXPECT_EQ(more_samples_to_clear(mps8, ts8, 1.05, 100), 0);
}

// Predict's phase draws run through it: every index once, whatever the threads; a throw reaches the caller (the
// lowest index's first) once every piece has ended; nothing to do is nothing done.
TEST(ForEachIndex, RunsEveryIndexOnceAndRethrowsTheFirstFailureAfterAll) {
  EXPECT_GE(harness::usable_cpus(), 1u);
  std::vector<std::atomic<int>> seen(257);
  harness::for_each_index(seen.size(), [&seen](std::size_t i) { ++seen[i]; });
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i].load(), 1) << i;
  std::atomic<int> ran{0};
  try {
    harness::for_each_index(40, [&ran](std::size_t i) {
      ++ran;
      if (i == 7 || i == 30) throw std::runtime_error("piece " + std::to_string(i));
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "piece 7");
  }
  EXPECT_EQ(ran.load(), 40) << "every piece ran before the rethrow";
  harness::for_each_index(0, [](std::size_t) { ADD_FAILURE() << "called for nothing"; });
}

TEST(Stats, JainFairness) {
  EXPECT_DOUBLE_EQ(jain_fairness({3, 3, 3, 3}), 1.0);
  EXPECT_DOUBLE_EQ(jain_fairness({1, 0, 0, 0}), 0.25);
  EXPECT_NEAR(jain_fairness({1, 2}), 9.0 / 10.0, 1e-12);
}

TEST(Plan, RepeatsThenModesThenWorkloadsThenAscendingN) {
  SweepSpec spec;
  spec.procs = {10, 1, 4};
  spec.modes = parse_modes("timeslice,mps");
  spec.workloads = {"spin", "mlp"};
  spec.repeats = 2;
  spec.rounds = 1;  // a fresh set of workers for every run
  const auto blocks = plan_sweep(spec);
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0].mode.name, "timeslice");
  EXPECT_EQ(blocks[1].mode.name, "mps");
  EXPECT_EQ(blocks[2].group, 2);
  const auto runs = blocks[0].runs();
  ASSERT_EQ(runs.size(), 6u);
  EXPECT_EQ(blocks[0].sets.size(), 6u);
  EXPECT_EQ(runs[0].run_id(), "r1-timeslice-spin-n1");
  EXPECT_EQ(runs[2].run_id(), "r1-timeslice-spin-n10");
  EXPECT_EQ(runs[3].run_id(), "r1-timeslice-mlp-n1");
  EXPECT_EQ(blocks[3].runs().back().index, 23);
  EXPECT_EQ(runs[0].tasks, run_length(spec, "spin").tasks);
  EXPECT_EQ(runs[0].tasks, 30);
  EXPECT_EQ(runs[3].tasks, 0);  // mlp runs for a time by default
  EXPECT_DOUBLE_EQ(runs[3].duration_s, 0.5);
  spec.tasks = 7;
  EXPECT_EQ(plan_sweep(spec)[0].runs()[0].tasks, 7);
  EXPECT_EQ(plan_sweep(spec)[0].runs()[3].tasks, 7);
  EXPECT_DOUBLE_EQ(plan_sweep(spec)[0].runs()[3].duration_s, 0);
  spec.tasks = 0;
  spec.duration_s = 2;
  EXPECT_EQ(plan_sweep(spec)[0].runs()[0].tasks, 0);
  EXPECT_DOUBLE_EQ(plan_sweep(spec)[0].runs()[0].duration_s, 2);
}

TEST(Plan, ConsecutiveRepeatsShareAWorkerSetAndModesInterleaveByGroup) {
  SweepSpec spec;
  spec.procs = {1, 4};
  spec.modes = parse_modes("timeslice,mps");
  spec.workloads = {"spin", "exec"};
  spec.params.exec.command = "true";
  spec.repeats = 5;
  ASSERT_EQ(rounds_per_set(spec, "spin"), 3);  // half of 5, rounded up
  ASSERT_EQ(rounds_per_set(spec, "exec"), 1);  // the program's start-up is what it times
  const auto blocks = plan_sweep(spec);
  ASSERT_EQ(blocks.size(), 4u);  // groups r1-r3 and r4-r5, each timeslice then mps
  std::vector<std::string> order;
  for (const auto& b : blocks) order.push_back(std::to_string(b.group) + "/" + b.mode.name);
  EXPECT_EQ(order, (std::vector<std::string>{"1/timeslice", "1/mps", "2/timeslice", "2/mps"}));
  // spin: one set per N, its rounds the group's repeats in order; exec: one set per repeat.
  const auto& sets = blocks[0].sets;
  ASSERT_EQ(sets.size(), 2u + 3u * 2u);
  std::vector<std::string> first_set;
  for (const auto& r : sets[0].runs) first_set.push_back(r.run_id());
  EXPECT_EQ(first_set,
            (std::vector<std::string>{"r1-timeslice-spin-n1", "r2-timeslice-spin-n1", "r3-timeslice-spin-n1"}));
  EXPECT_EQ(sets[1].runs.front().run_id(), "r1-timeslice-spin-n4");
  for (std::size_t i = 2; i < sets.size(); ++i) EXPECT_EQ(sets[i].runs.size(), 1u) << sets[i].runs.front().run_id();
  EXPECT_EQ(sets[2].runs.front().run_id(), "r1-timeslice-exec-n1");
  EXPECT_EQ(blocks[2].sets[0].runs.size(), 2u);  // r4, r5
  // Every run exactly once, indices in plan order.
  int expected = 0;
  for (const auto& b : blocks)
    for (const auto& r : b.runs()) EXPECT_EQ(r.index, expected++);
  EXPECT_EQ(expected, 5 * 2 * 2 * 2);
  spec.rounds = 5;
  EXPECT_EQ(plan_sweep(spec).size(), 2u);  // one group: timeslice, mps
}

/// The plan's run ids of `mode`, in plan order.
std::vector<std::string> run_ids_of(const std::vector<ModeBlock>& blocks, const std::string& mode) {
  std::vector<std::string> ids;
  for (const auto& b : blocks)
    if (b.mode.name == mode)
      for (const auto& r : b.runs()) ids.push_back(r.run_id());
  return ids;
}

TEST(Plan, AnExecLadderRunsThreeAloneRunsPerModeFirstMiddleAndLast) {
  SweepSpec spec;
  spec.procs = {1, 2, 4, 10};
  spec.modes = parse_modes("timeslice,mps");
  spec.workloads = {"exec"};
  spec.params.exec.command = "true";
  spec.repeats = 1;
  ASSERT_EQ(extra_alone_runs(spec, "exec"), 2);
  auto blocks = plan_sweep(spec);
  EXPECT_EQ(run_ids_of(blocks, "timeslice"),
            (std::vector<std::string>{"r1-timeslice-exec-n1", "r1-timeslice-exec-n2", "r2-timeslice-exec-n1",
                                      "r1-timeslice-exec-n4", "r1-timeslice-exec-n10", "r3-timeslice-exec-n1"}));
  EXPECT_EQ(run_ids_of(blocks, "mps").back(), "r3-mps-exec-n1");
  int expected = 0;
  for (const auto& b : blocks)
    for (const auto& r : b.runs()) EXPECT_EQ(r.index, expected++);
  EXPECT_EQ(expected, 12);

  // Two repeats: the second repeat's alone run is the middle one; one more after the last N.
  spec.repeats = 2;
  blocks = plan_sweep(spec);
  const auto ids = run_ids_of(blocks, "mps");
  ASSERT_EQ(ids.size(), 9u);
  EXPECT_EQ(ids[4], "r2-mps-exec-n1");
  EXPECT_EQ(ids[8], "r3-mps-exec-n1");

  // Four alone runs with two repeats: the extra in the middle of the first repeat runs before the second
  // repeat's and takes the next repeat number in run order.
  spec.exec_alone_runs = 4;
  const auto four = run_ids_of(plan_sweep(spec), "timeslice");
  EXPECT_EQ(four, (std::vector<std::string>{"r1-timeslice-exec-n1", "r1-timeslice-exec-n2", "r3-timeslice-exec-n1",
                                            "r1-timeslice-exec-n4", "r1-timeslice-exec-n10", "r2-timeslice-exec-n1",
                                            "r2-timeslice-exec-n2", "r2-timeslice-exec-n4", "r2-timeslice-exec-n10",
                                            "r4-timeslice-exec-n1"}));
}

TEST(Plan, AloneRunsAreAddedOnlyToALadderOfExecThatHoldsNEqualsOne) {
  SweepSpec spec;
  spec.modes = parse_modes("timeslice");
  spec.workloads = {"exec"};
  spec.params.exec.command = "true";
  spec.repeats = 1;
  spec.procs = {2, 4};  // no alone run to add to
  EXPECT_EQ(extra_alone_runs(spec, "exec"), 0);
  spec.procs = {1};  // alone only: its repeats are its draws
  EXPECT_EQ(extra_alone_runs(spec, "exec"), 0);
  spec.procs = {1, 4};
  spec.exec_alone_runs = 0;
  EXPECT_EQ(extra_alone_runs(spec, "exec"), 0);
  spec.exec_alone_runs = 3;
  EXPECT_EQ(extra_alone_runs(spec, "exec"), 2);
  spec.repeats = 3;
  EXPECT_EQ(extra_alone_runs(spec, "exec"), 0);
  spec.repeats = 1;
  spec.workloads = {"spin"};  // its sets already hold several rounds
  EXPECT_EQ(extra_alone_runs(spec, "spin"), 0);
}

TEST(WorkloadArgs, EveryWorkloadsParametersReachTheWorkerAsRecorded) {
  // The harness records workload_params_string in runs.csv and passes workload_worker_args to
  // bench_worker, which parses them with the same add_workload_options: what a worker runs must be
  // what the row says, for the GPU-only workloads too (CI has no GPU to run them).
  WorkloadConfig asked;
  asked.spin.blocks = 8;
  asked.spin.launch_us = 50;
  asked.mlp.layers = {784, 256, 10};
  asked.mlp.seed = 7;
  asked.mlp.dataset_size = 2048;
  asked.membw.mib = 64;
  asked.membw.iters = 5;
  asked.membw.blocks = 264;
  asked.filler.target_pct = 30;
  asked.filler.kernel_us = 500;
  asked.filler.blocks = 66;
  asked.filler.yield = true;
  asked.filler.yield_ms = 250;
  asked.infer.rate_per_s = 100;
  asked.infer.batch = 8;
  for (const std::string workload : {"spin", "mlp", "membw", "filler", "mlp-infer"}) {
    const std::vector<std::string> args = workload_worker_args(workload, asked);
    CLI::App app;
    std::string parsed_name;
    WorkloadConfig parsed;
    app.add_option("--workload", parsed_name);
    add_workload_options(app, parsed);
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes a vector back to front
    ASSERT_NO_THROW(app.parse(reversed)) << workload;
    EXPECT_EQ(parsed_name, workload);
    EXPECT_EQ(workload_params_string(workload, parsed), workload_params_string(workload, asked)) << workload;
  }
  const std::string filler = workload_params_string("filler", asked);
  for (const char* item : {"target_pct=30;", "kernel_us=500;", "blocks=66;", "yield=1;", "yield_ms=250"})
    EXPECT_NE(filler.find(item), std::string::npos) << item << " in " << filler;
  EXPECT_EQ(workload_params_string("membw", asked).rfind("mib=64;iters=5;blocks=264;", 0), 0u);
  const std::string infer = workload_params_string("mlp-infer", asked);
  for (const char* item : {"layers=784-256-10;", "batch=8;", "rate=100;", "seed=7;"})
    EXPECT_NE(infer.find(item), std::string::npos) << item << " in " << infer;
}

TEST(Plan, GreenModeRunsItsInstancesInOneProcessWithTheSmSplitAsked) {
  const std::vector<Mode> modes = parse_modes("green,green:64");
  ASSERT_EQ(modes.size(), 2u);
  EXPECT_EQ(modes[0].kind, ModeKind::green);
  EXPECT_EQ(modes[0].green_sms, 0) << "an equal share";
  EXPECT_EQ(modes[1].name, "green:64");
  EXPECT_EQ(modes[1].green_sms, 64);
  for (const Mode& m : modes) {
    EXPECT_TRUE(m.in_process()) << m.name;
    EXPECT_FALSE(m.mps) << m.name;
  }
  SweepSpec spec;
  spec.procs = {1, 2};
  spec.modes = modes;
  spec.workloads = {"spin"};
  spec.repeats = 1;
  std::vector<std::string> ids;
  for (const auto& b : plan_sweep(spec))
    for (const auto& r : b.runs()) ids.push_back(r.run_id());
  EXPECT_EQ(ids, (std::vector<std::string>{"r1-green-spin-n1", "r1-green-spin-n2", "r1-green:64-spin-n1",
                                           "r1-green:64-spin-n2"}));
}

TEST(Protocol, RoundTrip) {
  ReadyInfo r;
  r.pid = 42;
  r.sm_count_seen = 132;
  r.mps_enabled = true;
  r.mem_bytes = 1234;
  r.device = "NVIDIA H100";
  const WorkerMessage ready = parse_worker_line(format_ready(r));
  ASSERT_EQ(ready.kind, WorkerMessage::Kind::ready);
  EXPECT_EQ(ready.ready.pid, 42);
  EXPECT_EQ(ready.ready.sm_count_seen, 132);
  EXPECT_TRUE(ready.ready.mps_enabled);
  EXPECT_EQ(ready.ready.device, "NVIDIA H100");

  const WorkerMessage task = parse_worker_line(format_task({100, 250}));
  ASSERT_EQ(task.kind, WorkerMessage::Kind::task);
  EXPECT_EQ(task.task.end_ns, 250);

  const WorkerMessage err = parse_worker_line(format_error("cudaMalloc failed:\nout of memory"));
  ASSERT_EQ(err.kind, WorkerMessage::Kind::error);
  EXPECT_EQ(err.text, "cudaMalloc failed: out of memory");

  EXPECT_EQ(parse_worker_line(format_done({{"tasks", 3}})).done["tasks"], 3);
  const WorkerMessage instance_task = parse_worker_line(format_task({100, 250, 3}, true));
  ASSERT_EQ(instance_task.kind, WorkerMessage::Kind::task);
  EXPECT_EQ(instance_task.task.instance, 3);
  EXPECT_EQ(format_task({100, 250, 3}), "TASK 100 250");  // one instance: no instance field
  r.instances = 4;
  r.instance_sms = {64, 64, 0, 0};
  const WorkerMessage ready4 = parse_worker_line(format_ready(r));
  ASSERT_EQ(ready4.kind, WorkerMessage::Kind::ready);
  EXPECT_EQ(ready4.ready.instances, 4);
  EXPECT_EQ(ready4.ready.instance_sms, (std::vector<int>{64, 64, 0, 0}));
  for (const char* bad : {"TASK 5 1", "TASK x y", "TASK 1 2 3 4", "TASK 1 2 -1", "READY {", "READY {}",
                          "READY {\"pid\":1,\"sm_count_seen\":1,\"mps_enabled\":false,\"mem_bytes\":0,\"instances\":0}",
                          "DONE [", "HELLO", ""})
    EXPECT_EQ(parse_worker_line(bad).kind, WorkerMessage::Kind::unknown) << bad;
}

TEST(RunRecord, ReducesWorkersToSummary) {
  RunSpec spec;
  spec.workload = "cpu";
  spec.procs = 2;
  PoolResult pool;
  pool.barrier_passed = true;
  pool.go_ns = 1'000'000'000;
  for (int w = 0; w < 2; ++w) {
    WorkerResult r;
    r.index = w;
    r.ready = true;
    // worker 0: 4 tasks of 10 ms back to back; worker 1: 2 tasks of 20 ms
    const int n = w == 0 ? 4 : 2;
    const std::int64_t d = w == 0 ? 10'000'000 : 20'000'000;
    for (int t = 0; t < n; ++t) r.tasks.push_back({pool.go_ns + t * d, pool.go_ns + (t + 1) * d});
    r.done = {{"tasks", n}};
    pool.workers.push_back(r);
  }
  const RunRecord rec = make_run_record(spec, pool, {}, 5.0);
  EXPECT_EQ(rec.summary.status, "ok");
  EXPECT_EQ(rec.summary.tasks_total, 6);
  EXPECT_NEAR(rec.summary.makespan_s, 0.040, 1e-9);
  EXPECT_NEAR(rec.summary.throughput_tasks_per_s, 150.0, 1e-6);
  EXPECT_NEAR(rec.summary.task_mean_ms, (4 * 10.0 + 2 * 20.0) / 6, 1e-9);
  EXPECT_NEAR(rec.summary.slowdown_vs_alone, rec.summary.task_mean_ms / 5.0, 1e-12);
  EXPECT_NEAR(rec.summary.jain_fairness, jain_fairness({100, 50}), 1e-9);
  ASSERT_EQ(rec.workers.size(), 2u);
  EXPECT_NEAR(rec.workers[0].throughput_tasks_per_s, 100.0, 1e-6);
  EXPECT_EQ(rec.tasks.size(), 6u);

  pool.workers[1].status = RunStatus::crashed;
  pool.workers[1].reason = "killed by signal";
  const RunRecord failed = make_run_record(spec, pool, {}, 0);
  EXPECT_EQ(failed.summary.status, "crashed");
  EXPECT_EQ(failed.summary.reason, "worker 1: killed by signal");
  EXPECT_EQ(failed.summary.workers_ok, 1);
  EXPECT_TRUE(std::isnan(failed.summary.slowdown_vs_alone));
}

/// One worker whose `tasks` tasks of `task_ms` run back to back from `start_ms` after GO.
PoolResult one_worker_pool(double start_ms, int tasks, double task_ms) {
  PoolResult pool;
  pool.barrier_passed = true;
  pool.go_ns = 1'000'000'000;
  WorkerResult r;
  r.ready = true;
  const auto at = [&](double ms) { return pool.go_ns + static_cast<std::int64_t>(ms * 1e6); };
  for (int t = 0; t < tasks; ++t) r.tasks.push_back({at(start_ms + t * task_ms), at(start_ms + (t + 1) * task_ms)});
  r.done = {{"tasks", tasks}};
  pool.workers.push_back(r);
  return pool;
}

TEST(RunRecord, UtilisationCountsOnlySamplesWhosePeriodLiesInTheTimedWindow) {
  RunSpec spec;
  spec.workload = "cpu";
  spec.procs = 1;
  // Timed window: 50 ms after GO to 1050 ms. The driver samples every 200 ms; the sample at 100 ms
  // covers -100..100 ms (idle before the first task: 0%), the one at 1100 ms ends after the window.
  const PoolResult pool = one_worker_pool(50, 10, 100);
  std::vector<UtilSample> driver;
  for (int k = 0; k <= 5; ++k) driver.push_back({pool.go_ns + (100 + 200 * k) * 1'000'000LL, k == 0 ? 0u : 90u});
  const RunRecord rec = make_run_record(spec, pool, {}, 0, driver);
  EXPECT_EQ(rec.summary.gpu_util_source, "driver");
  EXPECT_EQ(rec.summary.gpu_util_samples, 4) << "300, 500, 700 and 900 ms";
  EXPECT_NEAR(rec.summary.gpu_util_mean, 0.90, 1e-12);

  // Without the driver's samples our polled readings count from NVML's longest period on.
  std::vector<GpuSample> polled;
  for (int k = 0; k <= 10; ++k) {
    GpuSample g;
    g.t_ns = pool.go_ns + k * 100'000'000LL;
    g.gpu_util_pct = k * 100 < 50 + 1000 ? 10u * static_cast<unsigned>(k) : 0u;
    polled.push_back(g);
  }
  const RunRecord from_polls = make_run_record(spec, pool, polled, 0);
  EXPECT_EQ(from_polls.summary.gpu_util_source, "polled");
  ASSERT_EQ(from_polls.summary.gpu_util_samples, 0) << "no reading is 1 s after the first task and inside the window";
  EXPECT_TRUE(std::isnan(from_polls.summary.gpu_util_mean));

  // A run shorter than one driver period has no utilisation, not a misleading 0.
  const PoolResult short_run = one_worker_pool(0, 1, 100);
  const RunRecord brief = make_run_record(spec, short_run, {}, 0, driver);
  EXPECT_EQ(brief.summary.gpu_util_samples, 0);
  EXPECT_TRUE(std::isnan(brief.summary.gpu_util_mean));
}

}  // namespace
}  // namespace bench_mps::harness

namespace bench_mps::harness {
namespace {

TEST(MedianConfidenceInterval, IsTheRangeUpToEightValuesAndNarrowsFromNine) {
  EXPECT_TRUE(std::isnan(median_confidence_interval({1.0}).lo));
  const Interval five = median_confidence_interval({5, 1, 4, 2, 3});
  EXPECT_EQ(five.lo, 1);
  EXPECT_EQ(five.hi, 5);
  std::vector<double> eight{8, 1, 7, 2, 6, 3, 5, 4};
  EXPECT_EQ(median_confidence_interval(eight).lo, 1) << "coverage of [x2, x7] at n=8 is 0.93, below 0.9375";
  std::vector<double> nine{9, 1, 8, 2, 7, 3, 6, 4, 5};
  const Interval n9 = median_confidence_interval(nine);
  EXPECT_EQ(n9.lo, 2);  // [x2, x8]: coverage 1 - 2 x 10/512 = 0.961
  EXPECT_EQ(n9.hi, 8);
  std::vector<double> twelve{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const Interval n12 = median_confidence_interval(twelve);
  EXPECT_EQ(n12.lo, 3);  // [x3, x10]: 1 - 2 x 79/4096 = 0.961
  EXPECT_EQ(n12.hi, 10);
}

}  // namespace
}  // namespace bench_mps::harness
