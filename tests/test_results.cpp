// Writers and readers of the results folder: headers once, quoting, durable appends, and one clear
// ResultsError for every defect a reader can meet.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <zlib.h>

#include "harness/common/csv_table.hpp"
#include "harness/common/format.hpp"
#include "harness/common/packed_files.hpp"
#include "harness/common/stats.hpp"
#include "harness/mps/compute_mode.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/results/co_run.hpp"
#include "harness/results/interference_rows.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/results_writer.hpp"
#include "harness/results/run_record.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

using namespace harness;

// A command line said so a shell reads it back: words with spaces, quotes or shell characters in single quotes.
TEST(ShellWords, QuoteWhatAShellWouldSplitOrExpand) {
  EXPECT_EQ(shell_words({"bench_mps", "--procs", "1,4,10", "--out", "/tmp/a-b_c.d"}),
            "bench_mps --procs 1,4,10 --out /tmp/a-b_c.d");
  EXPECT_EQ(shell_words({"--command", "python3 train.py --epochs 1"}), "--command 'python3 train.py --epochs 1'");
  EXPECT_EQ(shell_words({"--exec-metric", "step_ms=([0-9.]+)"}), "--exec-metric 'step_ms=([0-9.]+)'");
  EXPECT_EQ(shell_words({"echo", "it's"}), "echo 'it'\\''s'");
  EXPECT_EQ(shell_words({"", "$HOME", "a`b`"}), "'' '$HOME' 'a`b`'");
}

// A number printed in a table: fixed decimals as far as a measurement goes, an exponent beyond (a damaged file's 1e300
// would otherwise fill a report's cell with 301 digits).
TEST(FixedDecimals, AreKeptForMeasurementsAndGiveWayToAnExponentForAbsurdSizes) {
  EXPECT_EQ(fmt_fixed(3.14159, 2), "3.14");
  EXPECT_EQ(fmt_fixed(-0.5, 1), "-0.5");
  EXPECT_EQ(fmt_fixed(123456789012.345, 1), "123456789012.3");
  EXPECT_EQ(fmt_fixed(std::nan(""), 2), "-");
  EXPECT_EQ(fmt_fixed(1e300, 2), "1.000e+300");
  EXPECT_EQ(fmt_fixed(-2.5e17, 0), "-2.500e+17");
  EXPECT_EQ(fmt_fixed(kFixedUpTo, 3), "1.000e+15");
  EXPECT_EQ(fmt_fixed(std::numeric_limits<double>::infinity(), 1), "inf");
}

// A negative that rounds to zero has no sign to show: "0.0", and "+0.0" where the sign is always shown (advise's and
// predict's model errors printed "-0.0 %" for an error of -0.01 % before).
TEST(FixedDecimals, ANegativeThatRoundsToZeroPrintsAsZero) {
  EXPECT_EQ(fmt_fixed(-0.04, 1), "0.0");
  EXPECT_EQ(fmt_fixed(-0.0, 2), "0.00");
  EXPECT_EQ(fmt_fixed(-0.4, 0), "0");
  EXPECT_EQ(fmt_fixed(-0.06, 1), "-0.1");
  EXPECT_EQ(fmt_signed(-0.04, 1), "+0.0");
  EXPECT_EQ(fmt_signed(0.04, 1), "+0.0");
  EXPECT_EQ(fmt_signed(-0.04, 1, false), "0.0");
  EXPECT_EQ(fmt_signed(0.04, 1, false), "0.0");
  EXPECT_EQ(fmt_signed(2.34, 1), "+2.3");
  EXPECT_EQ(fmt_signed(-2.34, 1, false), "-2.3");
  EXPECT_EQ(fmt_signed(2.5e17, 0), "+2.500e+17");
  EXPECT_EQ(fmt_signed(std::nan(""), 1), "-");
  EXPECT_EQ(fmt_change(0.123), "+12.3%");
  EXPECT_EQ(fmt_change(-0.0004), "+0.0%");
  EXPECT_EQ(fmt_change(-0.0004, false), "0.0%");
  EXPECT_EQ(fmt_change(std::numeric_limits<double>::infinity()), "-");
}

TEST(OneLine, KeepsUtf8AndMarksControlBytesAndBrokenSequences) {
  // A program's stderr quoted in a reason: an ESC recoloured the user's terminal, a backspace hid text.
  EXPECT_EQ(one_line("bad\033[31mRED\rCR\bBS end\n"), "bad?[31mRED CR?BS end");
  EXPECT_EQ(one_line("\t caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80 "), "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");
  EXPECT_EQ(one_line("a\xff b\xc3 c\xe2\x9c d\x7f"), "a? b? c?? d?");            // stray and cut sequences
  EXPECT_EQ(one_line("\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80"), "?? ??? ????");  // overlong, surrogate, > U+10FFFF
  EXPECT_EQ(one_line(std::string("nul\0byte", 8)), "nul?byte");
}

/// `text` gzip-packed into `gz` (as scripts/pack_results.py packs a file).
void write_gzip(const fs::path& gz, const std::string& text) {
  gzFile out = gzopen(gz.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(out), Z_OK);
}

