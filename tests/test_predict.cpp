// `bench_mps predict` end to end on profiles recorded on an H100 (results/2026-11-27-predict-study), and every
// bad input answered with one line and exit 2, nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "harness/common/csv_table.hpp"
#include "harness/common/parallel.hpp"
#include "harness/predict/measured_units.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/profile_window.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

namespace fs = std::filesystem;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Predict, ATableFromOneProfiledCopyAloneAndTheXray) {
  TempDir tmp;
  const auto r =
      run_program(bench_mps_exe(), {"predict", (study() / "membw" / "alone").string(), "--xray",
                                    (study() / "xray").string(), "--procs", "2,4", "--out", (tmp / "p").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Two N, two modes, two bases; the simulator, the naive baseline and the regime model in each row.
  EXPECT_EQ(count_of(r.out, "| timeslice | unit |"), 2u) << r.out;
  EXPECT_EQ(count_of(r.out, "| mps | run |"), 2u) << r.out;
  EXPECT_NE(r.out.find("steps cut at host waits, SM share per span"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("an empty queue kept 2.000 us"), std::string::npos) << "the gaps probe at N=2: " << r.out;
  EXPECT_NE(r.err.find("4 cells predicted in"), std::string::npos) << "2 N x 2 modes: " << r.err;
  // without --against nothing is scored, and the brackets are still said
  EXPECT_NE(r.out.find("\nIn brackets: the simulator's interval, its phase draws' least to largest"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("; the regime model's bracket time-sliced, between the step's GPU work cut at host waits and "
                       "cut at idle gaps"),
            std::string::npos)
      << r.out;
  for (const char* f : {"predict.md", "predict.csv", "predict.json"})
    EXPECT_TRUE(fs::is_regular_file(tmp / "p" / f)) << f;
  const auto rows = csv_records(tmp / "p" / "predict.csv");
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& row : rows) EXPECT_GT(std::stod(row.at("predicted")), 0) << row.at("mode") << row.at("procs");
  // Membw fills the GPU: time-sliced, each of 4 copies' steps takes about 4 alone (4.25 ms).
  for (const auto& row : rows)
    if (row.at("mode") == "timeslice" && row.at("procs") == "4" && row.at("basis") == "unit") {
      EXPECT_NEAR(std::stod(row.at("predicted")), 4 * 4.25, 2.5);
    }
  // The folder now holds files: a second run there is refused, the files untouched.
  const std::string before = read_text(tmp / "p" / "predict.csv");
  const auto again = run_program(bench_mps_exe(), {"predict", (study() / "membw" / "alone").string(), "--xray",
                                                   (study() / "xray").string(), "--out", (tmp / "p").string()});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find("not empty"), std::string::npos) << again.err;
  EXPECT_EQ(read_text(tmp / "p" / "predict.csv"), before);
  EXPECT_EQ(r.out.find("has no interval"), std::string::npos) << r.out;
  // One replay of one run alone: the simulator's column says why it has no interval.
  const auto one = run_program(
      bench_mps_exe(), {"predict", (study() / "membw" / "alone").string(), "--xray", (study() / "xray").string(),
                        "--procs", "2", "--phases", "0", "--out", (tmp / "one").string()});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out.find("\nIn brackets: the simulator's interval"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("\nThe simulator's column has no interval: it is one replay of one run alone per mode"),
            std::string::npos)
      << one.out;
}

// A profile given alone (no sweep around it): no whole run's time and no GPM window, and the table says so rather
// than printing "- s" and a demand of 0.0 %.
TEST(Predict, AProfileGivenAloneSaysWhatItLacks) {
  TempDir tmp;
  const fs::path profile =
      study() / "membw" / "alone" / "profiles" / "r1-timeslice-exec-n1" / "w0" / "profile-5070.json.gz";
  const auto r = run_program(bench_mps_exe(), {"predict", profile.string(), "--xray", (study() / "xray").string(),
                                               "--procs", "2", "--out", (tmp / "p").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("memory bandwidth demand not known, replayed as 0 (no GPM DRAM bandwidth"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| 2 | timeslice | run | - | - | - |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n`-` per whole run: one copy alone has no whole run's time here"), std::string::npos) << r.out;
  // A profile does not record the mode it ran in: the line says it was taken as time-sliced, not that it was.
  EXPECT_NE(
      r.out.find("- One copy alone, taken as time-sliced (" + profile.string() + "; a profile records no mode): "),
      std::string::npos)
      << r.out;
}

/// `predict ARGS --out DIR` under `taskset -c 0` and on every CPU: the same files to the byte. Returns the rows of
/// the second's predict.csv.
std::vector<std::map<std::string, std::string>> same_files_on_one_cpu_or_many(const std::vector<std::string>& args,
                                                                              const fs::path& tmp) {
  std::vector<std::string> one{"-c", "0", bench_mps_exe().string()}, many = args;
  one.insert(one.end(), args.begin(), args.end());
  one.insert(one.end(), {"--out", (tmp / "one").string()});
  many.insert(many.end(), {"--out", (tmp / "many").string()});
  const auto r1 = run_program("/usr/bin/taskset", one), rn = run_program(bench_mps_exe(), many);
  EXPECT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_EQ(rn.exit_code, 0) << rn.err;
  for (const char* f : {"predict.md", "predict.csv", "predict.json"})
    EXPECT_EQ(read_text(tmp / "one" / f), read_text(tmp / "many" / f)) << f;
  return csv_records(tmp / "many" / "predict.csv");
}

bool can_spread(std::string& why) {
  if (!fs::exists("/usr/bin/taskset")) why = "no /usr/bin/taskset";
  if (harness::usable_cpus() < 2) why = "one usable CPU: nothing to spread";
  return why.empty();
}

// A cell's phase draws spread over the CPUs: one CPU (taskset) or all of them, the same files to the byte.
TEST(Predict, PhaseDrawsOnOneCpuOrManyGiveTheSameFiles) {
  std::string why;
  if (!can_spread(why)) GTEST_SKIP() << why;
  TempDir tmp;
  const auto rows = same_files_on_one_cpu_or_many({"predict", (study() / "membw" / "alone").string(), "--xray",
                                                   (study() / "xray").string(), "--procs", "2,4", "--phases", "8"},
                                                  tmp.path());
  EXPECT_EQ(rows.size(), 8u);
  for (const auto& row : rows) EXPECT_EQ(row.at("phases"), "8") << row.at("mode") << row.at("procs");
}

// Issue 45 item 4: paced-infer's requests are due on the clock. Replayed closed-loop, ten time-sliced copies never
// fall behind (about 1.8 ms, where its study ladder measured 108.2 ms); with --paced they build a backlog.
TEST(Predict, APacedProgramReplayedOpenLoopBuildsABacklog) {
  TempDir tmp;
  double unit[2] = {0, 0};
  for (const bool paced : {false, true}) {
    std::vector<std::string> a{"predict",  (study() / "paced-infer" / "alone").string(),
                               "--xray",   (study() / "xray").string(),
                               "--procs",  "10",
                               "--phases", "4",
                               "--out",    (tmp / (paced ? "open" : "closed")).string()};
    if (paced) a.push_back("--paced");
    const auto r = run_program(bench_mps_exe(), a);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("replayed open-loop") != std::string::npos, paced) << r.out;
    const nlohmann::json j = nlohmann::json::parse(read_text(tmp / (paced ? "open" : "closed") / "predict.json"));
    for (const nlohmann::json& alone : j.at("alone_runs")) EXPECT_EQ(alone.at("open_loop").get<bool>(), paced);
    for (const auto& row : csv_records(tmp / (paced ? "open" : "closed") / "predict.csv"))
      if (row.at("mode") == "timeslice" && row.at("basis") == "unit") unit[paced] = std::stod(row.at("predicted"));
  }
  EXPECT_LT(unit[0], 5) << "closed loop: no backlog";
  EXPECT_GT(unit[1], 20 * unit[0]) << "open loop: the copies fall behind";
}

/// `text` with the last field of every line left out.
std::string without_last_field(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

// units.csv goes through its column table both ways: a committed file read and written again is the same bytes but
// for the column added since (run_steps_per_s, empty in it), and that written file again is the same bytes (one
// written on the device by the code before the table; one older, without phase, steady_s and coverage).
TEST(Predict, UnitsCsvReadAndWrittenAgainIsTheSameFile) {
  TempDir tmp;
  const fs::path current = source_dir() / "results" / "2026-12-02-study" / "mnist-startup" / "ladder" / "units.csv";
  harness::write_units(tmp / "again.csv", harness::read_units(current));
  const std::string again = read_text(tmp / "again.csv");
  EXPECT_EQ(again.substr(0, again.find('\n')).substr(again.rfind(',', again.find('\n'))), ",run_steps_per_s");
  EXPECT_EQ(without_last_field(again), read_text(current));
  harness::write_units(tmp / "third.csv", harness::read_units(tmp / "again.csv"));
  EXPECT_EQ(read_text(tmp / "third.csv"), again);
  const auto older = harness::read_units(study() / "gemm" / "ladder" / "units.csv");
  ASSERT_FALSE(older.empty());
  EXPECT_TRUE(std::isnan(older.front().coverage)) << "a column the older file lacks reads as none";
}

TEST(Predict, AgainstASweepEveryCellGetsItsMeasurementAndError) {
  const auto r = run_program(bench_mps_exe(),
                             {"predict", (study() / "gemm" / "alone").string(), "--xray", (study() / "xray").string(),
                              "--procs", "2,4,10", "--against", (study() / "gemm" / "ladder").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| measured | error | in interval | naive error | regime error | runs |"), std::string::npos)
      << r.out;
  EXPECT_EQ(count_of(r.out, "% | 2 |"), 12u) << "every cell measured twice: " << r.out;
  // Issue 45 item 5: each cell says whether its measurement lies in the simulator's interval, and the table's
  // foot counts them per basis.
  EXPECT_EQ(count_of(r.out, "% | yes | ") + count_of(r.out, "% | no | "), 12u) << r.out;
  EXPECT_NE(r.out.find("Measured inside the simulator's interval"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" of 6 cells; per whole run "), std::string::npos) << r.out;
}

TEST(Predict, AProfileOfTheOlderFormatStillPredicts) {
  // format_version 2 (no SM time per span): the kernels' mean fill stands for every span's share of the SMs.
  const fs::path alone = source_dir() / "results" / "2026-11-26-advise" / "lease-j" / "client" / "sweeps" / "alone";
  const auto r =
      run_program(bench_mps_exe(), {"predict", alone.string(), "--xray", (study() / "xray").string(), "--procs", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SM share from the kernels' mean fill"), std::string::npos) << r.out;
}

TEST(Predict, MeasureWritesEachCopysRunAndUnit) {
  TempDir tmp;
  fs::copy(study() / "paced-infer" / "ladder", tmp / "ladder", fs::copy_options::recursive);
  fs::remove(tmp / "ladder" / "units.csv");
  const auto r = run_program(bench_mps_exe(), {"predict", "--measure", (tmp / "ladder").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("units.csv: 64 copies"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("64 metric"), std::string::npos) << "paced-infer prints its own latency: " << r.out;
  // The same as the device measured (the profiles are not needed for a program's own metric), and a phase
  // column the device's older units.csv lacks: empty, a metric follows no steps.
  const auto now = csv_records(tmp / "ladder" / "units.csv");
  const auto then = csv_records(study() / "paced-infer" / "ladder" / "units.csv");
  ASSERT_EQ(now.size(), then.size());
  std::map<std::string, double> per_s;  // each run's copies' steps per second, summed
  for (std::size_t i = 0; i < now.size(); ++i) {
    EXPECT_EQ(now[i].at("phase"), "") << i;
    for (const auto& [column, cell] : then[i]) EXPECT_EQ(now[i].at(column), cell) << "row " << i << " " << column;
    per_s[now[i].at("run_id")] += 1e3 / std::stod(now[i].at("unit_ms"));
  }
  // Beside each copy's unit, its run's throughput: the same on every copy of the run, the sum of 1 / unit.
  for (const auto& row : now)
    EXPECT_NEAR(std::stod(row.at("run_steps_per_s")) / per_s.at(row.at("run_id")), 1.0, 1e-5) << row.at("run_id");
}

// Three runs alone per mode, one of them without its profile: refused, naming it. Left out, another draw would
// stand for the program without a word (an audit found the MPS prediction moved 16.49 s -> 14.10 s).
TEST(Predict, AnAloneRunWithoutItsProfileIsRefusedNotLeftOut) {
  TempDir tmp;
  const fs::path from = source_dir() / "results" / "2026-12-03-gate-ladders" / "gate" / "amp-train" / "steady";
  const fs::path alone = tmp / "alone";
  fs::create_directories(alone / "profiles");
  for (const char* f : {"meta.json", "summary.csv", "runs.csv"}) fs::copy(from / f, alone / f);
  for (const auto& e : fs::directory_iterator(from / "profiles"))
    if (e.path().filename().string().find("-n1") != std::string::npos)
      fs::copy(e.path(), alone / "profiles" / e.path().filename(), fs::copy_options::recursive);
  const fs::path xray = source_dir() / "results" / "2026-12-02-study" / "xray";  // the same GPU model's
  const std::vector<std::string> args{"predict", alone.string(), "--xray", xray.string(), "--procs",
                                      "2",       "--phases",     "0"};
  ASSERT_EQ(run_program(bench_mps_exe(), args).exit_code, 0);
  fs::remove_all(alone / "profiles" / "r1-mps-exec-n1");
  const auto r = run_program(bench_mps_exe(), args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("run r1-mps-exec-n1 has no GPU profile (its profiles folder is missing or damaged"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Predict, EveryBadInputIsOneLineAndExitTwoWithNothingWritten) {
  TempDir tmp;
  const std::string alone = (study() / "membw" / "alone").string(), xray = (study() / "xray").string();
  // A damaged profile (cut short) and a file that is no profile at all.
  fs::path one;  // committed packed (scripts/pack_results.py): profile-<pid>.json.gz
  for (const auto& e : fs::recursive_directory_iterator(study() / "membw" / "alone" / "profiles"))
    if (e.path().extension() == ".gz") one = e.path();
  ASSERT_FALSE(one.empty());
  const std::string text = harness::read_gzip_text(one);
  write_text(tmp / "profile-1.json", text.substr(0, text.size() / 2));
  write_text(tmp / "profile-2.json", "run_id,mode\nx,y\n");
  fs::create_directories(tmp / "full");
  write_text(tmp / "full" / "mine.txt", "the user's own file");
  const std::vector<std::vector<std::string>> cases{
      {"predict"},
      {"predict", "--xray", xray},
      {"predict", alone},
      {"predict", "/nonexistent/alone", "--xray", xray},
      {"predict", (tmp / "profile-1.json").string(), "--xray", xray},
      {"predict", (tmp / "profile-2.json").string(), "--xray", xray},
      {"predict", (fixtures_dir() / "compare" / "base").string(), "--xray", xray},   // no --profile-gpu
      {"predict", alone, "--xray", (fixtures_dir() / "compare" / "base").string()},  // no X-ray in it
      {"predict", alone, "--xray", "/nonexistent/xray"},
      {"predict", alone, "--xray", ""},
      {"predict", "", "--xray", xray},
      {"predict", alone, "--xray", xray, "--procs", "1"},
      {"predict", alone, "--xray", xray, "--procs", "0"},
      {"predict", alone, "--xray", xray, "--procs", "abc"},
      {"predict", alone, "--xray", xray, "--procs", "2,2"},
      {"predict", alone, "--xray", xray, "--procs", "65"},
      {"predict", alone, "--xray", xray, "--procs", "-4"},
      {"predict", alone, "--xray", xray, "--procs", ""},
      {"predict", alone, "--xray", xray, "--max-procs", "1"},
      {"predict", alone, "--xray", xray, "--paced=maybe"},
      {"predict", alone, "--xray", xray, "--paced=-1"},
      {"predict", alone, "--xray", xray, "--max-procs", "nan"},
      {"predict", alone, "--xray", xray, "--max-procs", "1"},
      {"predict", alone, "--xray", xray, "--max-procs", "0x10"},
      {"predict", alone, "--xray", xray, "--gap-us", "inf"},
      {"predict", alone, "--xray", xray, "--phases", "-1"},
      {"predict", alone, "--xray", xray, "--phases", "257"},
      {"predict", alone, "--xray", xray, "--phases", "1.5"},
      {"predict", alone, "--xray", xray, "--phases", ""},
      {"predict", alone, "--xray", xray, "--phases", "010"},  // decimal only: CLI11 would read 8
      {"predict", alone, "--xray", xray, "--phases", "0x10"},
      {"predict", alone, "--xray", xray, "--out", ""},
      {"predict", alone, "--xray", xray, "--out", (tmp / "full").string()},
      {"predict", alone, "--xray", xray, "--out", (tmp / "profile-2.json").string()},
      {"predict", alone, "--xray", xray, "--label", ""},
      {"predict", alone, "--xray", xray, "--against", "/nonexistent/ladder"},
      {"predict", alone, "--xray", xray, "--against", (tmp / "full").string()},
      {"predict", "--measure", "/nonexistent/ladder"},
      {"predict", "--measure", (tmp / "full").string()},
      {"predict", "--measure", (study() / "gemm" / "ladder").string(), "--xray", xray},
      {"predict", "--measure", ""},
      {"predict", alone, "--xray", xray, "--mps-calibration", ""},
      {"predict", alone, "--xray", xray, "--mps-calibration", "/nonexistent/mpscal"},
      {"predict", alone, "--xray", xray, "--mps-calibration", (tmp / "profile-2.json").string()},
      {"predict", alone, "--xray", xray, "--mps-calibration", (tmp / "full").string()},
      {"predict", alone, "--xray", xray, "--mps-calibration", (fixtures_dir() / "compare" / "base").string()},
      {"predict", alone, "--xray", xray, "--host-calibration", ""},
      {"predict", alone, "--xray", xray, "--host-calibration", "/nonexistent/hostcal"},
      {"predict", alone, "--xray", xray, "--host-calibration", (tmp / "full").string()},
      {"predict", alone, "--xray", xray, "--draws", "some"},
      {"predict", alone, "--xray", xray, "--draws", ""},
      {"predict", alone, "--xray", xray, "--draws", "ALL"},
      {"predict", alone, "--xray", xray, "--draws", "-1"},
      {"predict", alone, "--xray", xray, "--draws", "nan"},
      {"predict", alone, "--xray", xray, "--draws", "inf"},
      {"predict", alone, "--xray", xray, "--draws", std::string(100000, 'a')},
      {"predict", "--measure", (study() / "gemm" / "ladder").string(), "--draws", "all"},
      {"predict", alone, "--xray", xray, "--nosuch"},
  };
  for (const auto& args : cases) {
    std::string line;
    for (const auto& a : args) line += "'" + a + "' ";
    const auto r = run_program(bench_mps_exe(), args);
    EXPECT_EQ(r.exit_code, 2) << line << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << line << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << line << ": " << r.out;
  }
  // Nothing written anywhere: the user's folder as it was, no units.csv in a folder that was refused.
  EXPECT_EQ(read_text(tmp / "full" / "mine.txt"), "the user's own file");
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp / "full"), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

TEST(PredictHostile, ALabelWithACommaAQuoteAndANewlineStaysOneCellOfPredictCsv) {
  TempDir tmp;
  const std::string label = "run 1, \"big\"\nsecond line";
  const auto r = run_program(bench_mps_exe(),
                             {"predict", (study() / "membw" / "alone").string(), "--xray", (study() / "xray").string(),
                              "--procs", "2", "--label", label, "--out", (tmp / "p").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_records(tmp / "p" / "predict.csv");
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.size(), 19u) << "every row as wide as the header";
    EXPECT_EQ(row.at("program"), "run 1, \"big\" second line") << "a line break in a cell is written as a space";
    EXPECT_EQ(row.at("procs"), "2");
  }
  const std::string md = read_text(tmp / "p" / "predict.md");  // its heading one line too
  EXPECT_NE(md.find("run 1, \"big\" second line\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("\nsecond line"), std::string::npos) << md;
}

// A program's own metric is N copies at once only where its copies printed together (MetricWindow): two copies of
// paced-infer's N=2 run (the study's, whose rows have no span of their lines: unchecked, "metric" as read) given
// spans that meet, then spans 1.6 s apart on a 3.2 s run.
TEST(Predict, AMetricRunIsCoRunOnlyWhereItsCopiesLinesMet) {
  std::istringstream runs(read_text(study() / "paced-infer" / "ladder" / "runs.csv"));
  std::string header, line;
  std::vector<std::string> two;
  std::getline(runs, header);
  while (std::getline(runs, line))
    if (line.rfind("r1-timeslice-exec-n2,", 0) == 0) two.push_back(line);
  ASSERT_EQ(two.size(), 2u);
  const auto measured = [&](double apart_s) {
    TempDir tmp;
    std::ofstream out(tmp / "runs.csv");
    out << header << "\n";
    for (std::size_t w = 0; w < two.size(); ++w) {
      std::string row = two[w];
      if (apart_s >= 0) {  // each copy's lines over 3.2 s, the second's starting apart_s after the first's
        const double first = 1e12 + static_cast<double>(w) * apart_s * 1e9;
        const std::string span = "steps_first_mono_ns=" + std::to_string(static_cast<long long>(first)) +
                                 ";steps_last_mono_ns=" + std::to_string(static_cast<long long>(first + 3.2e9)) + ";";
        row.insert(row.find("completion_s="), span);
      }
      out << row << "\n";
    }
    out.close();
    return harness::measure_units(tmp.path(), 20);
  };
  for (const harness::MeasuredUnit& u : measured(-1)) {  // rows of before 2026-12-03: unchecked
    EXPECT_EQ(u.basis, harness::UnitBasis::metric);
    EXPECT_TRUE(std::isnan(u.coverage));
  }
  for (const harness::MeasuredUnit& u : measured(0.1)) {  // 3.1 of 3.2 s together
    EXPECT_EQ(u.basis, harness::UnitBasis::metric) << u.basis_text();
    EXPECT_NEAR(u.coverage, 3.1 / 3.2, 1e-6);
    EXPECT_NEAR(u.steady_s, 3.2, 1e-6);
    EXPECT_GT(u.unit_ms, 0);
  }
  for (const harness::MeasuredUnit& u : measured(1.6)) {  // half of each copy's lines alone
    EXPECT_EQ(u.basis, harness::UnitBasis::not_co_run) << u.basis_text();
    EXPECT_NEAR(u.coverage, 0.5, 1e-6);
    EXPECT_TRUE(std::isnan(u.unit_ms)) << "no unit stands in";
    EXPECT_TRUE(std::isnan(u.run_steps_per_s));
  }
  for (const harness::MeasuredUnit& u : measured(4.0))  // never together
    EXPECT_EQ(u.coverage, 0) << u.basis_text();
}

// A profile that kept only a head and a tail of its spans has a hole between them; a host wait there counts only where
// one of the few spans recorded late lies before it (counted_waits), so a gated copy released before the tail had a
// few "steps" spanning the hole. cuda-graphs at N=8 under MPS on an H200 (results/2026-12-03-advise-profiled: the
// one copy whose profile is kept) measured 10.44 ms a step that way, where its steps were 4.5 ms (its other worker
// sets: 4.57 ms). The part that counts begins at the tail's first span.
TEST(Predict, AGatedCopyReleasedBeforeTheProfilesTailCountsFromTheTail) {
  const fs::path ladder = source_dir() / "results/2026-12-03-advise-profiled/cuda-graphs/sweeps/ladder-8";
  TempDir tmp;
  const fs::path dir = tmp / "one";
  fs::create_directories(dir / "profiles" / "r2-mps-exec-n8");
  fs::copy(ladder / "profiles" / "r2-mps-exec-n8" / "w0", dir / "profiles" / "r2-mps-exec-n8" / "w0");
  std::istringstream runs(read_text(ladder / "runs.csv"));
  std::string header, line, mine;
  std::getline(runs, header);
  while (std::getline(runs, line))
    if (line.rfind("r2-mps-exec-n8,", 0) == 0 && line.find(",exec,") != std::string::npos && mine.empty() &&
        line.find(",8,0,") != std::string::npos)
      mine = line;
  ASSERT_FALSE(mine.empty());
  ASSERT_NE(mine.find("gate_release_mono_s="), std::string::npos) << "a gated copy";
  std::ofstream(dir / "runs.csv") << header << "\n" << mine << "\n";
  const harness::GpuProfile p =
      harness::read_gpu_profile(harness::gpu_profile_files(dir / "profiles" / "r2-mps-exec-n8" / "w0").front());
  ASSERT_GT(p.intervals, p.spans.size()) << "the profile has a hole";
  const std::vector<harness::MeasuredUnit> units = harness::measure_units(dir, 20);
  ASSERT_EQ(units.size(), 1u);
  ASSERT_EQ(units[0].basis, harness::UnitBasis::common_window) << units[0].basis_text();
  EXPECT_NEAR(units[0].unit_ms, 4.52, 0.1) << "its steps, not the hole's: " << units[0].phase;
  EXPECT_LT(units[0].steady_s, 3.0) << "from the tail's first span on";
}

// measure_units keeps the parts the runs alone kept in every copy (ladder_sides), as predict's draws do; it once asked
// the runs alone for a metric "<= 0", which an absent one (NaN) never is, and followed nothing. An advise folder's
// rungs follow its ladder's N=1 (sweeps/ladder-1, held at the same gate): zoo mnist on an H200, whose copies alone
// leave out a tail (the test pass); one of its N=1 copies would by its own lengths leave out a head as well.
TEST(Predict, EachCopyKeepsThePartsItsRunsAloneKept) {
  const fs::path sweeps = source_dir() / "results/2026-12-03-advise-profiled/mnist/sweeps";
  EXPECT_EQ(harness::alone_sweeps_beside(sweeps / "ladder-2"),
            std::vector<fs::path>{fs::absolute(sweeps / "ladder-1")});
  // A path as typed or tab-completed names the same rung (a trailing slash once followed nothing: amp-train's
  // ladder-2 on an H100, results/2026-12-06-advise-lease14, measured another way than the device had).
  for (const fs::path& typed :
       {fs::path(sweeps.string() + "/ladder-2/"), sweeps / "." / "ladder-2", sweeps / "ladder-1" / ".." / "ladder-2"})
    EXPECT_EQ(harness::alone_sweeps_beside(typed), std::vector<fs::path>{fs::absolute(sweeps / "ladder-1")}) << typed;
  EXPECT_TRUE(harness::alone_sweeps_beside(fs::path(sweeps.string() + "/ladder-1/")).empty());
  EXPECT_TRUE(harness::alone_sweeps_beside(sweeps / "ladder-1").empty());
  EXPECT_TRUE(harness::alone_sweeps_beside(sweeps / "alone").empty()) << "measured before any rung ran";
  EXPECT_TRUE(harness::alone_sweeps_beside(study() / "mnist" / "ladder").empty()) << "not an advise folder";
  int copies = 0;
  for (const harness::MeasuredUnit& u : harness::measure_units(sweeps / "ladder-1", 20)) {
    EXPECT_NE(u.phase.find("(left out: a tail of"), std::string::npos) << u.run_id << ": " << u.phase;
    EXPECT_EQ(u.phase.find("a head of"), std::string::npos) << u.run_id << ": " << u.phase;
    ++copies;
  }
  EXPECT_EQ(copies, 4);
  // The device's build (90b4498), which followed nothing, left out a head too in one of them.
  const std::string before = read_text(sweeps / "ladder-1" / "units-device-90b4498.csv");
  EXPECT_NE(before.find("left out: a head of"), std::string::npos);
}

// The copies of one gated run keep the same steps (shared_phase): wlm-lstm's eight copies under MPS on an H200
// (results/2026-12-03-advise-lease7), each with 187 step ends in its steady part, left out a tail of evaluation
// batches; by their own times, as the device's build measured them, some cut it 62 or 63 steps in, the rest 64.
TEST(Predict, TheCopiesOfOneGatedRunKeepTheSameSteps) {
  const fs::path limits = source_dir() / "results/2026-12-03-advise-lease7/wlm-lstm/sweeps/limits";
  std::map<std::string, std::set<std::string>> kept;
  for (const harness::MeasuredUnit& u : harness::measure_units(limits, 20)) {
    kept[u.run_id].insert(u.phase);
    EXPECT_EQ(u.basis, harness::UnitBasis::common_window) << u.run_id << " " << u.worker;
  }
  ASSERT_EQ(kept.size(), 2u);
  for (const auto& [run, phases] : kept) {
    ASSERT_EQ(phases.size(), 1u) << run << ": " << *phases.begin() << " | " << *phases.rbegin();
    EXPECT_EQ(phases.begin()->rfind("steps 1-64 of 187 (left out: a tail of 123 ends at", 0), 0u) << *phases.begin();
  }
  const std::string device = read_text(limits / "units.csv");
  EXPECT_NE(device.find("steps 1-62 of 187"), std::string::npos) << "the device's build: each copy its own cut";
}

TEST(PredictHostile, MeasureRefusesAFolderWithoutProfiledExecRunsAndKeepsUnitsItCannotRemake) {
  TempDir tmp;
  // A sweep of our own workloads, no exec: not a ladder; nothing written into it.
  fs::copy(source_dir() / "results" / "2026-11-27-h100-80gb-hbm3", tmp / "plain", fs::copy_options::recursive);
  const auto plain = run_program(bench_mps_exe(), {"predict", "--measure", (tmp / "plain").string()});
  EXPECT_EQ(plain.exit_code, 2) << plain.err;
  EXPECT_NE(plain.err.find("not a ladder"), std::string::npos) << plain.err;
  EXPECT_FALSE(fs::exists(tmp / "plain" / "units.csv"));
  // A ladder whose profiles are gone, with the units measured while they were there: refused, kept as it was.
  fs::copy(study() / "gemm" / "ladder", tmp / "ladder", fs::copy_options::recursive);
  const std::string before = read_text(tmp / "ladder" / "units.csv");
  const auto gone = run_program(bench_mps_exe(), {"predict", "--measure", (tmp / "ladder").string()});
  EXPECT_EQ(gone.exit_code, 2) << gone.err;
  EXPECT_EQ(std::count(gone.err.begin(), gone.err.end(), '\n'), 1) << gone.err;
  EXPECT_EQ(read_text(tmp / "ladder" / "units.csv"), before);
  // Options of the prediction given to --measure are refused, not ignored.
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--procs", "2,4"},
                                                {"--label", "x"},
                                                {"--max-procs", "4"},
                                                {"--phases", "4"},
                                                {"--paced"}}) {
    std::vector<std::string> a{"predict", "--measure", (tmp / "ladder").string()};
    a.insert(a.end(), extra.begin(), extra.end());
    const auto r = run_program(bench_mps_exe(), a);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << r.err;
    EXPECT_NE(r.err.find(extra[0] + ": does not apply to --measure"), std::string::npos) << r.err;
  }
}

TEST(PredictHostile, AForeignAgainstOrXrayIsRefusedBeforeAnyWork) {
  TempDir tmp;
  const std::string alone = (study() / "gemm" / "alone").string(), xray = (study() / "xray").string();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases{
      {{"--against", alone}, "is the alone folder itself"},
      {{"--against", (study() / "membw" / "ladder").string()}, "another program"},
      {{"--against", (fixtures_dir() / "compare" / "base").string()}, "not a sweep of your program"},
      {{"--against", (study() / "membw" / "alone").string()}, "holds no run of N >= 2 copies"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> a{"predict", alone, "--xray", xray, "--procs", "2", "--out", (tmp / "p").string()};
    a.insert(a.end(), c.args.begin(), c.args.end());
    const auto r = run_program(bench_mps_exe(), a);
    EXPECT_EQ(r.exit_code, 2) << c.args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.args[0]), std::string::npos) << "names the option: " << r.err;
    EXPECT_FALSE(fs::exists(tmp / "p"));
  }
  // The alone folder's summary.csv cut to its header: damaged, not "not a sweep of your program".
  fs::copy(study() / "gemm" / "alone", tmp / "cut", fs::copy_options::recursive);
  const std::string summary = read_text(tmp / "cut" / "summary.csv");
  write_text(tmp / "cut" / "summary.csv", summary.substr(0, summary.find('\n') + 1));
  const auto cut = run_program(bench_mps_exe(), {"predict", (tmp / "cut").string(), "--xray", xray, "--procs", "2",
                                                 "--out", (tmp / "p").string()});
  EXPECT_EQ(cut.exit_code, 2) << cut.err;
  EXPECT_NE(cut.err.find("summary.csv: 0 runs, but meta.json says the sweep recorded"), std::string::npos) << cut.err;
  EXPECT_FALSE(fs::exists(tmp / "p"));
  // An X-ray of CPU stand-ins for a program profiled on an H100.
  fs::copy(study() / "xray", tmp / "cpu-xray", fs::copy_options::recursive);
  nlohmann::json meta = nlohmann::json::parse(read_text(tmp / "cpu-xray" / "meta.json"));
  meta["gpu"] = nullptr;  // what a CPU-only run writes
  write_text(tmp / "cpu-xray" / "meta.json", meta.dump());
  const auto cpu = run_program(bench_mps_exe(), {"predict", alone, "--xray", (tmp / "cpu-xray").string()});
  EXPECT_EQ(cpu.exit_code, 2) << cpu.err;
  EXPECT_NE(cpu.err.find("--xray " + (tmp / "cpu-xray").string() + ": an X-ray of CPU stand-ins"), std::string::npos)
      << cpu.err;
  // A folder --out cannot write: said before the table.
  fs::create_directories(tmp / "ro");
  fs::permissions(tmp / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  const auto ro = run_program(bench_mps_exe(),
                              {"predict", alone, "--xray", xray, "--procs", "2", "--out", (tmp / "ro" / "p").string()});
  fs::permissions(tmp / "ro", fs::perms::owner_all);
  if (::geteuid() != 0) {  // root writes anywhere
    EXPECT_EQ(ro.exit_code, 2) << ro.err;
    EXPECT_NE(ro.err.find("--out"), std::string::npos) << ro.err;
    EXPECT_TRUE(ro.out.empty()) << ro.out;
  }
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

// Issue 42: one unit. `--measure` on a copy alone and predict's unit of the same profile alone (the unit every
// prediction scales from) agree to rounding on eight of the study's programs (until 2026-12-07 predict took the
// trace's rebuilt steps: 0.09 % apart on cuda-graphs), the measurement is the common window's, no other definition standing in, and both keep the same
// phase (mnist's and mnist-rnn's test pass, wlm's evaluation batches, gemm's slow head left out on both sides).
TEST(PredictHostile, MeasureAndPredictGiveOneCopyAloneTheSameUnit) {
  TempDir tmp;
  // mnist-startup is left out: its steady part holds 4 steps (0.04 to 358 ms), which the two cut differently.
  for (const char* program :
       {"membw", "gemm", "cuda-graphs", "wlm-lstm", "wlm-transformer", "vae", "mnist", "mnist-rnn"}) {
    const fs::path alone = study() / program / "alone";
    fs::copy(alone, tmp / program, fs::copy_options::recursive);
    const auto m = run_program(bench_mps_exe(), {"predict", "--measure", (tmp / program).string()});
    ASSERT_EQ(m.exit_code, 0) << program << ": " << m.err;
    const auto p =
        run_program(bench_mps_exe(), {"predict", alone.string(), "--xray", (study() / "xray").string(), "--procs", "2",
                                      "--out", (tmp / (std::string(program) + "-p")).string()});
    ASSERT_EQ(p.exit_code, 0) << program << ": " << p.err;
    const nlohmann::json j = nlohmann::json::parse(read_text(tmp / (std::string(program) + "-p") / "predict.json"));
    for (const auto& row : csv_records(tmp / program / "units.csv")) {
      EXPECT_EQ(row.at("unit_basis"), "common window") << program;
      // One copy: the window is its whole kept steady part, which holds its steps (from its first step end on).
      EXPECT_EQ(row.at("coverage"), "1") << program;
      EXPECT_GE(std::stod(row.at("steady_s")) * 1e3, std::stod(row.at("unit_ms")) * std::stod(row.at("steps")))
          << program;
      EXPECT_LE(std::stod(row.at("steady_s")) * 1e3, std::stod(row.at("unit_ms")) * (std::stod(row.at("steps")) + 2))
          << program;
      for (const auto& a : j.at("alone_runs"))
        if (a.at("mode") == row.at("mode")) {
          // One kind of step on both sides: the same phase kept (a test pass, evaluation batches, a slow head).
          // The same steps: the same words (steps 1-224 of 240, the tail left out), not only the same kind; a
          // review found predict keeping the step that waits for the profile's closing span (1-222 of 241).
          const std::string mine = row.at("phase"), theirs = a.at("phase");
          EXPECT_EQ(mine, theirs) << program;
          // predict's unit is the mean of its trace's steps, measure's the wait-to-wait times: the same steps, so
          // the same mean, but for rounding (units.csv's nine digits)
          EXPECT_NEAR(std::stod(row.at("unit_ms")) / a.at("unit_ms").get<double>(), 1.0, 1e-7)
              << program << " " << row.at("mode") << ": measured " << row.at("unit_ms") << " ms, predict's "
              << a.at("unit_ms");
        }
    }
  }
}

// A profile without host waits is cut at idle gaps: its unit is a step between bursts, not between host waits.
TEST(PredictHostile, AProfileWithoutHostWaitsNamesItsStepsBetweenBursts) {
  TempDir tmp;
  fs::path one;
  for (const auto& e :
       fs::recursive_directory_iterator(study() / "vae" / "alone" / "profiles" / "r1-timeslice-exec-n1"))
    if (e.path().extension() == ".gz") one = e.path();
  ASSERT_FALSE(one.empty());
  nlohmann::json d = nlohmann::json::parse(harness::read_gzip_text(one));
  d["waits_status"] = "cuptiEnableCallback failed: CUPTI_ERROR_NOT_INITIALIZED";
  d["waits"] = {
      {"count", 0}, {"sync_copies", 0}, {"kept_head", 0}, {"kept_tail", 0}, {"spans", nlohmann::json::array()}};
  write_text(tmp / "profile-1.json", d.dump());
  const auto p =
      run_program(bench_mps_exe(), {"predict", (tmp / "profile-1.json").string(), "--xray", (study() / "xray").string(),
                                    "--procs", "2", "--out", (tmp / "p").string()});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const std::string md = read_text(tmp / "p" / "predict.md");
  EXPECT_NE(md.find("): a step between bursts "), std::string::npos) << md;
  EXPECT_EQ(md.find("a step between host waits"), std::string::npos) << md;
}

// A run whose copies have no unit (their profiles gone) counts per whole run and is left out per unit, said so; a
// review found it blanking the whole per-unit cell, the other run's four units with it, while `runs` counted it.
TEST(PredictHostile, ARunWithoutUnitsLeavesTheOtherRunsUnitMeasured) {
  TempDir tmp;
  fs::copy(source_dir() / "results/2026-12-05-cores2-ladder/gate/vae/steady", tmp / "m", fs::copy_options::recursive);
  fs::remove_all(tmp / "m" / "profiles" / "r1-mps-exec-n4");
  fs::remove(tmp / "m" / "units.csv");
  ASSERT_EQ(run_program(bench_mps_exe(), {"predict", "--measure", (tmp / "m").string()}).exit_code, 0);
  const auto p =
      run_program(bench_mps_exe(), {"predict", (tmp / "m").string(), "--xray", (study() / "xray").string(), "--procs",
                                    "4", "--against", (tmp / "m").string(), "--out", (tmp / "p").string()});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  double r2 = 0;
  int copies = 0;
  for (const auto& row : csv_records(tmp / "m" / "units.csv"))
    if (row.at("run_id") == "r2-mps-exec-n4") {
      r2 += std::stod(row.at("unit_ms"));
      ++copies;
    }
  ASSERT_EQ(copies, 4);
  for (const auto& row : csv_records(tmp / "p" / "predict.csv"))
    if (row.at("mode") == "mps" && row.at("procs") == "4") {
      EXPECT_EQ(row.at("runs"), row.at("basis") == "unit" ? "1" : "2") << row.at("basis");
      if (row.at("basis") == "unit") EXPECT_NEAR(std::stod(row.at("measured")), r2 / 4, 1e-6) << "r2's mean";
    }
  EXPECT_NE(read_text(tmp / "p" / "predict.md").find(" | 1 (+1 without a unit) |"), std::string::npos)
      << read_text(tmp / "p" / "predict.md");
}

// A gated copy alone counts its steady part from its release at the start gate, on both sides: a review found
// predict counting a wait that ended between the steady part's start and the release (mnist-rnn 4.670 ms against
// --measure's 4.690 ms, 0.4 % apart). The runs alone of four of the study's gated ladders (their rows and profiles
// alone, as the review cut them): each one's draw in predict.json is its unit in units.csv, to rounding.
TEST(PredictHostile, AGatedCopyAloneCountsFromItsReleaseOnBothSides) {
  TempDir tmp;
  for (const char* program : {"mnist-rnn", "siamese", "batched-infer", "mnist-ff"}) {
    const fs::path ladder = source_dir() / "results/2026-12-02-study" / program / "ladder";
    const fs::path copy = tmp / program;
    fs::copy(ladder, copy, fs::copy_options::recursive);
    fs::remove(copy / "units.csv");
    const auto untar =
        run_program("/bin/tar", {"xJf", (ladder / "alone-profiles.tar.xz").string(), "-C", copy.string()});
    ASSERT_EQ(untar.exit_code, 0) << untar.err;
    for (const char* table : {"runs.csv", "summary.csv"}) {  // the runs alone: the only ones with profiles here
      std::istringstream in(read_text(ladder / table));
      std::string header, line, kept;
      std::getline(in, header);
      const std::string before = header.substr(0, header.find(",procs,"));  // procs is the column after these
      const auto column = static_cast<std::size_t>(std::count(before.begin(), before.end(), ',') + 1);
      kept = header + "\n";
      while (std::getline(in, line)) {
        std::istringstream cells(line);
        std::string cell;
        for (std::size_t c = 0; c <= column; ++c) std::getline(cells, cell, ',');
        if (cell == "1") kept += line + "\n";
      }
      write_text(copy / table, kept);
    }
    const auto m = run_program(bench_mps_exe(), {"predict", "--measure", copy.string()});
    ASSERT_EQ(m.exit_code, 0) << program << ": " << m.err;
    const fs::path out = tmp / (std::string(program) + "-p");
    const auto p = run_program(
        bench_mps_exe(), {"predict", copy.string(), "--xray", (source_dir() / "results/2026-12-02-study/xray").string(),
                          "--procs", "2", "--out", out.string()});
    ASSERT_EQ(p.exit_code, 0) << program << ": " << p.err;
    const nlohmann::json j = nlohmann::json::parse(read_text(out / "predict.json"));
    std::size_t gated = 0, compared = 0;
    for (const auto& row : csv_records(copy / "units.csv")) {
      for (const auto& w : csv_records(copy / "runs.csv"))
        if (w.at("run_id") == row.at("run_id") && w.at("facts").find("gate_release_mono_s=") != std::string::npos)
          ++gated;
      for (const auto& a : j.at("alone_runs")) {
        if (a.at("mode") != row.at("mode")) continue;
        bool found = false;
        for (const auto& d : a.at("draws_unit_ms"))
          found = found || std::fabs(d.get<double>() / std::stod(row.at("unit_ms")) - 1) < 1e-7;
        EXPECT_TRUE(found) << program << " " << row.at("run_id") << ": measured " << row.at("unit_ms")
                           << " ms, predict's draws " << a.at("draws_unit_ms").dump();
        ++compared;
      }
    }
    EXPECT_GE(gated, 3u) << program << ": its runs alone were gated";
    EXPECT_EQ(compared, gated) << program;
  }
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

/// `text` with every line that begins with `from` begun with `to` instead, followed by the same lines again.
std::string with_copied_rows(const std::string& text, const std::string& from, const std::string& to) {
  std::string out = text, added;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(from, 0) == 0) added += to + line.substr(from.size()) + "\n";
  return out + added;
}

// Issue 42: the alone anchor with its spread. Three runs of one copy alone time-sliced (the gemm study's own,
// then its MPS run's profile twice, another unit): the middle unit stands for the program, every draw is said
// with the drift, and every prediction scaled from it carries the draws' spread.
/// The gemm study's runs alone in `alone`, with two more time-sliced runs alone whose rows and profile are its MPS
/// run's: three draws time-sliced (the MPS profile's twice), one under MPS.
void three_runs_alone(const fs::path& alone) {
  fs::copy(study() / "gemm" / "alone", alone, fs::copy_options::recursive);
  const std::string prefix = "r1-mps-exec-n1,1,exec,command=zoo/run.sh gemm,mps,100,1,";
  for (const char* file : {"summary.csv", "runs.csv"}) {
    std::string text = read_text(alone / file);
    ASSERT_NE(text.find(prefix), std::string::npos) << file;
    for (const char* run : {"r2", "r3"})
      text = with_copied_rows(
          text, prefix,
          std::string(run) + "-timeslice-exec-n1," + run[1] + ",exec,command=zoo/run.sh gemm," + "timeslice,,1,");
    write_text(alone / file, text);
  }
  for (const char* run : {"r2", "r3"})
    fs::copy(alone / "profiles" / "r1-mps-exec-n1", alone / "profiles" / (std::string(run) + "-timeslice-exec-n1"),
             fs::copy_options::recursive);
}

TEST(PredictHostile, SeveralRunsAloneGiveTheMiddleOneAndTheirSpreadToEveryPrediction) {
  TempDir tmp;
  const fs::path alone = tmp / "alone";
  three_runs_alone(alone);
  // One replay (--phases 0): the interval is the draws' spread alone.
  const auto r = run_program(bench_mps_exe(), {"predict", alone.string(), "--xray", (study() / "xray").string(),
                                               "--procs", "2", "--phases", "0", "--out", (tmp / "p").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_text(tmp / "p" / "predict.json"));
  const auto ts = std::find_if(j.at("alone_runs").begin(), j.at("alone_runs").end(),
                               [](const nlohmann::json& a) { return a.at("mode") == "timeslice"; });
  ASSERT_NE(ts, j.at("alone_runs").end());
  EXPECT_TRUE(ts->at("stands_for_program").get<bool>()) << *ts;
  const auto draws = ts->at("draws_unit_ms").get<std::vector<double>>();
  ASSERT_EQ(draws.size(), 3u);
  EXPECT_EQ(draws[1], draws[2]) << "r2 and r3 are one profile";
  EXPECT_GT(std::abs(draws[1] / draws[0] - 1), 0.01) << "the MPS run's unit is another draw";
  EXPECT_EQ(ts->at("unit_ms").get<double>(), draws[1]) << "the middle of three";
  EXPECT_NE(r.out.find("3 runs alone in this mode, in order:"), std::string::npos) << r.out;
  // gemm, the slow head left out: 0.8470 ms time-sliced, 0.8613 ms from the MPS profile (+1.7 %).
  EXPECT_NE(r.out.find("the last over the first +1.7%"), std::string::npos) << r.out;
  const double low = std::min(draws[0], draws[1]), high = std::max(draws[0], draws[1]);
  // Every prediction carries the draws' spread: low and high = x draws' min and max over the middle.
  int checked = 0;
  for (const auto& row : csv_records(tmp / "p" / "predict.csv")) {
    if (row.at("predicted_low").empty() || row.at("predicted_low") == "-") continue;
    const double x = std::stod(row.at("predicted")), lo = std::stod(row.at("predicted_low")),
                 hi = std::stod(row.at("predicted_high"));
    if (row.at("basis") == "unit") {
      EXPECT_NEAR(lo / x, low / draws[1], 1e-6) << row.at("mode");
      EXPECT_NEAR(hi / x, high / draws[1], 1e-6) << row.at("mode");
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4) << "2 modes x 2 bases at N=2";
  // With phase draws (the default, 16), the interval is the draws' least and largest, each over that spread:
  // it holds the value scaled by the spread, and the value is the draws' mean.
  const auto phased = run_program(bench_mps_exe(), {"predict", alone.string(), "--xray", (study() / "xray").string(),
                                                    "--procs", "2", "--out", (tmp / "q").string()});
  ASSERT_EQ(phased.exit_code, 0) << phased.err;
  const nlohmann::json q = nlohmann::json::parse(read_text(tmp / "q" / "predict.json"));
  EXPECT_EQ(q.at("phases"), 16);
  for (const auto& row : csv_records(tmp / "q" / "predict.csv")) {
    EXPECT_EQ(row.at("phases"), "16");
    if (row.at("basis") != "unit") continue;
    const double x = std::stod(row.at("predicted")), lo = std::stod(row.at("predicted_low")),
                 hi = std::stod(row.at("predicted_high"));
    EXPECT_LE(lo, x * low / draws[1] * (1 + 1e-9)) << row.at("mode");
    EXPECT_GE(hi, x * high / draws[1] * (1 - 1e-9)) << row.at("mode");
  }
}

// Issue 45 items 1 and 5: --draws all replays every run alone from its own trace. Of the four here (three
// time-sliced, one MPS), three are one profile, the one that stands for the program (the middle time-sliced); so
// the median of the runs' ratios is its ratio and each cell's value is --draws one's, while the interval now spans
// the other trace's replay too.
TEST(PredictHostile, EveryRunAloneReplayedGivesTheMedianOfTheirRatiosAndTheirSpread) {
  TempDir tmp;
  const fs::path alone = tmp / "alone";
  three_runs_alone(alone);
  std::map<std::string, std::vector<std::map<std::string, std::string>>> rows;
  for (const char* draws : {"one", "all"}) {
    const auto r =
        run_program(bench_mps_exe(), {"predict", alone.string(), "--xray", (study() / "xray").string(), "--procs",
                                      "2,4", "--phases", "0", "--draws", draws, "--out", (tmp / draws).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    rows[draws] = csv_records(tmp / draws / "predict.csv");
    const nlohmann::json j = nlohmann::json::parse(read_text(tmp / draws / "predict.json"));
    EXPECT_EQ(j.contains("draws"), std::string(draws) == "all") << "absent where one, as before --draws";
    EXPECT_EQ(r.out.find("Every run alone replayed (--draws all): 4 runs") != std::string::npos,
              std::string(draws) == "all")
        << r.out;
  }
  ASSERT_EQ(rows["one"].size(), rows["all"].size());
  int wider = 0;
  for (std::size_t i = 0; i < rows["one"].size(); ++i) {
    const auto& one = rows["one"][i];
    const auto& all = rows["all"][i];
    ASSERT_EQ(one.at("mode") + one.at("procs") + one.at("basis"), all.at("mode") + all.at("procs") + all.at("basis"));
    const std::string cell = all.at("mode") + " N=" + all.at("procs") + " " + all.at("basis");
    const double x = std::stod(one.at("predicted"));
    EXPECT_NEAR(std::stod(all.at("predicted")), x, 1e-6 * x) << cell;
    const double lo1 = std::stod(one.at("predicted_low")), hi1 = std::stod(one.at("predicted_high"));
    const double lo = std::stod(all.at("predicted_low")), hi = std::stod(all.at("predicted_high"));
    EXPECT_LE(lo, lo1 * (1 + 1e-9)) << cell;
    EXPECT_GE(hi, hi1 * (1 - 1e-9)) << cell;
    EXPECT_LE(lo, std::stod(all.at("predicted")) * (1 + 1e-9)) << cell;
    EXPECT_GE(hi, std::stod(all.at("predicted")) * (1 - 1e-9)) << cell;
    wider += lo < lo1 * (1 - 1e-6) || hi > hi1 * (1 + 1e-6);
  }
  EXPECT_GT(wider, 0) << "the other trace's replay differs somewhere, and widens an interval";
}

// Without phase draws, --draws all's runs alone are what spreads over the CPUs: the same files on one or many.
TEST(PredictHostile, EveryRunAloneReplayedOnOneCpuOrManyGivesTheSameFiles) {
  std::string why;
  if (!can_spread(why)) GTEST_SKIP() << why;
  TempDir tmp;
  three_runs_alone(tmp / "alone");
  const auto rows =
      same_files_on_one_cpu_or_many({"predict", (tmp / "alone").string(), "--xray", (study() / "xray").string(),
                                     "--procs", "2,4", "--phases", "0", "--draws", "all"},
                                    tmp.path());
  EXPECT_EQ(rows.size(), 8u);
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

// A gated ladder with its own runs alone (--exec-alone-runs) is both the alone folder and the ladder: its N=1 runs
// feed the prediction, its runs of N >= 2 score it (docs/PREDICT.md). Made here from the study's gemm: the alone
// runs' rows and profiles added to a copy of its ladder.
TEST(PredictHostile, ALadderWithItsOwnRunsAloneIsBothAloneAndAgainst) {
  TempDir tmp;
  const fs::path both = tmp / "both";
  fs::copy(study() / "gemm" / "ladder", both, fs::copy_options::recursive);
  for (const char* file : {"summary.csv", "runs.csv"}) {
    const std::string alone = read_text(study() / "gemm" / "alone" / file);
    write_text(both / file, read_text(both / file) + alone.substr(alone.find('\n') + 1));
  }
  fs::copy(study() / "gemm" / "alone" / "profiles", both / "profiles",
           fs::copy_options::recursive | fs::copy_options::skip_existing);
  // units.csv holds every copy of runs.csv: the runs alone's too (as --measure writes them, their own units).
  std::string units = read_text(both / "units.csv");
  units += "r1-timeslice-exec-n1,timeslice,1,1,0,ok,5.04406,0.847,common window,717\n";
  units += "r1-mps-exec-n1,mps,1,1,0,ok,4.57186,0.8613,common window,717\n";
  write_text(both / "units.csv", units);
  const auto r =
      run_program(bench_mps_exe(), {"predict", both.string(), "--xray", (study() / "xray").string(), "--procs", "2",
                                    "--against", both.string(), "--out", (tmp / "p").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_records(tmp / "p" / "predict.csv");
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) EXPECT_EQ(row.at("runs"), "2") << row.at("mode") << " " << row.at("basis");
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

// Issue 45 item 7: --against an advise folder scores its ladder: every rung's sweep and every set added to settle
// the verdict (sweeps/ladder-N, sweeps/more-K-MODE-nN; their run ids alike, kept apart), not its alone run or
// limits; an advise folder without a ladder is one line and exit 2.
TEST(PredictHostile, AgainstAnAdviseFolderScoresItsLadderAndTheSetsAddedToIt) {
  TempDir tmp;
  const fs::path advise = source_dir() / "results" / "2026-11-27-advise-intervals" / "lease-e" / "client";
  const auto r = run_program(bench_mps_exe(), {"predict", (advise / "sweeps" / "alone").string(), "--xray",
                                               (advise / "sweeps" / "xray").string(), "--procs", "2,4", "--against",
                                               advise.string(), "--out", (tmp / "p").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> runs;
  for (const auto& row : csv_records(tmp / "p" / "predict.csv"))
    runs[row.at("mode") + " " + row.at("procs") + " " + row.at("basis")] = row.at("runs");
  // ladder-2 and ladder-4 ran two worker sets per mode; six more sets per mode were added at N=4.
  EXPECT_EQ(runs["timeslice 2 run"], "2");
  EXPECT_EQ(runs["mps 2 run"], "2");
  EXPECT_EQ(runs["timeslice 4 run"], "8");
  EXPECT_EQ(runs["mps 4 run"], "8");
  EXPECT_EQ(runs["mps 4 unit"], "8") << "the client prints its step (--exec-metric): a unit in every set";
  // The same rung's sweep alone gives its own two.
  const auto one =
      run_program(bench_mps_exe(), {"predict", (advise / "sweeps" / "alone").string(), "--xray",
                                    (advise / "sweeps" / "xray").string(), "--procs", "4", "--against",
                                    (advise / "sweeps" / "ladder-4").string(), "--out", (tmp / "one").string()});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  for (const auto& row : csv_records(tmp / "one" / "predict.csv")) EXPECT_EQ(row.at("runs"), "2") << row.at("mode");
  // An advise folder whose ladder never ran.
  fs::create_directories(tmp / "empty" / "sweeps");
  fs::copy(advise / "advice.json", tmp / "empty" / "advice.json");
  const auto e = run_program(bench_mps_exe(), {"predict", (advise / "sweeps" / "alone").string(), "--xray",
                                               (advise / "sweeps" / "xray").string(), "--against",
                                               (tmp / "empty").string(), "--out", (tmp / "e").string()});
  EXPECT_EQ(e.exit_code, 2) << e.err;
  EXPECT_NE(e.err.find("an advise folder whose ladder wrote no summary.csv"), std::string::npos) << e.err;
  EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
  EXPECT_FALSE(fs::exists(tmp / "e"));
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

/// `file` with every non-empty cell of `column` set to `value` (plain CSV: no quoted commas).
void set_column(const fs::path& file, const std::string& column, const std::string& value) {
  std::istringstream in(read_text(file));
  std::string line, out;
  long at = -1;
  for (bool header = true; std::getline(in, line); header = false) {
    std::vector<std::string> cells;
    std::stringstream split(line);
    for (std::string c; std::getline(split, c, ',');) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    if (header) at = std::find(cells.begin(), cells.end(), column) - cells.begin();
    if (!header && at >= 0 && at < static_cast<long>(cells.size()) && !cells[at].empty()) cells[at] = value;
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  write_text(file, out);
}

// Issue 43, the second battery: what was still taken for what it is not, or answered with a hang or exit 1.
TEST(PredictHostile, ASchedulerNoCardHasAForeignProfileAndAPathLoopAreRefused) {
  TempDir tmp;
  const std::string alone = (study() / "gemm" / "alone").string(), xray = (study() / "xray").string();
  struct Case {
    std::string name;
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Case> cases;
  // An X-ray whose slice or switch no card has: refused at once (replayed, it ran for hours).
  for (const auto& [column, value] : {std::pair<std::string, std::string>{"xray_slice_ms", "1e-9"},
                                      {"xray_switch_ms", "1e10"},
                                      {"xray_hold_us", "1e300"}}) {
    const fs::path x = tmp / ("x-" + column);
    fs::copy(study() / "xray", x, fs::copy_options::recursive);
    set_column(x / "summary.csv", column, value);
    cases.push_back({column, {"predict", alone, "--xray", x.string(), "--procs", "2"}, "is not a scheduler's"});
  }
  // Another process's profile under this run's file name (membw's over gemm's): not this run's.
  const fs::path foreign = tmp / "foreign";
  fs::copy(study() / "gemm" / "alone", foreign, fs::copy_options::recursive);
  fs::copy_file(study() / "membw" / "alone" / "profiles" / "r1-mps-exec-n1" / "w0" / "profile-5094.json.gz",
                foreign / "profiles" / "r1-mps-exec-n1" / "w0" / "profile-2204.json.gz",
                fs::copy_options::overwrite_existing);
  cases.push_back({"foreign profile", {"predict", foreign.string(), "--xray", xray}, "another process's profile"});
  // A folder whose meta.json names no GPU is checked by its profiles' GPU; a bare profile names no program.
  const fs::path nogpu = tmp / "nogpu", a100 = tmp / "a100";
  fs::copy(study() / "gemm" / "alone", nogpu, fs::copy_options::recursive);
  nlohmann::json meta = nlohmann::json::parse(read_text(nogpu / "meta.json"));
  meta["gpu"] = nullptr;  // a CPU-only run
  write_text(nogpu / "meta.json", meta.dump());
  fs::copy(study() / "xray", a100, fs::copy_options::recursive);
  nlohmann::json xmeta = nlohmann::json::parse(read_text(a100 / "meta.json"));
  xmeta["gpu"]["name"] = "NVIDIA A100-SXM4-40GB";
  write_text(a100 / "meta.json", xmeta.dump());
  cases.push_back({"no gpu", {"predict", nogpu.string(), "--xray", a100.string()}, "the program's profiles ran on"});
  const std::string profile =
      (study() / "gemm" / "alone" / "profiles" / "r1-mps-exec-n1" / "w0" / "profile-2204.json.gz").string();
  cases.push_back({"profile, a100", {"predict", profile, "--xray", a100.string()}, "the program's profiles ran on"});
  cases.push_back({"profile against",
                   {"predict", profile, "--xray", xray, "--against", (study() / "membw" / "ladder").string()},
                   "names no program"});
  // --out inside a folder predict reads; --procs with --max-procs; a loop of links for --out and in a profile.
  cases.push_back({"out inside", {"predict", alone, "--xray", xray, "--out", alone + "/scored"}, "lies inside"});
  cases.push_back({"max-procs",
                   {"predict", alone, "--xray", xray, "--procs", "2", "--max-procs", "4"},
                   "--max-procs: does not apply with --procs"});
  fs::create_symlink(tmp / "loop-b", tmp / "loop-a");
  fs::create_symlink(tmp / "loop-a", tmp / "loop-b");
  cases.push_back({"out loop", {"predict", alone, "--xray", xray, "--out", (tmp / "loop-a").string()}, "--out"});
  fs::create_symlink(tmp / "nowhere" / "x", tmp / "dangling");
  cases.push_back(
      {"out dangling", {"predict", alone, "--xray", xray, "--out", (tmp / "dangling").string()}, "a link to nothing"});
  // --out where nothing can be made (root may write everywhere by access(), but not in /proc), or under a file.
  cases.push_back({"out in proc", {"predict", alone, "--xray", xray, "--out", "/proc/x"}, "/proc is not writable"});
  write_text(tmp / "afile", "");
  cases.push_back({"out under a file",
                   {"predict", alone, "--xray", xray, "--out", (tmp / "afile" / "x").string()},
                   "is a file, not a folder"});
  const fs::path looped = tmp / "looped";
  fs::copy(study() / "gemm" / "alone", looped, fs::copy_options::recursive);
  const fs::path w0 = looped / "profiles" / "r1-mps-exec-n1" / "w0";
  fs::create_symlink(w0 / "profile-2.json", w0 / "profile-1.json");
  fs::create_symlink(w0 / "profile-1.json", w0 / "profile-2.json");
  cases.push_back({"profile loop", {"predict", looped.string(), "--xray", xray}, ""});
  for (const Case& c : cases) {
    const auto start = std::chrono::steady_clock::now();
    const auto r = run_program(bench_mps_exe(), c.args);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30) << c.name;
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.name << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.name << ": " << r.out;
  }
  EXPECT_FALSE(fs::exists(fs::path(alone) / "scored"));
  // A trailing "/" keeps the program's name.
  const auto named = run_program(bench_mps_exe(), {"predict", alone + "/", "--xray", xray, "--procs", "2"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.out.find("# Predicted: alone\n"), std::string::npos) << named.out;
}

TEST(PredictHostile, ADamagedOrStaleUnitsCsvIsRefusedAndCopiesNotCoRunScoreNothing) {
  TempDir tmp;
  const std::string alone = (study() / "gemm" / "alone").string(), xray = (study() / "xray").string();
  const fs::path ladder = study() / "gemm" / "ladder";
  const std::string units = read_text(ladder / "units.csv");
  const std::string header = units.substr(0, units.find('\n') + 1), rows = units.substr(header.size());
  std::string first_n2;  // the ladder's rows without its N=2 runs: rows of runs.csv it lacks
  for (std::istringstream in(rows); std::getline(in, first_n2);) break;
  struct Case {
    std::string name, units, says;
  };
  const std::vector<Case> cases{
      {"header only", header, "lacks copy"},
      {"twice", header + rows + rows, "twice"},
      {"stale", header + rows + "r9-mps-exec-n2,mps,2,9,0,ok,5,1,common window,100\n", "is not in its runs.csv"},
      // a copy whose N is not its run's: a review found it scored (the cell lost a run) and not refused
      {"procs",
       header +
           [&] {
             std::string r = rows;
             const std::size_t at = r.find(",mps,2,");
             return at == std::string::npos ? r : r.replace(at, 7, ",mps,3,");
           }(),
       "says mps N=3, its runs.csv mps N=2: damaged"},
      // numbers no run can have: a review found them scored as measured
      {"huge unit",
       header +
           [&] {
             std::string r = rows;
             const std::size_t at = r.find(",common window,");
             const std::size_t before = r.rfind(',', at - 1);
             return r.replace(before + 1, at - before - 1, "1e300");
           }(),
       "a time longer than a run can last (172800 s)"}};
  for (const Case& c : cases) {
    const fs::path l = tmp / c.name;
    fs::copy(ladder, l, fs::copy_options::recursive);
    write_text(l / "units.csv", c.units);
    const auto r = run_program(bench_mps_exe(), {"predict", alone, "--xray", xray, "--against", l.string()});
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find("--against"), std::string::npos) << c.name << ": " << r.err;
  }
  // Every copy not co-run: no cell measured N copies at once, on either basis.
  const fs::path apart = tmp / "apart";
  fs::copy(ladder, apart, fs::copy_options::recursive);
  set_column(apart / "units.csv", "unit_basis", "not co-run");
  set_column(apart / "units.csv", "unit_ms", "");
  const auto r = run_program(bench_mps_exe(), {"predict", alone, "--xray", xray, "--procs", "2,4,10", "--against",
                                               apart.string(), "--out", (tmp / "p").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_of(r.out, "| 0 (+2 not co-run) |"), 12u) << r.out;
  for (const auto& row : csv_records(tmp / "p" / "predict.csv")) EXPECT_EQ(row.at("runs"), "0") << row.at("basis");
}

// A stored units.csv measured before copies followed their runs alone can hold a copy of N >= 2 that kept the steps
// its runs alone left out: mnist-ff's at N=10 time-sliced in the study (results/2026-12-02-study), the head of short
// host waits where every run alone kept the tail of training steps. predict --against marks those copies "other
// phase" and leaves their run out of every score; a copy whose phase says nothing of its ends (an NVTX range, the
// whole steady part, no words) and a copy not co-run stay as they were.
TEST(PredictHostile, AStoredCopyOfTheStepsItsRunsAloneLeftOutIsAnotherPhaseAndScoresNothing) {
  const fs::path gated = source_dir() / "results" / "2026-12-02-study";
  std::vector<harness::MeasuredUnit> units = harness::read_units(gated / "mnist-ff" / "ladder" / "units.csv");
  EXPECT_EQ(harness::mark_other_phase(units), 10);
  for (const harness::MeasuredUnit& u : units)
    EXPECT_EQ(u.basis == harness::UnitBasis::other_phase, u.run_id == "r2-timeslice-exec-n10")
        << u.run_id << " copy " << u.worker << ": " << u.phase;
  EXPECT_EQ(harness::unit_basis_word(harness::UnitBasis::other_phase), std::string("other phase"));

  const auto copy = [](int procs, const std::string& phase, harness::UnitBasis basis) {
    harness::MeasuredUnit u;
    u.run_id = "r1-timeslice-exec-n" + std::to_string(procs);
    u.procs = procs;
    u.basis = basis;
    u.phase = phase;
    return u;
  };
  const std::string head = "steps 38-755 of 755 (left out: a head of 37 ends at 4.40x the step)";
  const std::string tail = "steps 1-229 of 240 (left out: a tail of 11 ends at 3.61x the step)";
  const std::string both =
      "steps 3-229 of 240 (left out: a head of 2 ends at 5.00x the step, a tail of 11 ends at "
      "3.61x the step)";
  using B = harness::UnitBasis;
  std::vector<harness::MeasuredUnit> mixed{copy(1, tail, B::common_window),
                                           copy(1, tail, B::common_window),
                                           copy(1, head, B::common_window),
                                           copy(2, head, B::common_window),
                                           copy(2, both, B::common_window),
                                           copy(2, "whole steady part", B::common_window),
                                           copy(2, "steps 2-41 of 60 in NVTX range 'train'", B::common_window),
                                           copy(2, head, B::not_co_run),
                                           copy(2, "", B::metric),
                                           copy(4, tail, B::common_window)};
  EXPECT_EQ(harness::mark_other_phase(mixed), 1) << "the runs alone left out a tail: only a head alone is other";
  EXPECT_EQ(mixed[3].basis, B::other_phase);
  EXPECT_EQ(mixed[7].basis, B::not_co_run);
  EXPECT_EQ(mixed[2].basis, B::common_window) << "a run alone is never another phase";
  std::vector<harness::MeasuredUnit> unparted{copy(1, "whole steady part", B::common_window),
                                              copy(2, tail, B::common_window)};
  EXPECT_EQ(harness::mark_other_phase(unparted), 0) << "runs alone never parted: nothing to be the other side of";
  std::vector<harness::MeasuredUnit> tie{copy(1, head, B::common_window), copy(1, tail, B::common_window),
                                         copy(2, tail, B::common_window), copy(2, head, B::common_window)};
  EXPECT_EQ(harness::mark_other_phase(tie), 1) << "a tie: the earliest run alone's";
  EXPECT_EQ(tie[2].basis, B::other_phase);

  // Through predict: the cell of that run scores nothing, and predict.md says why under its table.
  TempDir tmp;
  const fs::path ladder = tmp / "ladder";
  fs::copy(gated / "mnist-ff" / "ladder", ladder, fs::copy_options::recursive);
  ASSERT_EQ(
      run_program("/bin/tar", {"-xJf", (ladder / "alone-profiles.tar.xz").string(), "-C", ladder.string()}).exit_code,
      0);
  const auto r = run_program(bench_mps_exe(), {"predict", ladder.string(), "--xray", (gated / "xray").string(),
                                               "--procs", "10", "--phases", "0", "--against", ladder.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_of(r.out, "| 0 (+1 not co-run) (+1 other phase) |"), 2u) << r.out;
  EXPECT_NE(r.out.find("1 run (\"other phase\") left out of the scores"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace bench_mps::testing
