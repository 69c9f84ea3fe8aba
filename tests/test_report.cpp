// `bench_mps report`: the real program on the checked-in H200 fixture and on a comparison folder,
// checking every file it must write (valid PNG and SVG, report.md with the verdict, tables and the
// seed figures), that bad folders exit 2 and a missing matplotlib exits 3 without writing anything,
// and the aggregation (repeats paired, failed runs left out) and seed ratios directly.
#include <gtest/gtest.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "harness/common/packed_files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/report/report_data.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/report/report_plotter.hpp"
#include "harness/report/report_seeds.hpp"
#include "harness/results/summary_checks.hpp"
#include "harness/results/results_reader.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

using namespace harness;

const std::vector<std::string> kFigures{"relative_task_time", "throughput", "task_time_distribution", "mps_speedup"};

/// A copy of a checked-in fixture folder in `tmp`.
fs::path copy_fixture(const TempDir& tmp, const std::string& name) {
  const fs::path dir = tmp / name;
  fs::copy(fixtures_dir() / name, dir, fs::copy_options::recursive);
  return dir;
}

/// The real `bench_mps report DIR [extra...]`, with the checked-in script and seeds unless `env` sets others.
CommandOutput report(const fs::path& dir, Env env = {}, const std::vector<std::string>& extra = {}) {
  env.unset.insert(env.unset.end(), {"BENCH_MPS_SEEDS", "BENCH_MPS_SCRIPTS"});
  std::vector<std::string> args{"report", dir.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_program(bench_mps_exe(), args, env, 300);
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    names.insert(fs::relative(entry.path(), dir).string());
  return names;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

/// The section of report.md from `heading` to the next "## " heading.
std::string section(const std::string& md, const std::string& heading) {
  const auto start = md.find(heading);
  if (start == std::string::npos) return "";
  const auto end = md.find("\n## ", start + heading.size());
  return md.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

/// A PNG: signature, IHDR first with a plausible figure size, and more than a few KB.
void expect_valid_png(const fs::path& file) {
  SCOPED_TRACE(file.string());
  ASSERT_TRUE(fs::is_regular_file(file));
  const std::string bytes = read_text(file);
  EXPECT_GT(bytes.size(), 10u * 1024) << "too small for a drawn figure";
  ASSERT_GE(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(big_endian(bytes, 8), 13u) << "IHDR length";
  EXPECT_EQ(bytes.substr(12, 4), "IHDR");
  const std::uint32_t width = big_endian(bytes, 16), height = big_endian(bytes, 20);
  EXPECT_GE(width, 400u);
  EXPECT_LE(width, 4000u);
  EXPECT_GE(height, 250u);
  EXPECT_LE(height, 4000u);
}

/// An SVG: well-formed XML whose root element is <svg> with a width, holding drawn paths.
void expect_valid_svg(const fs::path& file) {
  SCOPED_TRACE(file.string());
  ASSERT_TRUE(fs::is_regular_file(file));
  boost::property_tree::ptree tree;
  std::ifstream in(file);
  ASSERT_NO_THROW(boost::property_tree::read_xml(in, tree));
  ASSERT_EQ(tree.count("svg"), 1u);
  EXPECT_FALSE(tree.get<std::string>("svg.<xmlattr>.width", "").empty());
  EXPECT_NE(read_text(file).find("<path"), std::string::npos);
}

void replace_line(const fs::path& file, const std::string& starts_with, const std::string& replacement) {
  std::string text;
  bool found = false;
  for (const std::string& line : read_lines(file)) {
    if (line.rfind(starts_with, 0) == 0) {
      found = true;
      if (replacement.empty()) continue;
      text += replacement + "\n";
    } else {
      text += line + "\n";
    }
  }
  ASSERT_TRUE(found) << starts_with;
  write_text(file, text);
}

/// Leaves out the summary.csv rows of `runs` (run id and comma) and has meta.json record as many runs as
/// remain, as a sweep that never ran them would (a row count unlike meta.json's is a damaged folder).
void leave_out_runs(const fs::path& dir, const std::vector<std::string>& runs) {
  for (const std::string& run : runs) replace_line(dir / "summary.csv", run, "");
  nlohmann::json meta = nlohmann::json::parse(read_text(dir / "meta.json"));
  meta["runs_recorded"] = read_lines(dir / "summary.csv").size() - 1;
  write_text(dir / "meta.json", meta.dump(2) + "\n");
}

// ---- the H200 fixture, rendered by the real program ----

class ReportFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = copy_fixture(tmp_, "results_h200_smoke");
    out_ = report(dir_);
    ASSERT_EQ(out_.exit_code, 0) << out_.err;
    md_ = read_text(dir_ / "report.md");
  }
  TempDir tmp_;
  fs::path dir_;
  CommandOutput out_;
  std::string md_;
};

TEST_F(ReportFixture, WritesReportAndEveryFigure) {
  EXPECT_TRUE(fs::is_regular_file(dir_ / "report.md"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "plots" / "plot_data.json"));
  for (const auto& name : kFigures) {
    expect_valid_png(dir_ / "plots" / (name + ".png"));
    EXPECT_FALSE(fs::exists(dir_ / "plots" / (name + ".svg"))) << "one figure format: " << name;
    EXPECT_NE(md_.find("](plots/" + name + ".png)"), std::string::npos) << name;
  }
  for (const auto& name : listing(dir_)) EXPECT_EQ(name.find(".report-staging"), std::string::npos) << name;
}

// The fixture's tasks.csv keeps 100 of each run's 1000 tasks: the report says so, not silently.
TEST_F(ReportFixture, ATasksCsvShortOfTheSummarySaysSo) {
  EXPECT_NE(md_.find("**Note:** tasks.csv holds another number of tasks than summary.csv's tasks_total for 6 of 12 ok "
                     "runs (the first, run r1-timeslice-mlp-n1: 100 of 1000)"),
            std::string::npos)
      << md_.substr(0, 1500);
}

TEST(ReportTasksNote, RowsAddedAreNotCalledCutShort) {
  harness::SummaryRecord a, b;
  a.run_id = "r1-mps-cpu-n1";
  b.run_id = "r1-mps-cpu-n2";
  a.status = b.status = harness::RunStatus::ok;
  a.tasks_total = 2;
  b.tasks_total = 2;
  const auto tasks = [](std::vector<std::pair<std::string, int>> counts) {
    std::vector<harness::TaskSample> out;
    for (const auto& [id, n] : counts)
      for (int i = 0; i < n; ++i) out.push_back({id, 0, i, 0, 1});
    return out;
  };
  EXPECT_EQ(harness::tasks_short_of_summary({a, b}, tasks({{a.run_id, 2}, {b.run_id, 2}})), "");
  EXPECT_NE(harness::tasks_short_of_summary({a, b}, tasks({{a.run_id, 1}, {b.run_id, 2}})).find("a file cut short"),
            std::string::npos);
  EXPECT_NE(
      harness::tasks_short_of_summary({a, b}, tasks({{a.run_id, 4}, {b.run_id, 2}})).find("rows repeated or added"),
      std::string::npos);
  EXPECT_NE(harness::tasks_short_of_summary({a, b}, tasks({{a.run_id, 4}, {b.run_id, 1}})).find("missing for some"),
            std::string::npos);
}

TEST_F(ReportFixture, VerdictNamesGpuDriverAndMeasuredRatios) {
  const std::string verdict = first_line(md_);
  EXPECT_EQ(verdict.rfind("On NVIDIA H200 (driver 580.159.04), ", 0), 0u) << verdict;
  // spin at N=10: 92.97609 / 98.46892 time-sliced, 954.762 / 98.34245 with MPS (summary.csv).
  EXPECT_NE(
      verdict.find(
          "10 processes time-sliced ran at 0.94x the throughput of one process in the same mode for spin while MPS "
          "reached 9.71x"),
      std::string::npos)
      << verdict;
  // mlp at N=10: 4456.526 / 7889.41 and 29603.6 / 7220.187.
  EXPECT_NE(verdict.find("0.56x time-sliced and 4.10x with MPS"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("(all 12 runs ok)."), std::string::npos) << verdict;
}

TEST_F(ReportFixture, DescribesTheMachineFromMeta) {
  const std::string machine = section(md_, "## Machine");
  for (const char* fact : {"NVIDIA H200", "132 SMs", "580.159.04", "CUDA driver API 13.0", "Linux 6.18.44-fc-v657-gpu",
                           "--procs 1,4,10", "status complete", "per worker: mlp 1000 tasks, spin 30 tasks"})
    EXPECT_NE(machine.find(fact), std::string::npos) << fact << "\n" << machine;
}

TEST(ReportMeta, RunLengthsInSecondsOrTasks) {
  nlohmann::json meta = {{"sweep",
                          {{"procs", {1, 4}},
                           {"tasks_per_worker", {{"mlp", 0}, {"spin", 30}}},
                           {"seconds_per_worker", {{"mlp", 0.5}, {"spin", 0.0}}}}}};
  const std::string md = harness::machine_markdown(meta.get<harness::SweepMeta>());
  EXPECT_NE(md.find("per worker: mlp 0.5 s, spin 30 tasks"), std::string::npos) << md;
}

// The machine table reads SweepMeta's members as members; a value of another type, which SweepMeta keeps in
// its section's `other`, shows as it was written, and a null GPU is a CPU-only run.
TEST(ReportMeta, ReadsMembersAndShowsWhatASectionKept) {
  const auto meta = nlohmann::json{
      {"gpu", {{"name", "NVIDIA X"}, {"driver_version", "1.2"}, {"sm_count", "many"}, {"cuda_runtime_version", 12080}}},
      {"sweep", {{"procs", {1, 4}}, {"repeats", 3}, {"params", {{"mlp", "batch=1"}}}}},
      {"argv", {"bench_mps", "--procs", "1,4"}},
      {"status",
       "complete"}}.get<harness::SweepMeta>();
  ASSERT_TRUE(meta.sweep && meta.sweep->procs && meta.gpu && !meta.gpu->sm_count);
  const std::string md = harness::machine_markdown(meta);
  for (const char* fact : {"NVIDIA X (many SMs", "runtime 12.8)", "N = 1, 4; repeats 3", "`bench_mps --procs 1,4`",
                           "status complete", "| Workload parameters | mlp: batch=1 |"})
    EXPECT_NE(md.find(fact), std::string::npos) << fact << "\n" << md;
  EXPECT_EQ(harness::gpu_and_driver(meta), "NVIDIA X (driver 1.2)");
  EXPECT_EQ(harness::workload_params(meta, "mlp"), "batch=1");
  EXPECT_EQ(harness::workload_params(meta, "spin"), "-");
  const auto cpu_only = nlohmann::json{{"gpu", nullptr}, {"sweep", nlohmann::json::object()}}.get<harness::SweepMeta>();
  EXPECT_EQ(harness::gpu_and_driver(cpu_only), "no GPU (CPU-only run)");
  EXPECT_NE(harness::machine_markdown(cpu_only).find("| GPU | none (CPU-only run) |"), std::string::npos);
}

TEST_F(ReportFixture, TableHasEveryConfigurationWithRatios) {
  const std::string table = section(md_, "## Per workload, mode and N");
  // From the fixture's summary.csv: spin time-sliced N=10 107.3 ms over N=1 10.146 ms (10.57x, both
  // bases agree for time-sliced rows); mlp mps N=4 0.1800 ms over time-sliced N=1 0.1264 ms (1.42x) and
  // over mps N=1 0.1381 ms (1.30x); throughput 20932 over mps N=1 7220 (2.90x) and time-sliced N=4 4452 (4.70x).
  EXPECT_NE(table.find("| spin | timeslice | 10 | 1/1 | 107.3 | 107.6 | 92.98 | 10.57x | 10.57x | 0.94x |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| spin | mps | 10 | 1/1 | 10.45 | 10.54 | 954.8 | 1.03x | 1.03x | 9.71x | 10.27x |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| mlp | mps | 4 | 1/1 | 0.1800 | 0.2248 | 20932 | 1.42x | 1.30x | 2.90x | 4.70x |"),
            std::string::npos)
      << table;
  int rows = 0;
  for (std::size_t at = table.find("\n| spin |"); at != std::string::npos; at = table.find("\n| spin |", at + 1))
    ++rows;
  for (std::size_t at = table.find("\n| mlp |"); at != std::string::npos; at = table.find("\n| mlp |", at + 1)) ++rows;
  EXPECT_EQ(rows, 12);
}

TEST_F(ReportFixture, SeedTableHoldsTheArticlesFiguresBesideOurs) {
  const std::string seeds = section(md_, "## Beside the seed articles");
  // V100: 20 s / 5 s; P100: 221/80, 124/80, 136/80, 86/80; T4: median of five / alone. Ours on the same
  // basis (over time-sliced N=1); P100 timed completion and neither series runs fixed work: per-task (†),
  // and the gpu-bound mlp is not bold (a different regime from the seed's).
  for (const char* row :
       {"| 4 | timeslice | 4.00 | 4.23 | 7.09 |", "| 10 | timeslice | 2.76 | 10.57† | 17.73† |",
        "| 10 | mps | 1.55 | 1.03† | 2.64† |", "| 5 | timeslice | 1.70 | - | - |", "| 5 | mps | 1.07 | - | - |",
        "| 5 | timeslice | 6.12 | - | - |", "| 5 | mps | 1.14 | - | - |"})
    EXPECT_NE(seeds.find(row), std::string::npos) << row << "\n" << seeds;
  EXPECT_NE(seeds.find("seed 000_d625ae77288c1e03.txt"), std::string::npos);
  EXPECT_NE(seeds.find("seed 001_506f2221bdea02c7.txt"), std::string::npos);
  EXPECT_NE(seeds.find("https://github.com/Oakwoo/seed-emulator/"), std::string::npos);
}

TEST_F(ReportFixture, RerunReplacesThePlots) {
  write_text(dir_ / "plots" / "stale.png", "old");
  const CommandOutput again = report(dir_);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(fs::exists(dir_ / "plots" / "stale.png"));
  for (const auto& name : kFigures) expect_valid_png(dir_ / "plots" / (name + ".png"));
  EXPECT_EQ(read_text(dir_ / "report.md"), md_);
}

// ---- partial and failed folders ----

TEST(Report, FailedRunsAreCountedAndLeftOut) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  replace_line(
      dir / "summary.csv", "r1-mps-spin-n10,",
      "r1-mps-spin-n10,1,spin,blocks=4;threads=256;launch_us=100;launches=100,mps,100,10,timeout,"
      "\"worker 3: no DONE within 300 s\",9,270,0.31,870,10.4,10.4,10.5,1.02,0.99,0.58,1980,129,6143082496,132");
  const CommandOutput out = report(dir);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string md = read_text(dir / "report.md");
  const std::string verdict = first_line(md);
  // spin falls back to N=4, the largest N with both modes ok.
  EXPECT_NE(
      verdict.find(
          "4 processes time-sliced ran at 0.94x the throughput of one process in the same mode for spin while MPS "
          "reached 3.94x"),
      std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find("(1 of 12 runs failed and are left out)."), std::string::npos) << verdict;
  EXPECT_NE(md.find("| spin | mps | 10 | 0/1 | - | - | - | - | - | - |"), std::string::npos) << md;
  EXPECT_NE(section(md, "## Failed runs").find("`r1-mps-spin-n10`: timeout (worker 3: no DONE within 300 s)"),
            std::string::npos);
}

TEST(Report, WithoutN1RatiosAreDashes) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  leave_out_runs(dir, {"r1-timeslice-spin-n1,", "r1-timeslice-mlp-n1,", "r1-mps-spin-n1,", "r1-mps-mlp-n1,"});
  const CommandOutput out = report(dir);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string md = read_text(dir / "report.md");
  EXPECT_NE(first_line(md).find("MPS ran 10 processes at 10.27x the throughput of time-slicing for spin"),
            std::string::npos)
      << first_line(md);
  EXPECT_NE(md.find("| spin | timeslice | 4 | 1/1 | 42.91 | 43.02 | 92.99 | - | - | - |   |"), std::string::npos) << md;
  EXPECT_NE(section(md, "## Beside the seed articles").find("| 4 | timeslice | 4.00 | - | - |"), std::string::npos);
  // Nothing of this folder to divide by N=1: no relative figure (the seeds alone are not its data), said so.
  for (const auto& name : kFigures)
    if (name != "relative_task_time") expect_valid_png(dir / "plots" / (name + ".png"));
  EXPECT_FALSE(fs::exists(dir / "plots" / "relative_task_time.png"));
  EXPECT_NE(md.find("Not drawn: Per-task time over one process alone, time-sliced: no ok run has a time-sliced N=1"),
            std::string::npos);
}

TEST(Report, OnlyOneModeDrawsNoSpeedupFigure) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  leave_out_runs(dir, {"r1-mps-spin-n1,", "r1-mps-spin-n4,", "r1-mps-spin-n10,", "r1-mps-mlp-n1,", "r1-mps-mlp-n4,",
                       "r1-mps-mlp-n10,"});
  const CommandOutput out = report(dir);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string md = read_text(dir / "report.md");
  EXPECT_NE(first_line(md).find(
                "10 processes time-sliced ran at 0.94x the throughput of one process in the same mode for spin"),
            std::string::npos)
      << first_line(md);
  EXPECT_FALSE(fs::exists(dir / "plots" / "mps_speedup.png"));
  EXPECT_NE(md.find("Not drawn: MPS throughput over time-slicing"), std::string::npos);
  expect_valid_png(dir / "plots" / "throughput.png");
}