// The one rule for files committed packed (scripts/pack_results.py): NAME.gz stands for NAME only where NAME is not
// there, and reads as its unpacked text; a cut stream is a ResultsError naming the file.
TEST(PackedFiles, APackedCopyStandsForItsFileOnlyWhereTheFileIsNotThere) {
  TempDir tmp;
  const fs::path plain = tmp / "profile-7.json", gz = tmp / "profile-7.json.gz";
  const std::string text = "{\"format_version\": 3}\n";
  write_gzip(gz, text);
  EXPECT_EQ(packed_copy(plain), gz);
  EXPECT_TRUE(exists_or_packed(plain));
  EXPECT_FALSE(exists_or_packed(tmp / "other.json"));
  EXPECT_EQ(unpacked_name(gz), "profile-7.json");
  EXPECT_EQ(unpacked_name(plain), "profile-7.json");
  EXPECT_FALSE(packed_beside_plain(gz));
  EXPECT_EQ(read_text_unpacked(gz), text);
  write_text(plain, "plain");
  EXPECT_TRUE(packed_copy(plain).empty()) << "the plain file is read where it is there";
  EXPECT_TRUE(packed_beside_plain(gz));
  EXPECT_EQ(read_text_unpacked(plain), "plain");
  const std::string bytes = read_text(gz);
  write_text(gz, bytes.substr(0, bytes.size() / 2));
  try {
    read_gzip_text(gz);
    ADD_FAILURE() << "a cut stream was read";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("profile-7.json.gz"), std::string::npos) << e.what();
  }
}

// A CSV cut inside its last line: the reader alone takes the piece as a row ("86.95" for 86.95275, "1" for
// 12.06385; a review found report and compare read on); without its line end the file is refused, plain or packed.
TEST(CsvCells, AFileCutInsideItsLastLineIsRefusedPlainOrPacked) {
  TempDir tmp;
  const fs::path plain = tmp / "summary.csv";
  const std::array<const char*, 2> columns{"run_id", "energy_j"};
  write_text(plain, "run_id,energy_j\nr1,86.95275\n");
  EXPECT_EQ(harness::read_csv_columns(plain, columns).size(), 1u);
  write_text(plain, "run_id,energy_j\nr1,86.95");
  try {
    harness::read_csv_columns(plain, columns);
    ADD_FAILURE() << "a cut last line was read";
  } catch (const ResultsError& e) {
    EXPECT_EQ(std::string(e.what()), plain.string() + ": its last line has no line end (a file cut short)");
  }
  const fs::path packed = tmp / "tasks.csv", gz = tmp / "tasks.csv.gz";
  write_gzip(gz, "run_id,energy_j\nr1,1");
  EXPECT_THROW(harness::read_csv_columns(packed, columns), ResultsError);
}

RunRecord sample_record(int repeat, int procs, const std::string& reason = "") {
  RunRecord r;
  r.spec.repeat = repeat;
  r.spec.workload = "spin";
  r.spec.params = "blocks=4;threads=256;launch_us=100;launches=100";
  r.spec.mode = parse_modes("mps:25")[0];
  r.spec.procs = procs;
  r.summary.tasks_total = 10 * procs;
  r.summary.makespan_s = 0.5;
  r.summary.throughput_tasks_per_s = 20.0 * procs;
  r.summary.task_mean_ms = 10.5;
  r.summary.task_p50_ms = 10.4;
  r.summary.task_p99_ms = 12.25;
  r.summary.slowdown_vs_alone = 1.05;
  r.summary.jain_fairness = 0.99;
  r.summary.gpu_util_mean = std::nan("");
  r.summary.sm_clock_mean_mhz = 1980;
  if (!reason.empty()) {
    r.summary.status = RunStatus::error;
    r.summary.reason = reason;
  }
  for (int w = 0; w < procs; ++w) {
    WorkerRow row;
    row.worker = w;
    row.status = RunStatus::ok;
    row.tasks = 10;
    r.workers.push_back(row);
    r.tasks.push_back({w, 0, 0.5, 10.5});
  }
  return r;
}

// A cell's number: one below a double's normal range (1e-320) is the tiny number it is; one beyond its range, not a
// number at all or not finite is named as such.
TEST(CsvCells, TinyNumbersAreReadAndOutOfRangeOnesRefused) {
  EXPECT_GT(harness::parse_cell_double("1e-320", "x"), 0.0);
  EXPECT_LT(harness::parse_cell_double("1e-320", "x"), 1e-300);
  EXPECT_EQ(harness::parse_cell_double("-1e-400", "x"), 0.0);
  for (const char* bad : {"1e999", "-1e999", "nan", "inf", "1x"})
    EXPECT_THROW(harness::parse_cell_double(bad, "x"), ResultsError) << bad;
}

// "Protects the foreground best" is a verdict with its interval: against the runner-up's repeats (a review found
// it said of 2.97x against 3.02x from two repeats each).
TEST(InterferenceRows, TheBestModeIsNamedOnlyWhereItsIntervalClearsTheRunnerUp) {
  const auto cell = [](const std::string& mode, std::vector<double> runs) {
    InterferenceCell c;
    c.mode = mode;
    c.procs = 2;
    c.runs = static_cast<int>(runs.size());
    c.p99_vs_alone = harness::median(runs);
    c.p99_vs_alone_runs = std::move(runs);
    return c;
  };
  const std::string close = interference_verdict({cell("timeslice", {2.9, 3.04}), cell("mps", {2.95, 3.09})});
  // The mode is chosen by its p99 over its own alone, a ratio of ratios beside the runner-up's: said as such, not
  // as the lowest latency (a review found a mode "had the lowest p99 latency" at 30 ms against 20.8 ms).
  EXPECT_NE(close.find("At N=2, timeslice had the lowest p99 latency over its own alone, but which mode protects the "
                       "foreground best cannot be told from these repeats: its p99 latency is 2.97x its own alone "
                       "(the mean of its repeats' p99-over-alone ratios is 0.98x ("),
            std::string::npos)
      << close;
  EXPECT_EQ(close.find("protects the foreground best:"), std::string::npos) << close;
  const std::string clear = interference_verdict({cell("timeslice", {44, 45}), cell("mps:auto", {1.1, 1.2})});
  EXPECT_NE(clear.find("At N=2, mps:auto protects the foreground best: its p99 latency is 1.15x its own alone "
                       "(the mean of its repeats' p99-over-alone ratios is 0.03x (0.02-0.04, ~94 %) timeslice's)"),
            std::string::npos)
      << clear;
  const std::string one = interference_verdict({cell("timeslice", {3.0}), cell("mps", {1.2})});
  EXPECT_NE(one.find("(no interval: under two repeats on a side)"), std::string::npos) << one;
  EXPECT_EQ(one.find("protects the foreground best:"), std::string::npos) << one;
}

TEST(InterferenceRows, TheRangeOfTheP99RatioHoldsItsPoint) {
  // One repeat: the point is the ratio of the medians, the range the ratio the sweep wrote (rounded): a range that
  // missed its point by a rounding once made the report's error bars negative (matplotlib refused them).
  const auto row = [](RunScenario kind, int procs, double p99_ms) {
    SummaryRecord r;
    r.run_id = "r1-mps-cpu-n2-" + kind.name();
    r.mode = "mps";
    r.procs = procs;
    r.scenario = kind;
    r.status = RunStatus::ok;
    r.fg_latency_p99_ms = p99_ms;
    return r;
  };
  std::vector<SummaryRecord> rows{row(RunKind::interference_fg, 1, 1.0000003),
                                  row(RunKind::interference, 2, 0.9796686)};
  rows[1].fg_p99_vs_alone = 0.9796685;  // written rounded: above the point 0.97966826...
  const std::vector<InterferenceCell> cells = aggregate_interference_runs(rows);
  ASSERT_EQ(cells.size(), 1u);
  const InterferenceCell& c = cells[0];
  EXPECT_LT(c.p99_vs_alone, 0.9796685);
  EXPECT_LE(c.p99_vs_alone_min, c.p99_vs_alone);
  EXPECT_GE(c.p99_vs_alone_max, c.p99_vs_alone);
  EXPECT_DOUBLE_EQ(c.p99_vs_alone_max, 0.9796685);
}

TEST(CoRun, TheForegroundsShareBesideEveryOtherWorker) {
  using harness::share_beside_all;
  using harness::TaskSpan;
  // Worker 0 from 0 to 10 ms (two tasks); worker 1 throughout; worker 2 from 2 to 6: only 4 ms beside both.
  const std::vector<TaskSpan> three{{0, 0, 4}, {0, 5, 10}, {1, -1, 12}, {2, 2, 3}, {2, 3, 6}};
  EXPECT_DOUBLE_EQ(share_beside_all(three, 0), 0.4);
  EXPECT_DOUBLE_EQ(share_beside_all(three, 2), 1.0) << "worker 2's span lies inside both others'";
  EXPECT_DOUBLE_EQ(share_beside_all({{0, 0, 10}, {1, 0, 10}}, 0), 1.0);
  EXPECT_DOUBLE_EQ(share_beside_all({{0, 0, 2}, {1, 2, 4}, {2, 4, 6}}, 0), 0.0) << "one after the other";
  EXPECT_DOUBLE_EQ(share_beside_all({{0, 0, 2}, {1, 0, 1}, {2, 1, 2}}, 0), 0.0) << "never both at once";
  EXPECT_TRUE(std::isnan(share_beside_all({{0, 0, 2}}, 0))) << "nothing beside it";
  EXPECT_TRUE(std::isnan(share_beside_all({{1, 0, 2}, {2, 0, 2}}, 0))) << "no task of its own";
  EXPECT_DOUBLE_EQ(share_beside_all({{0, 1, 1}, {1, 0, 2}}, 0), 1.0) << "a span of no length inside the other";
  const harness::SpanShare s = harness::span_share_beside_all(three, 0);
  EXPECT_DOUBLE_EQ(s.focus_start_ms, 0);
  EXPECT_DOUBLE_EQ(s.focus_end_ms, 10);
  EXPECT_DOUBLE_EQ(s.focus_ms, 10);
  EXPECT_DOUBLE_EQ(s.shortest_other_ms, 4) << "worker 2, 2 to 6 ms";
  // Inside 0..10 ms: worker 1's one task (-1..12) by 10/13 of it, worker 2's two tasks whole: 2.769... tasks in 10 ms.
  EXPECT_NEAR(harness::others_tasks_per_s_within(three, 0, 0, 10), (10.0 / 13 + 2) / 0.010, 1e-9);
  EXPECT_DOUBLE_EQ(harness::others_tasks_per_s_within({{1, 5, 5}, {1, 20, 20}}, 0, 0, 10), 100.0)
      << "a task of no length counts where it lies";
  EXPECT_TRUE(std::isnan(harness::others_tasks_per_s_within(three, 0, 3, 3)));
}