TEST(Report, CpuOnlyRunWithOwnSeedsFile) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  nlohmann::json meta = nlohmann::json::parse(read_text(dir / "meta.json"));
  meta["gpu"] = nullptr;  // what a CPU-only test sweep records
  write_text(dir / "meta.json", meta.dump(2));
  write_text(tmp / "seeds.csv",
             "source_id,title,reference,gpu,their_workload,workload_kind,procs,mode,value,unit,metric,note\n"
             "mine,My note,https://example.org/x,Some GPU,a loop,spin,1,timeslice,2,s,kernel_time,alone\n"
             "mine,My note,https://example.org/x,Some GPU,a loop,spin,4,mps,3,s,kernel_time,four\n");
  const CommandOutput out = report(dir, {}, {"--seeds", (tmp / "seeds.csv").string()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string md = read_text(dir / "report.md");
  EXPECT_EQ(first_line(md).rfind("On no GPU (CPU-only run), ", 0), 0u) << first_line(md);
  const std::string seeds = section(md, "## Beside the seed articles");
  EXPECT_NE(seeds.find("| mine | Some GPU | a loop | 4 | mps | 1.50 | **1.01** | 1.42 |"), std::string::npos) << seeds;
  EXPECT_EQ(seeds.find("p100_qiita"), std::string::npos);
  expect_valid_png(dir / "plots" / "relative_task_time.png");
}

TEST(Report, AConformComparisonIsNamedNotCalledEmpty) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "conform-cmp";
  fs::create_directories(dir);
  write_text(dir / "conform_comparison.csv", "lever,base,new\n");
  write_text(dir / "conform_comparison.md", "# a conform comparison\n");
  const CommandOutput out = report(dir);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("a comparison of two conform folders"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("conform_comparison.md"), std::string::npos) << out.err;
  EXPECT_FALSE(fs::exists(dir / "report.md"));
}

TEST(Report, AnAdviseFolderIsNamedNotReportedAsAFleet) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "advise";
  fs::create_directories(dir / "sweeps");
  fs::copy(copy_fixture(tmp, "results_h200_smoke"), dir / "sweeps" / "alone", fs::copy_options::recursive);
  write_text(dir / "advice.json", "{}\n");
  const CommandOutput out = report(dir);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("an advise folder, whose report is its advice.md"), std::string::npos) << out.err;
  EXPECT_FALSE(fs::exists(dir / "report.md"));
}

TEST(Report, BlankSeedsFileIsRefused) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  for (const std::string blank : {"", " "}) {
    const CommandOutput out = report(dir, {}, {"--seeds", blank});
    EXPECT_EQ(out.exit_code, 2) << "'" << blank << "'";
    EXPECT_NE(out.err.find("--seeds: it is empty"), std::string::npos) << out.err;
    EXPECT_FALSE(fs::exists(dir / "report.md"));
  }
}

TEST(Report, ImpossibleValuesInSummaryAreRefused) {
  struct Case {
    std::string column, value, why;
  };
  for (const Case& c : std::vector<Case>{{"makespan_s", "-1", "is negative"},
                                         {"makespan_s", "nan", "is not a finite number"},
                                         {"makespan_s", "inf", "is not a finite number"},
                                         {"workers_ok", "-1", "is negative"},
                                         {"tasks_total", "-5", "is negative"},
                                         {"sm_count_seen", "-1", "is negative"}}) {
    TempDir tmp;
    const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
    set_csv_cell(dir / "summary.csv", 1, c.column, c.value);
    const CommandOutput out = report(dir);
    EXPECT_EQ(out.exit_code, 2) << c.column << "=" << c.value << ": " << out.err;
    EXPECT_NE(out.err.find(c.column), std::string::npos) << out.err;
    EXPECT_NE(out.err.find(c.why), std::string::npos) << out.err;
    EXPECT_FALSE(fs::exists(dir / "report.md")) << c.column << "=" << c.value;
  }
}