TEST(InterferenceRows, ARunNotSideBySideIsCountedAndLeftOut) {
  const auto row = [](RunScenario kind, int repeat, double p99_ms, double overlap) {
    SummaryRecord r;
    r.run_id = "r" + std::to_string(repeat) + "-mps-cpu-n2-" + kind.name();
    r.mode = "mps";
    r.procs = kind == RunKind::interference ? 2 : 1;
    r.scenario = kind;
    r.status = RunStatus::ok;
    r.fg_latency_p99_ms = p99_ms;
    r.fg_p99_vs_alone = kind == RunKind::interference ? p99_ms : NAN;
    r.fg_overlap = overlap;
    return r;
  };
  const std::vector<SummaryRecord> rows{
      row(RunKind::interference_fg, 1, 1, NAN), row(RunKind::interference, 1, 1.0, 0.1),   // alone for 90 %
      row(RunKind::interference, 2, 3.0, 0.95), row(RunKind::interference, 3, 5.0, NAN)};  // written before the column
  const std::vector<InterferenceCell> cells = aggregate_interference_runs(rows);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].runs, 3);
  EXPECT_EQ(cells[0].not_side_by_side, 1);
  EXPECT_DOUBLE_EQ(cells[0].p99_ms, 4.0) << "the median of the two runs side by side (3 and 5 ms)";
  EXPECT_EQ(cells[0].p99_vs_alone_runs.size(), 2u);
  std::ostringstream table;
  print_interference_table(table, cells);
  EXPECT_NE(table.str().find("(1 not side by side)"), std::string::npos) << table.str();
  EXPECT_NE(harness::not_side_by_side_note(0.1).find("ran during only 10.0 % of the foreground's timed span"),
            std::string::npos);
  // Never rounded up to the threshold it missed (a review found "only 80 % ... needs 80 %" of 0.7951).
  EXPECT_EQ(harness::overlap_percent(0.7951068), "79.5 %");
  EXPECT_EQ(harness::overlap_percent(0.8), "80.0 %");
  EXPECT_EQ(harness::overlap_percent(1.0), "100.0 %");
  // A mode whose runs at N all ran apart is said beside the one that did not, not called the only one measured.
  std::vector<SummaryRecord> two = rows;
  for (SummaryRecord r : rows) {
    r.mode = "timeslice";
    if (r.scenario == RunKind::interference) r.fg_overlap = 0.2;
    two.push_back(r);
  }
  const std::string verdict = interference_verdict(aggregate_interference_runs(two));
  EXPECT_NE(verdict.find("At N=2, mps (the only mode with runs side by side there; timeslice: not side by side, left "
                         "out) keeps the foreground's p99 latency at"),
            std::string::npos)
      << verdict;
}

TEST(ResultsWriter, HeadersOnceAndRowsAppended) {
  TempDir tmp;
  {
    ResultsWriter w(tmp.path());
    w.append(sample_record(1, 1));
  }
  ResultsWriter again(tmp.path());  // reopening must not write a second header
  again.append(sample_record(1, 4, "worker 2: cudaMalloc failed, \"out of memory\""));
  const auto lines = read_lines(tmp / "summary.csv");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].substr(0, 13), "run_id,repeat");
  EXPECT_EQ(read_lines(tmp / "runs.csv").size(), 1u + 1 + 4);
  EXPECT_EQ(read_lines(tmp / "tasks.csv").size(), 1u + 1 + 4);
  EXPECT_NE(lines[2].find("\"worker 2: cudaMalloc failed, \"\"out of memory\"\"\""), std::string::npos) << lines[2];

  const auto rows = read_summary(tmp / "summary.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].run_id, "r1-mps:25-spin-n1");
  EXPECT_EQ(rows[0].mode, "mps:25");
  EXPECT_EQ(rows[0].active_thread_pct, 25);
  EXPECT_DOUBLE_EQ(rows[0].task_p99_ms, 12.25);
  EXPECT_TRUE(std::isnan(rows[0].gpu_util_mean));
  EXPECT_EQ(rows[1].status, "error");
  EXPECT_EQ(rows[1].reason, "worker 2: cudaMalloc failed, \"out of memory\"");
  EXPECT_EQ(rows[1].config_key(), "spin|blocks=4;threads=256;launch_us=100;launches=100|mps:25|25|4");
  EXPECT_EQ(read_tasks(tmp / "tasks.csv").size(), 5u);
}