TEST(Report, MembwTableIsTheBytesTheRunsMovedAgainstThePeakTheWorkersRead) {
  // The committed H100 membw run (timeslice and mps, N=1,2,4, 3 repeats): the report's GB/s are
  // derived here again from summary.csv (tasks/s x bytes per task, median over repeats) and runs.csv
  // (the peak each worker read), so the GPU-only workload's report path is checked without a GPU.
  const fs::path source = source_dir() / "results" / "2026-11-24-h100-80gb-hbm3-mechanisms" / "membw";
  TempDir tmp;
  const fs::path dir = tmp / "membw";
  fs::create_directories(dir);
  for (const char* f : {"meta.json", "summary.csv", "runs.csv", "tasks.csv"}) {
    const fs::path packed = harness::packed_copy(source / f);  // committed packed where it is big
    fs::copy_file(packed.empty() ? source / f : packed, packed.empty() ? dir / f : dir / packed.filename());
  }
  ASSERT_EQ(report(dir).exit_code, 0);
  const std::string table = section(read_text(dir / "report.md"), "## Memory bandwidth (membw)");
  double peak = NAN;
  for (const harness::WorkerRecord& w : harness::read_runs(dir / "runs.csv"))
    if (w.workload == "membw") peak = w.fact("peak_gbps");
  ASSERT_TRUE(std::isfinite(peak));
  std::map<std::pair<std::string, int>, std::vector<double>> gbps;
  for (const auto& row : csv_records(dir / "summary.csv"))
    gbps[{row.at("mode"), std::stoi(row.at("procs"))}].push_back(
        std::stod(row.at("throughput_tasks_per_s")) * harness::membw_bytes_per_task("membw", row.at("params")) * 1e-9);
  ASSERT_EQ(gbps.size(), 6u);
  for (const auto& [key, values] : gbps) {
    const std::string prefix = "| " + key.first + " | " + std::to_string(key.second) + " | ";
    const auto at = table.find(prefix);
    ASSERT_NE(at, std::string::npos) << prefix << "\n" << table;
    const std::string line = table.substr(at, table.find('\n', at) - at);
    const std::vector<std::string> cells = harness::split(line, '|');
    const double shown = std::stod(cells.at(3)), share = std::stod(cells.at(4));
    const double expected = harness::median(values);
    EXPECT_NEAR(shown, expected, 0.0005 * expected) << line;  // four significant digits
    EXPECT_NEAR(share, expected / peak, 0.005) << line;
  }
}

TEST(Report, ImpossibleValuesInAFaultFolderAreRefused) {
  // The committed H100 fault run's meta.json and summary.csv (its report reads no other file it needs).
  const fs::path source = source_dir() / "results" / "2026-11-24-h100-80gb-hbm3-fault";
  for (const auto& [column, value, why] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"victim_slowdown", "-2", "is negative"},
           {"mps_recovery_s", "nan", "is not a finite number"},
           {"victims", "-3", "is negative"},
           {"procs", "0", "not a positive integer"},
           // a review found these reported ("396/12 victims survived", "ran again 1e+308 s after the fault")
           {"victims_survived", "99", "of victims 3, of N=4 (at most N-1 victims"},
           {"mps_recovery_s", "1e308", "(longer than any run lasts)"}}) {
    TempDir tmp;
    const fs::path dir = tmp / "fault";
    fs::create_directories(dir);
    for (const char* f : {"meta.json", "summary.csv"}) fs::copy_file(source / f, dir / f);
    ASSERT_EQ(report(dir).exit_code, 0) << "the unedited folder reports";
    fs::remove(dir / "report.md");
    set_csv_cell(dir / "summary.csv", 2, column, value);  // row 1 is a baseline run, row 2 the first fault run
    const CommandOutput out = report(dir);
    EXPECT_EQ(out.exit_code, 2) << column << "=" << value << ": " << out.err;
    EXPECT_NE(out.err.find(column), std::string::npos) << out.err;
    EXPECT_NE(out.err.find(why), std::string::npos) << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
    EXPECT_FALSE(fs::exists(dir / "report.md")) << column << "=" << value;
  }
}

// A scenario meta.json does not know, or rows of another scenario than it names: refused, not rendered as a plain
// sweep (a review found a fault folder relabelled reported as "MPS ran 4 processes at 11.54x").
TEST(Report, AScenarioItsRowsDoNotFitIsRefused) {
  const fs::path source = source_dir() / "results" / "2026-11-24-h100-80gb-hbm3-fault";
  for (const auto& [scenario, says] : std::vector<std::pair<std::string, std::string>>{
           {"bogus", "meta.json: sweep.scenario 'bogus' is no scenario this bench_mps knows"},
           {"sweep",
            "is a 'fault_baseline' run, which a sweep of scenario 'sweep' (meta.json's sweep.scenario) never "
            "records"},
           {"xray", "which a sweep of scenario 'xray'"}}) {
    TempDir tmp;
    const fs::path dir = tmp / "fault";
    fs::create_directories(dir);
    for (const char* f : {"meta.json", "summary.csv", "runs.csv", "tasks.csv.gz"}) fs::copy_file(source / f, dir / f);
    nlohmann::json meta = nlohmann::json::parse(read_text(dir / "meta.json"));
    meta["sweep"]["scenario"] = scenario;
    write_text(dir / "meta.json", meta.dump(2));
    const CommandOutput out = report(dir);
    EXPECT_EQ(out.exit_code, 2) << scenario << ": " << out.err;
    EXPECT_NE(out.err.find(says), std::string::npos) << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
    EXPECT_FALSE(fs::exists(dir / "report.md")) << scenario;
  }
}

// A plain sweep's rows under a meta.json that says fault: named as plain runs (a review found "a '' run").
TEST(Report, APlainRowUnderAnotherScenarioIsNamedPlain) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  nlohmann::json meta = nlohmann::json::parse(read_text(dir / "meta.json"));
  meta["sweep"]["scenario"] = "fault";
  write_text(dir / "meta.json", meta.dump(2));
  const CommandOutput out = report(dir);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("is a 'plain' run, which a sweep of scenario 'fault'"), std::string::npos) << out.err;
  EXPECT_FALSE(fs::exists(dir / "report.md"));
}

TEST(Report, AValueOfTheWrongTypeDeepInMetaJsonNamesTheFile) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  nlohmann::json meta = nlohmann::json::parse(read_text(dir / "meta.json"));
  meta["sweep"]["scenario"] = 5;  // read while the report decides which report it renders
  write_text(dir / "meta.json", meta.dump(2));
  const CommandOutput out = report(dir);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find((dir / "meta.json").string() + ": sweep.scenario is 5, not a string: the file is damaged"),
            std::string::npos)
      << out.err;
  EXPECT_EQ(out.err.find("json.exception"), std::string::npos) << "the library's own prefix: " << out.err;
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_FALSE(fs::exists(dir / "report.md"));
}

TEST(Report, MetaJsonWithWrongTypesNamesTheFile) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  nlohmann::json meta = nlohmann::json::parse(read_text(dir / "meta.json"));
  meta["sweep"] = "five repeats";
  write_text(dir / "meta.json", meta.dump(2));
  const CommandOutput out = report(dir);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find((dir / "meta.json").string()), std::string::npos) << out.err;
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_FALSE(fs::exists(dir / "report.md"));
}

// ---- folders it cannot use: exit 2, one line, nothing written ----

struct BadFolder {
  std::string name;
  std::function<void(const fs::path&)> damage;
  std::string message;  ///< part of the one line printed
};

void PrintTo(const BadFolder& folder, std::ostream* out) { *out << folder.name; }

class ReportBadFolder : public ::testing::TestWithParam<BadFolder> {};

TEST_P(ReportBadFolder, ExitsTwoWithOneLineAndWritesNothing) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  GetParam().damage(dir);
  const auto before = listing(dir);
  const CommandOutput out = report(dir);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  ASSERT_FALSE(out.err.empty());
  EXPECT_EQ(out.err.find('\n'), out.err.size() - 1) << "one line: " << out.err;
  EXPECT_NE(out.err.find(GetParam().message), std::string::npos) << out.err;
  EXPECT_EQ(listing(dir), before);
}

INSTANTIATE_TEST_SUITE_P(
    Folders, ReportBadFolder,
    ::testing::Values(
        BadFolder{"MissingSummary", [](const fs::path& d) { fs::remove(d / "summary.csv"); },
                  "summary.csv: no such file"},
        BadFolder{"GarbageSummary",
                  [](const fs::path& d) { write_text(d / "summary.csv", "\x01\x02 not,a\ncsv \"at all\n"); },
                  "summary.csv"},
        BadFolder{"TornSummaryRow",
                  [](const fs::path& d) {
                    std::ofstream(d / "summary.csv", std::ios::app) << "r2-mps-spin-n4,2,spin,x,mps,100,4,ok\n";
                  },
                  "summary.csv"},
        BadFolder{"WrongSchemaVersion",
                  [](const fs::path& d) {
                    replace_line(d / "meta.json", "  \"schema_version\"", "  \"schema_version\": 99,");
                  },
                  "schema version 99"},
        BadFolder{"MissingMeta", [](const fs::path& d) { fs::remove(d / "meta.json"); }, "meta.json: no such file"},
        BadFolder{"MissingTasks", [](const fs::path& d) { fs::remove(d / "tasks.csv"); }, "tasks.csv: no such file"}),
    [](const ::testing::TestParamInfo<BadFolder>& p) { return p.param.name; });