/// Header name -> cell of the first data row of a CSV file written by ResultsWriter (no quoted cells here).
std::map<std::string, std::string> first_row_by_name(const fs::path& file) {
  const auto lines = read_lines(file);
  auto split_line = [](const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    for (char c : line + ",") {
      if (c == ',') {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    return cells;
  };
  const auto header = split_line(lines.at(0)), cells = split_line(lines.at(1));
  EXPECT_EQ(header.size(), cells.size()) << file;
  std::map<std::string, std::string> row;
  for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
  return row;
}

// Every field gets a value no other field has, and each column is checked by its name: two cells
// swapped in the writer (say slowdown_vs_alone and jain_fairness) fail here.
TEST(ResultsWriter, EveryCellLandsInTheColumnOfItsName) {
  TempDir tmp;
  RunRecord r;
  r.spec.repeat = 3;
  r.spec.workload = "spin";
  r.spec.params = "blocks=4";
  r.spec.mode = parse_modes("mps:50").front();
  r.spec.procs = 4;
  r.spec.scenario = RunKind::fault;
  WorkerRow w;
  w.worker = 2;
  w.pid = 4242;
  w.status = RunStatus::ok;
  w.reason = "why";
  w.tasks = 17;
  w.start_s = 0.125;
  w.end_s = 1.75;
  w.task_mean_ms = 11.5;
  w.task_p50_ms = 12.5;
  w.task_p99_ms = 13.5;
  w.throughput_tasks_per_s = 14.5;
  w.sm_count_seen = 66;
  w.mps_enabled = true;
  w.mem_bytes = 123456;
  w.facts = "k=1";
  w.role = "victim";
  w.slowdown_vs_baseline = 15.5;
  w.post_fault_task_mean_ms = 16.5;
  w.client_active_thread_pct = 17;
  w.client_priority = 1;
  w.client_mem_limit_bytes = 18181818;
  w.burst_ms = 19.5;
  w.gpu_busy_share = 0.6875;
  r.workers.push_back(w);
  SummaryRow& s = r.summary;
  s.status = RunStatus::ok;
  s.reason = "fine";
  s.workers_ok = 3;
  s.tasks_total = 51;
  s.makespan_s = 1.25;
  s.throughput_tasks_per_s = 21.5;
  s.task_mean_ms = 22.5;
  s.task_p50_ms = 23.5;
  s.task_p99_ms = 24.5;
  s.slowdown_vs_alone = 25.5;
  s.jain_fairness = 0.625;
  s.gpu_util_mean = 0.375;
  s.sm_clock_mean_mhz = 1980;
  s.power_mean_w = 118.5;
  s.mem_used_max_bytes = 987654;
  s.sm_count_seen = 132;
  s.victims = 5;
  s.victims_survived = 4;
  s.victim_slowdown = 26.5;
  s.victim_post_fault_slowdown = 27.5;
  s.fault_error = "boom";
  s.mps_server_state = "survived";
  s.mps_recovery_s = 28.5;
  s.gpu_util_samples = 29;
  s.gpu_util_source = "driver";
  s.driver_messages = "NVRM: Xid 13";
  s.gpm_sm_util = 0.3125;
  s.gpm_sm_occupancy = 0.4375;
  s.gpm_dram_bw_util = 0.5625;
  s.startup_s = 30.5;
  s.settle_s = 31.5;
  s.teardown_s = 32.5;
  s.fg_latency_p50_ms = 33.5;
  s.fg_latency_p95_ms = 34.5;
  s.fg_latency_p99_ms = 35.5;
  s.fg_throughput_per_s = 36.5;
  s.fg_p99_vs_alone = 37.5;
  s.fg_throughput_vs_alone = 38.5;
  s.bg_throughput_per_s = 39.5;
  s.bg_throughput_kept = 40.5;
  s.fg_overlap = 0.4375;
  s.burst_ms = 41.5;
  s.gpu_busy_share = 0.8125;
  s.burst_alone_ms = 42.5;
  s.duty_alone = 0.1875;
  s.xray_slice_ms = 43.5;
  s.xray_switch_ms = -0.25;  // a difference of two measurements: noise may push it below zero
  s.xray_lost_share = 0.0625;
  s.xray_on_share = 0.9375;
  s.xray_wait_ms = 44.5;
  s.xray_wait_p99_ms = 45.5;
  s.xray_turn_ms = 46.5;
  s.xray_turn_switch_ms = 47.5;
  s.xray_hold_us = 48.5;
  s.xray_hold_bound = 1;
  s.xray_idle_kept_share = 0.3125;
  s.energy_j = 49.5;
  s.worker_set = 7;
  s.round = 2;
  ResultsWriter(tmp.path()).append(r);

  const std::map<std::string, std::string> config{{"run_id", "r3-mps:50-spin-n4-fault"},
                                                  {"repeat", "3"},
                                                  {"workload", "spin"},
                                                  {"params", "blocks=4"},
                                                  {"mode", "mps:50"},
                                                  {"active_thread_pct", "50"},
                                                  {"procs", "4"}};
  std::map<std::string, std::string> runs = config;
  runs.insert({{"worker", "2"},
               {"pid", "4242"},
               {"status", "ok"},
               {"reason", "why"},
               {"tasks", "17"},
               {"start_s", "0.125"},
               {"end_s", "1.75"},
               {"task_mean_ms", "11.5"},
               {"task_p50_ms", "12.5"},
               {"task_p99_ms", "13.5"},
               {"throughput_tasks_per_s", "14.5"},
               {"sm_count_seen", "66"},
               {"mps_enabled", "1"},
               {"mem_bytes", "123456"},
               {"facts", "k=1"},
               {"role", "victim"},
               {"slowdown_vs_baseline", "15.5"},
               {"post_fault_task_mean_ms", "16.5"},
               {"client_active_thread_pct", "17"},
               {"client_priority", "1"},
               {"client_mem_limit_bytes", "18181818"},
               {"burst_ms", "19.5"},
               {"gpu_busy_share", "0.6875"}});
  std::map<std::string, std::string> summary = config;
  summary.insert({{"status", "ok"},
                  {"reason", "fine"},
                  {"workers_ok", "3"},
                  {"tasks_total", "51"},
                  {"makespan_s", "1.25"},
                  {"throughput_tasks_per_s", "21.5"},
                  {"task_mean_ms", "22.5"},
                  {"task_p50_ms", "23.5"},
                  {"task_p99_ms", "24.5"},
                  {"slowdown_vs_alone", "25.5"},
                  {"jain_fairness", "0.625"},
                  {"gpu_util_mean", "0.375"},
                  {"sm_clock_mean_mhz", "1980"},
                  {"power_mean_w", "118.5"},
                  {"mem_used_max_bytes", "987654"},
                  {"sm_count_seen", "132"},
                  {"scenario", "fault"},
                  {"victims", "5"},
                  {"victims_survived", "4"},
                  {"victim_slowdown", "26.5"},
                  {"victim_post_fault_slowdown", "27.5"},
                  {"fault_error", "boom"},
                  {"mps_server_state", "survived"},
                  {"mps_recovery_s", "28.5"},
                  {"gpu_util_samples", "29"},
                  {"gpu_util_source", "driver"},
                  {"driver_messages", "NVRM: Xid 13"},
                  {"gpm_sm_util", "0.3125"},
                  {"gpm_sm_occupancy", "0.4375"},
                  {"gpm_dram_bw_util", "0.5625"},
                  {"startup_s", "30.5"},
                  {"settle_s", "31.5"},
                  {"teardown_s", "32.5"},
                  {"fg_latency_p50_ms", "33.5"},
                  {"fg_latency_p95_ms", "34.5"},
                  {"fg_latency_p99_ms", "35.5"},
                  {"fg_throughput_per_s", "36.5"},
                  {"fg_p99_vs_alone", "37.5"},
                  {"fg_throughput_vs_alone", "38.5"},
                  {"bg_throughput_per_s", "39.5"},
                  {"bg_throughput_kept", "40.5"},
                  {"fg_overlap", "0.4375"},
                  {"burst_ms", "41.5"},
                  {"gpu_busy_share", "0.8125"},
                  {"burst_alone_ms", "42.5"},
                  {"duty_alone", "0.1875"},
                  {"xray_slice_ms", "43.5"},
                  {"xray_switch_ms", "-0.25"},
                  {"xray_lost_share", "0.0625"},
                  {"xray_on_share", "0.9375"},
                  {"xray_wait_ms", "44.5"},
                  {"xray_wait_p99_ms", "45.5"},
                  {"xray_turn_ms", "46.5"},
                  {"xray_turn_switch_ms", "47.5"},
                  {"xray_hold_us", "48.5"},
                  {"xray_hold_bound", "1"},
                  {"xray_idle_kept_share", "0.3125"},
                  {"energy_j", "49.5"},
                  {"set", "7"},
                  {"round", "2"}});
  EXPECT_EQ(first_row_by_name(tmp / "runs.csv"), runs);
  EXPECT_EQ(first_row_by_name(tmp / "summary.csv"), summary);
  // The schema lists exactly these columns, and the reader takes each from its own.
  EXPECT_EQ(runs.size(), runs_columns().size());
  EXPECT_EQ(summary.size(), summary_columns().size());
  const auto back = read_summary(tmp / "summary.csv").at(0);
  EXPECT_EQ(back.slowdown_vs_alone, 25.5);
  EXPECT_EQ(back.jain_fairness, 0.625);
  EXPECT_EQ(back.makespan_s, 1.25);
  EXPECT_EQ(back.task_p99_ms, 24.5);
  EXPECT_EQ(back.scenario.name(), "fault");
  EXPECT_EQ(back.gpm_sm_util, 0.3125);
  EXPECT_EQ(back.gpm_dram_bw_util, 0.5625);
  EXPECT_EQ(back.startup_s, 30.5);
  EXPECT_EQ(back.teardown_s, 32.5);
  EXPECT_EQ(back.worker_set, 7);
  EXPECT_EQ(back.round, 2);
  EXPECT_EQ(back.fg_latency_p95_ms, 34.5);
  EXPECT_EQ(back.fg_p99_vs_alone, 37.5);
  EXPECT_EQ(back.bg_throughput_kept, 40.5);
  EXPECT_EQ(back.fg_overlap, 0.4375);
  EXPECT_EQ(back.burst_ms, 41.5);
  EXPECT_EQ(back.gpu_busy_share, 0.8125);
  EXPECT_EQ(back.burst_alone_ms, 42.5);
  EXPECT_EQ(back.duty_alone, 0.1875);
  EXPECT_EQ(back.xray_slice_ms, 43.5);
  EXPECT_EQ(back.xray_switch_ms, -0.25);
  EXPECT_EQ(back.xray_lost_share, 0.0625);
  EXPECT_EQ(back.xray_on_share, 0.9375);
  EXPECT_EQ(back.xray_wait_ms, 44.5);
  EXPECT_EQ(back.xray_wait_p99_ms, 45.5);
  EXPECT_EQ(back.xray_turn_ms, 46.5);
  EXPECT_EQ(back.xray_turn_switch_ms, 47.5);
  EXPECT_EQ(back.gpu_util_mean, 0.375);
  EXPECT_EQ(back.sm_count_seen, 132);
  EXPECT_EQ(back.workers_ok, 3);
  EXPECT_EQ(back.tasks_total, 51);
  EXPECT_EQ(back.throughput_tasks_per_s, 21.5);
  EXPECT_EQ(back.task_mean_ms, 22.5);
  EXPECT_EQ(back.task_p50_ms, 23.5);
  EXPECT_EQ(back.sm_clock_mean_mhz, 1980);
  EXPECT_EQ(back.power_mean_w, 118.5);
  EXPECT_EQ(back.status, "ok");
  EXPECT_EQ(back.reason, "fine");
  EXPECT_EQ(back.active_thread_pct, 50);
  EXPECT_EQ(back.procs, 4);
  EXPECT_EQ(back.repeat, 3);
  const auto worker = read_runs(tmp / "runs.csv").at(0);
  EXPECT_EQ(worker.worker, 2);
  EXPECT_EQ(worker.pid, 4242);
  EXPECT_EQ(worker.status, "ok");
  EXPECT_EQ(worker.reason, "why");
  EXPECT_EQ(worker.tasks, 17);
  EXPECT_EQ(worker.task_mean_ms, 11.5);
  EXPECT_EQ(worker.throughput_tasks_per_s, 14.5);
  EXPECT_EQ(worker.sm_count_seen, 66);
  EXPECT_TRUE(worker.mps_enabled);
  EXPECT_EQ(worker.facts, "k=1");
}

TEST(Meta, TimeslicePolicyIsReadFromNvidiaSmisListing) {
  // What `nvidia-smi compute-policy -l` printed on the H100 of 2026-11-25 (driver 580.159.04).
  const std::string h100 = read_text(source_dir() / "tests" / "fixtures" / "nvidia_smi" / "compute_policy_h100.txt");
  EXPECT_EQ(harness::parse_timeslice_policy(h100, 0), "Default");
  EXPECT_EQ(harness::parse_timeslice_policy(h100, 1), std::nullopt) << "no GPU 1 is listed";
  const std::string two = "|   0   Timeslice       Default       |\n|   1   Timeslice       Long          |\n";
  EXPECT_EQ(harness::parse_timeslice_policy(two, 1), "Long");
  EXPECT_EQ(harness::parse_timeslice_policy("No devices were found\n", 0), std::nullopt);
  EXPECT_EQ(harness::read_timeslice_policy("", 0, "/tmp"), std::nullopt) << "no nvidia-smi: unknown, no throw";
  EXPECT_EQ(harness::read_timeslice_policy("/bin/false", 0, "/tmp"), std::nullopt) << "nvidia-smi fails: unknown";
}

TEST(ResultsSchema, ColumnNamesAreUniqueAndEveryReadColumnIsWritten) {
  for (const auto& cols : {runs_columns(), summary_columns(), tasks_columns(), timeline_columns()}) {
    std::set<std::string> seen;
    for (const std::string& c : cols) EXPECT_TRUE(seen.insert(c).second) << "duplicate column " << c;
  }
  for (const auto& c : summary_schema()) EXPECT_TRUE(c.write) << c.name;
  for (const auto& c : runs_schema()) EXPECT_TRUE(c.write) << c.name;
  for (const auto& c : tasks_schema()) EXPECT_TRUE(c.write) << c.name;
  for (const auto& c : timeline_schema()) EXPECT_TRUE(c.write) << c.name;
}

TEST(ResultsSchema, ResultsDocListsEveryColumnAsTheSchemaPrintsIt) {
  // `bench_mps columns`: the results folders' tables (print_column_docs), then predict's (predict.csv, units.csv).
  const CommandOutput columns = run_program(bench_mps_exe(), {"columns"});
  ASSERT_EQ(columns.exit_code, 0) << columns.err;
  std::ostringstream printed;
  print_column_docs(printed);
  EXPECT_EQ(columns.out.rfind(printed.str(), 0), 0u) << "bench_mps columns starts with the results folders' tables";
  EXPECT_NE(columns.out.find("### units.csv"), std::string::npos) << columns.out;
  const std::string doc = read_text(source_dir() / "docs" / "RESULTS.md");
  const std::string begin = "<!-- columns: generated by `bench_mps columns` -->\n", end = "<!-- /columns -->";
  const auto from = doc.find(begin), to = doc.find(end);
  ASSERT_NE(from, std::string::npos) << "docs/RESULTS.md lacks the marker " << begin;
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()), columns.out)
      << "docs/RESULTS.md's column lists differ from the schema: paste `build/harness/bench_mps columns` between the "
         "markers";
}