TEST(Report, NotAFolderExitsTwo) {
  TempDir tmp;
  const CommandOutput out = report(tmp / "absent");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.err.find("absent: no such folder"), std::string::npos) << out.err;
  write_text(tmp / "a-file", "x");
  const CommandOutput file = report(tmp / "a-file");
  EXPECT_EQ(file.exit_code, 2);
  EXPECT_NE(file.err.find("a-file: not a folder"), std::string::npos) << file.err;
}

TEST(Report, WithoutMatplotlibExitsThreeAndWritesNothing) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  const auto before = listing(dir);
  const CommandOutput out = report(dir, {{{"BENCH_MPS_PYTHON", "/bin/false"}}, {}});
  EXPECT_EQ(out.exit_code, 3) << out.err;
  EXPECT_EQ(out.err.find('\n'), out.err.size() - 1) << "one line: " << out.err;
  EXPECT_NE(out.err.find("matplotlib"), std::string::npos) << out.err;
  EXPECT_EQ(listing(dir), before);
}

TEST(Report, FailingPlotScriptWritesNothing) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "results_h200_smoke");
  fs::create_directories(tmp / "scripts");
  write_text(tmp / "scripts" / "plot_report.py", "import sys\nprint('plot exploded', file=sys.stderr)\nsys.exit(7)\n");
  const auto before = listing(dir);
  const CommandOutput out = report(dir, {{{"BENCH_MPS_SCRIPTS", (tmp / "scripts").string()}}, {}});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_NE(out.err.find("plot exploded"), std::string::npos) << out.err;
  EXPECT_EQ(listing(dir), before);
}

// ---- comparison folders ----

TEST(ReportComparison, DrawsTheChangeChartAndTable) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "comparison_small");
  const CommandOutput out = report(dir);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  expect_valid_png(dir / "plots" / "comparison.png");
  EXPECT_FALSE(fs::exists(dir / "plots" / "comparison.svg"));
  // A vector copy, drawn again from the folder's plot_data.json when one is wanted (docs/REPORT.md).
  const CommandOutput svg = run_program(
      harness::find_plot_python(),
      {harness::plot_script().string(), (dir / "plots" / "plot_data.json").string(), tmp.path().string(), "--svg"}, {},
      120);
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  expect_valid_png(tmp / "comparison.png");
  expect_valid_svg(tmp / "comparison.svg");
  const std::string md = read_text(dir / "report.md");
  const std::string verdict = first_line(md);
  EXPECT_NE(verdict.find("Comparing NEW results/2026-11-22-h200 with BASE results/2026-11-21-h200 on throughput"),
            std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find("1 FASTER, 1 SLOWER, 2 SAME, 2 UNSURE, of 6 pairs (threshold ±5.0%, alpha 0.05)"),
            std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find("SM clocks differ by more than 2% in 1 of them"), std::string::npos) << verdict;
  EXPECT_NE(md.find("](plots/comparison.png)"), std::string::npos);
  EXPECT_NE(md.find("| gpu.driver_version | 575.57.08 | 580.159.04 | yes |"), std::string::npos) << md;
  EXPECT_NE(md.find("| gpu.name | NVIDIA H200 | NVIDIA H200 | no |"), std::string::npos) << "false said: " << md;
  EXPECT_NE(md.find("| 10 | throughput_tasks_per_s | 3 | 954.8 | 1.1% | 3 | 1082 | 2.0% | +13.3% | 0.0495 | "
                    "FASTER | yes |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| -8.8% | - | UNSURE |"), std::string::npos) << md;
  EXPECT_FALSE(fs::exists(dir / "plots" / "relative_task_time.png"));
}

TEST(ReportComparison, BadVerdictExitsTwo) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "comparison_small");
  replace_line(dir / "comparison.csv", "spin,blocks=4;threads=256;launch_us=100;launches=100,timeslice,,1,",
               "spin,p,timeslice,,1,throughput_tasks_per_s,3,98,0,3,98,0,0,0.6,MAYBE,0");
  const auto before = listing(dir);
  const CommandOutput out = report(dir);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("verdict 'MAYBE'"), std::string::npos) << out.err;
  EXPECT_EQ(listing(dir), before);
}

TEST(ReportComparison, MissingJsonExitsTwo) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "comparison_small");
  fs::remove(dir / "comparison.json");
  const CommandOutput out = report(dir);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("comparison.json: no such file"), std::string::npos) << out.err;
  EXPECT_FALSE(fs::exists(dir / "report.md"));
}

TEST(ReportComparison, OtherFormatVersionExitsTwo) {
  TempDir tmp;
  const fs::path dir = copy_fixture(tmp, "comparison_small");
  replace_line(dir / "comparison.json", "  \"format_version\": 1,", "  \"format_version\": 99,");
  const auto before = listing(dir);
  const CommandOutput out = report(dir);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("comparison.json: format version 99, this bench_mps reads 1"), std::string::npos) << out.err;
  EXPECT_EQ(listing(dir), before);
}

TEST(PlotScript, RefusesPlotDataOfAnotherVersion) {
  std::string python;
  try {
    python = harness::find_plot_python();
  } catch (const std::exception& e) {
    GTEST_SKIP() << e.what();
  }
  TempDir tmp;
  write_text(tmp / "plot_data.json", "{\"format_version\": 99, \"figures\": []}");
  const CommandOutput out = run_program(python, {(source_dir() / "scripts" / "plot_report.py").string(),
                                                 (tmp / "plot_data.json").string(), tmp.path().string()});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("format version 99, this script reads 1"), std::string::npos) << out.err;
}