class ReaderDefect : public ::testing::Test {
 protected:
  void SetUp() override {
    ResultsWriter w(tmp.path());
    w.append(sample_record(1, 1));
    w.append(sample_record(2, 1));
    write_text(tmp / "meta.json", "{\"schema_version\": " + std::to_string(kResultsSchemaVersion) + ", \"gpu\": null}");
  }
  std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const ResultsError& e) {
      return e.what();
    }
    return "";
  }
  TempDir tmp;
};

TEST_F(ReaderDefect, IntactFolderReads) { EXPECT_EQ(read_results_folder(tmp.path()).summary.size(), 2u); }

TEST_F(ReaderDefect, TruncatedLastLine) {
  std::string text = read_text(tmp / "summary.csv");
  write_text(tmp / "summary.csv", text.substr(0, text.size() - 40));
  const std::string e = error_of([&] { read_summary(tmp / "summary.csv"); });
  EXPECT_NE(e.find("summary.csv"), std::string::npos) << e;
  EXPECT_NE(e.find("line 3"), std::string::npos) << e;
}

TEST_F(ReaderDefect, GarbageCell) {
  std::string text = read_text(tmp / "summary.csv");
  text.replace(text.find("10.5"), 4, "abcd");
  write_text(tmp / "summary.csv", text);
  const std::string e = error_of([&] { read_summary(tmp / "summary.csv"); });
  EXPECT_NE(e.find("'abcd' is not a number"), std::string::npos) << e;
}