namespace readme {
/// The markdown table of `report`'s section `heading` (its lines that start with '|').
std::string section_table(const std::string& report, const std::string& heading) {
  const auto at = report.find("## " + heading + "\n");
  if (at == std::string::npos) return "(no section \"" + heading + "\")";
  std::string table;
  for (const std::string& line : harness::split(report.substr(at, report.find("\n## ", at + 1) - at), '\n'))
    if (line.rfind("|", 0) == 0) table += line + "\n";
  return table;
}
struct Block {
  std::string kind, spec, body;
};
/// Every `<!-- KIND: SPEC -->\n...<!-- /KIND -->` block of `text`.
std::vector<Block> blocks(const std::string& text, const std::string& kind) {
  std::vector<Block> found;
  const std::string open = "<!-- " + kind + ": ", close = "<!-- /" + kind + " -->";
  for (auto at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    const auto spec_end = text.find(" -->\n", at);
    const auto end = text.find(close, spec_end);
    if (spec_end == std::string::npos || end == std::string::npos) {
      found.push_back({kind, "(unterminated)", ""});
      break;
    }
    found.push_back({kind, text.substr(at + open.size(), spec_end - at - open.size()),
                     text.substr(spec_end + 5, end - spec_end - 5)});
  }
  return found;
}
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
}  // namespace readme

// README.md's results are generated (scripts/update_readme.py): each table block is a committed report's
// table, each headline block its first line. Changing one number in either makes this fail.
TEST(Readme, EveryGeneratedBlockIsTheCommittedReports) {
  for (const char* doc : {"README.md", "docs/PREDICT.md", "docs/ADVISE.md", "docs/FINDINGS.md"}) {
    const std::string text = read_text(source_dir() / doc);
    const auto tables = readme::blocks(text, "table"), headlines = readme::blocks(text, "headline");
    ASSERT_FALSE(headlines.empty()) << doc << " has no generated headline";
    for (const auto& list : {tables, headlines}) {
      for (const readme::Block& b : list) {
        const auto bar = b.spec.find('|');
        const std::string report_md = readme::trim(b.spec.substr(0, bar));
        ASSERT_TRUE(fs::exists(source_dir() / report_md))
            << "README.md names " << report_md << ", which is not committed";
        const std::string report = read_text(source_dir() / report_md);
        const std::string expected =
            b.kind == "headline"
                ? report.substr(0, report.find('\n')) + "\n"
                : readme::section_table(report, bar == std::string::npos ? "Per workload, mode and N"
                                                                         : readme::trim(b.spec.substr(bar + 1)));
        EXPECT_EQ(b.body, expected) << doc << "'s " << b.kind << " from " << b.spec
                                    << " differs from the committed report: run scripts/update_readme.py";
      }
    }
    for (const readme::Block& b : readme::blocks(text, "advice")) {  // an advice's bold headline, quoted
      const fs::path advice = source_dir() / readme::trim(b.spec);
      ASSERT_TRUE(fs::exists(advice)) << doc << " names " << b.spec << ", which is not committed";
      std::string headline = "(no headline)";
      for (const std::string& line : harness::split(read_text(advice), '\n'))
        if (line.size() > 4 && line.rfind("**", 0) == 0 && line.substr(line.size() - 2) == "**") {
          headline = line;
          break;
        }
      EXPECT_EQ(b.body, "> " + headline + "\n") << doc << "'s advice block from " << b.spec
                                                << " differs from the committed advice: run scripts/update_readme.py";
    }
  }
}

// ---- the computations, directly ----

SummaryRecord run(int repeat, const std::string& mode, int procs, double task_ms, double tput,
                  const std::string& status = "ok") {
  SummaryRecord r;
  r.run_id = "r" + std::to_string(repeat) + "-" + mode + "-spin-n" + std::to_string(procs);
  r.repeat = repeat;
  r.workload = "spin";
  r.params = "p";
  r.mode = mode;
  r.procs = procs;
  r.status = *harness::parse_run_status(status);
  r.task_mean_ms = task_ms;
  r.throughput_tasks_per_s = tput;
  return r;
}

TEST(ReportData, ARangeReachesItsPointWhenUnpairedRepeatsMoveTheMedians) {
  // Repeats 3-5 of time-sliced N=4 were added for the noise target: no N=1 run of theirs to pair with.
  const std::vector<SummaryRecord> rows{run(1, "timeslice", 1, 10, 100), run(2, "timeslice", 1, 10, 100),
                                        run(1, "timeslice", 4, 40, 100), run(2, "timeslice", 4, 40, 100),
                                        run(3, "timeslice", 4, 100, 40), run(4, "timeslice", 4, 100, 40),
                                        run(5, "timeslice", 4, 100, 40)};
  const ReportCell* ts4 = aggregate_results(rows, {}).find("spin", "timeslice", 4);
  ASSERT_NE(ts4, nullptr);
  EXPECT_DOUBLE_EQ(ts4->relative_task_time.median, 10);  // the medians shown: 100 ms over 10 ms
  EXPECT_DOUBLE_EQ(ts4->relative_task_time.min, 4);      // the paired repeats' ratio
  EXPECT_DOUBLE_EQ(ts4->relative_task_time.max, 10);     // reaches the point (the figure's error bar needs it)
}

TEST(ReportData, RatiosPairRepeatsAndSkipFailedRuns) {
  const std::vector<SummaryRecord> rows{
      run(1, "mps", 4, 12, 330),       run(1, "timeslice", 1, 10, 100), run(2, "timeslice", 1, 20, 50),
      run(1, "timeslice", 4, 40, 100), run(2, "timeslice", 4, 100, 40), run(3, "timeslice", 4, 1, 1, "crashed"),
      run(2, "mps", 4, 30, 120),       run(1, "mps", 1, 10, 100),       run(2, "mps", 1, 20, 50)};
  const std::vector<TaskSample> tasks{{"r1-timeslice-spin-n4", 0, 0, 0, 39},
                                      {"r1-timeslice-spin-n4", 1, 0, 0, 41},
                                      {"r3-timeslice-spin-n4", 0, 0, 0, 999},
                                      {"unknown", 0, 0, 0, 5}};
  const ReportData data = aggregate_results(rows, tasks);
  ASSERT_EQ(data.modes, (std::vector<std::string>{"timeslice", "mps"}));
  ASSERT_EQ(data.procs, (std::vector<int>{1, 4}));
  EXPECT_EQ(data.runs_total, 9);
  ASSERT_EQ(data.failed.size(), 1u);
  EXPECT_EQ(data.failed[0].status, "crashed");

  const ReportCell* ts4 = data.find("spin", "timeslice", 4);
  ASSERT_NE(ts4, nullptr);
  EXPECT_EQ(ts4->runs, 3);
  EXPECT_EQ(ts4->failed, 1);
  EXPECT_EQ(ts4->throughput.count, 2);
  EXPECT_DOUBLE_EQ(ts4->throughput.median, 70);
  // Repeat 1: 40/10 = 4, repeat 2: 100/20 = 5 (each against its own repeat's N=1).
  EXPECT_DOUBLE_EQ(ts4->relative_task_time.min, 4);
  EXPECT_DOUBLE_EQ(ts4->relative_task_time.max, 5);
  // The point is the ratio of the medians the report prints beside it (issue 21), not the median of the
  // per-repeat ratios (4.5, which would contradict the cells 70 ms and 15 ms shown beside it).
  EXPECT_DOUBLE_EQ(ts4->relative_task_time.median, 70.0 / 15.0);
  EXPECT_DOUBLE_EQ(ts4->relative_throughput.median, 70.0 / 75.0);
  // Tasks of the crashed run and of unknown runs are not counted.
  EXPECT_EQ(ts4->tasks.count, 2);
  EXPECT_DOUBLE_EQ(ts4->tasks.p50, 40);
  EXPECT_DOUBLE_EQ(ts4->tasks.max, 41);

  const ReportCell* mps4 = data.find("spin", "mps", 4);
  ASSERT_NE(mps4, nullptr);
  // Repeat 1: 330/100 = 3.3, repeat 2: 120/40 = 3.
  EXPECT_DOUBLE_EQ(mps4->speedup_vs_timeslice.min, 3);
  EXPECT_DOUBLE_EQ(mps4->speedup_vs_timeslice.max, 3.3);
  EXPECT_DOUBLE_EQ(mps4->speedup_vs_timeslice.median, 225.0 / 70.0);  // medians 225 and 70 tasks/s
  EXPECT_TRUE(std::isnan(data.find("spin", "timeslice", 1)->speedup_vs_timeslice.median));
  EXPECT_EQ(data.find("spin", "mps", 10), nullptr);
}

// An exec sweep's alone run of repeat 1 failed and its other alone runs (repeats 2 and 3, added for the anchor's
// spread) ran ok: N=2 of repeat 1 has no partner, and its ratio is the medians' all the same, as the end-of-sweep
// summary prints it (a review found "-" in the report beside 1.02x on the screen).
TEST(ReportData, ACellWithoutAPartnerInAnyRepeatStillDividesTheMedians) {
  const std::vector<SummaryRecord> rows{run(1, "timeslice", 1, 1, 1, "exec_failed"), run(2, "timeslice", 1, 100, 10),
                                        run(3, "timeslice", 1, 120, 8), run(1, "timeslice", 2, 220, 9)};
  const ReportData data = aggregate_results(rows, {});
  const ReportCell* two = data.find("spin", "timeslice", 2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->relative_task_time.count, 0) << "no repeat paired";
  EXPECT_DOUBLE_EQ(two->relative_task_time.median, 220.0 / 110.0);
  EXPECT_DOUBLE_EQ(two->relative_task_time.min, two->relative_task_time.median);
  EXPECT_DOUBLE_EQ(two->relative_throughput.median, 9.0 / 9.0);
  EXPECT_TRUE(std::isnan(two->speedup_vs_timeslice.median)) << "time-slicing is not set against itself";
}

TEST(ReportData, SpreadIgnoresNonFiniteValues) {
  const Spread s = spread_of({3, NAN, 1, INFINITY, 2});
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.median, 2);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 3);
  EXPECT_TRUE(std::isnan(spread_of({}).median));
}

TEST(ReportSeeds, CheckedInSeedsGiveTheArticlesRatios) {
  const auto ratios = seed_ratios(read_seeds(source_dir() / "results" / "seeds.csv"));
  auto find = [&](const std::string& source, int n, const std::string& mode) -> double {
    for (const auto& r : ratios)
      if (r.source_id == source && r.procs == n && r.mode == mode) return r.ratio;
    ADD_FAILURE() << source << " " << n << " " << mode << " missing";
    return NAN;
  };
  EXPECT_DOUBLE_EQ(find("v100_blog", 4, "timeslice"), 20.0 / 5);
  EXPECT_DOUBLE_EQ(find("p100_qiita", 10, "timeslice"), 221.0 / 80);
  EXPECT_DOUBLE_EQ(find("p100_qiita", 10, "mps"), 124.0 / 80);
  EXPECT_DOUBLE_EQ(find("p100_qiita", 5, "timeslice"), 136.0 / 80);
  EXPECT_DOUBLE_EQ(find("p100_qiita", 5, "mps"), 86.0 / 80);
  EXPECT_DOUBLE_EQ(find("t4_mps_tutorial", 5, "timeslice"), 8.733871 / 1.4271);  // median of the five copies
  EXPECT_DOUBLE_EQ(find("t4_mps_tutorial", 5, "mps"), 1.632360 / 1.4271);
  EXPECT_EQ(ratios.size(), 7u);
}

TEST(ReportSeeds, RejectsRowsWithoutSourceOrValue) {
  TempDir tmp;
  const std::string header =
      "source_id,title,reference,gpu,their_workload,workload_kind,procs,mode,value,unit,metric,note\n";
  write_text(tmp / "no_ref.csv", header + "a,t,,g,w,,1,timeslice,5,s,m,n\n");
  EXPECT_THROW(read_seeds(tmp / "no_ref.csv"), ResultsError);
  write_text(tmp / "bad_value.csv", header + "a,t,r,g,w,,1,timeslice,-5,s,m,n\n");
  EXPECT_THROW(read_seeds(tmp / "bad_value.csv"), ResultsError);
  write_text(tmp / "bad_mode.csv", header + "a,t,r,g,w,,1,mig,5,s,m,n\n");
  EXPECT_THROW(read_seeds(tmp / "bad_mode.csv"), ResultsError);
}

}  // namespace
}  // namespace bench_mps::testing