TEST_F(ReaderDefect, BinaryGarbage) {
  write_text(tmp / "summary.csv", std::string("\x01\x02\xff\"unterminated,\n", 18));
  EXPECT_NE(error_of([&] { read_summary(tmp / "summary.csv"); }), "");
}

TEST_F(ReaderDefect, MissingColumn) {
  std::string text = read_text(tmp / "summary.csv");
  text.replace(text.find("task_p99_ms"), 11, "task_p98_ms");
  write_text(tmp / "summary.csv", text);
  const std::string e = error_of([&] { read_summary(tmp / "summary.csv"); });
  EXPECT_NE(e.find("task_p99_ms"), std::string::npos) << e;
}

TEST_F(ReaderDefect, ExtraColumnsAreIgnored) {
  std::vector<std::string> lines = read_lines(tmp / "summary.csv");
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) text += lines[i] + (i == 0 ? ",future_column\n" : ",42\n");
  write_text(tmp / "summary.csv", text);
  EXPECT_EQ(read_summary(tmp / "summary.csv").size(), 2u);
}

TEST_F(ReaderDefect, WrongSchemaAndBadMeta) {
  write_text(tmp / "meta.json", "{\"schema_version\": 99}");
  EXPECT_NE(error_of([&] { read_results_folder(tmp.path()); }).find("schema version 99"), std::string::npos);
  write_text(tmp / "meta.json", "{not json");
  EXPECT_NE(error_of([&] { read_results_folder(tmp.path()); }).find("not valid JSON"), std::string::npos);
  fs::remove(tmp / "meta.json");
  EXPECT_NE(error_of([&] { read_results_folder(tmp.path()); }).find("meta.json: no such file"), std::string::npos);
  // A file or a missing path where the folder goes is named as it is, not as its meta.json.
  write_text(tmp / "a-file", "x");
  EXPECT_EQ(error_of([&] { read_sweep_meta(tmp / "a-file"); }),
            (tmp / "a-file").string() + ": not a folder (a results folder holds meta.json)");
  EXPECT_EQ(error_of([&] { read_sweep_meta(tmp / "gone"); }), (tmp / "gone").string() + ": no such folder");
  fs::create_symlink(tmp / "loop-b", tmp / "loop-a");
  fs::create_symlink(tmp / "loop-a", tmp / "loop-b");
  EXPECT_EQ(error_of([&] { read_sweep_meta(tmp / "loop-a"); }),
            (tmp / "loop-a").string() + ": a link that leads nowhere or into a loop of links");
}

TEST_F(ReaderDefect, MissingFile) {
  fs::remove(tmp / "summary.csv");
  EXPECT_NE(error_of([&] { read_results_folder(tmp.path()); }).find("summary.csv: no such file"), std::string::npos);
}

}  // namespace
}  // namespace bench_mps::testing
