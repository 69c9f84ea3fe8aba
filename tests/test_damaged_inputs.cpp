// Damaged results folders and hostile options for the readers, `bench_mps report` and `bench_mps
// compare` (issue 21): each is refused with exit 2 and one line naming the user's file and the problem,
// never counted, never written over; a stop signal to `report` ends its plotting script and leaves
// no staging folder behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <csignal>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "harness/common/csv_table.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/sweep_meta.hpp"
#include "harness/sweep/resume.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

using namespace harness;

fs::path compare_fixture(const std::string& name) { return fixtures_dir() / "compare" / name; }
fs::path smoke_fixture() { return fixtures_dir() / "results_h200_smoke"; }

/// A copy of `from` at `to`.
fs::path copy_of(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive);
  return to;
}

/// The lines of `file` (each with its newline), for editing.
std::vector<std::string> lines_of(const fs::path& file) {
  std::vector<std::string> lines;
  for (const std::string& line : read_lines(file)) lines.push_back(line + "\n");
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l;
  return out;
}

/// `line` with its cell number `index` (0-based) replaced by `value` (no quoted cells in these rows).
std::string with_cell(const std::string& line, std::size_t index, const std::string& value) {
  std::size_t begin = 0;
  for (std::size_t i = 0; i < index; ++i) begin = line.find(',', begin) + 1;
  const std::size_t end = line.find_first_of(",\n", begin);
  return line.substr(0, begin) + value + line.substr(end);
}

/// The smoke fixture's runs.csv predates its `facts` column: add it, empty, so the file reads.
void add_facts_column(const fs::path& dir) {
  std::string text;
  bool header = true;
  for (const std::string& line : read_lines(dir / "runs.csv")) {
    text += line + (header ? ",facts\n" : ",\n");
    header = false;
  }
  write_text(dir / "runs.csv", text);
}

/// The index of column `name` in a CSV header line.
std::size_t column_of(const std::string& header, const std::string& name) {
  const std::string line = "," + header;
  return static_cast<std::size_t>(std::count(line.begin(), line.begin() + line.find("," + name + ","), ','));
}

/// Exit 2, one line on stderr that names `file` and holds `problem`, nothing on stdout.
void expect_refused(const CommandOutput& r, const fs::path& file, const std::string& problem) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file.string()), std::string::npos) << "the user's file is not named: " << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << "a library message: " << r.err;
}

CommandOutput compare(const fs::path& base, const fs::path& next, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"compare", base.string(), next.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_program(bench_mps_exe(), args);
}

CommandOutput report(const fs::path& dir) { return run_program(bench_mps_exe(), {"report", dir.string()}); }

// ---- damaged folders: refused by compare and report, never counted ------------------------------

TEST(DamagedFolder, DuplicatedRunIdIsRefused) {
  TempDir tmp;
  const fs::path dir = copy_of(smoke_fixture(), tmp / "dup");
  auto lines = lines_of(dir / "summary.csv");
  lines.push_back(lines[1]);  // a run recorded twice (a merged or replayed file)
  write_text(dir / "summary.csv", joined(lines));
  expect_refused(compare(compare_fixture("base"), dir, {"--allow-different-gpu"}), dir / "summary.csv",
                 "run r1-timeslice-spin-n1 appears twice");
  expect_refused(report(dir), dir / "summary.csv", "appears twice");
}

TEST(DamagedFolder, UnknownStatusIsRefused) {
  TempDir tmp;
  const fs::path dir = copy_of(smoke_fixture(), tmp / "status");
  auto lines = lines_of(dir / "summary.csv");
  lines[2] = with_cell(lines[2], 7, "okay");
  write_text(dir / "summary.csv", joined(lines));
  expect_refused(report(dir), dir / "summary.csv", "unknown status 'okay'");

  const fs::path runs = copy_of(smoke_fixture(), tmp / "runs_status");
  add_facts_column(runs);
  auto worker_lines = lines_of(runs / "runs.csv");
  worker_lines[1] = with_cell(worker_lines[1], column_of(worker_lines[0], "status"), "fine");
  write_text(runs / "runs.csv", joined(worker_lines));
  try {
    read_runs(runs / "runs.csv");
    ADD_FAILURE() << "an unknown worker status was accepted";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown status 'fine'"), std::string::npos) << e.what();
  }
}

// An active thread percentage is 1..100 and only under MPS: 150 on a time-sliced row was read by compare as a
// configuration of its own ("only in new") and by report as the time-sliced one's.
TEST(DamagedFolder, AThreadPercentageOutOfRangeOrBesideTimeSlicingIsRefused) {
  TempDir tmp;
  for (const auto& [row, value, problem] : std::vector<std::tuple<int, std::string, std::string>>{
           {2, "150", "150 is no percentage of the SMs (1 to 100)"}, {2, "50", "50 beside mode timeslice"}}) {
    const fs::path dir = copy_of(smoke_fixture(), tmp / ("pct" + value));
    auto lines = lines_of(dir / "summary.csv");
    ASSERT_NE(lines[row].find(",timeslice,"), std::string::npos) << lines[row];
    lines[row] = with_cell(lines[row], column_of(lines[0], "active_thread_pct"), value);
    write_text(dir / "summary.csv", joined(lines));
    expect_refused(report(dir), dir / "summary.csv", problem);
    expect_refused(compare(dir, dir), dir / "summary.csv", problem);
  }
}

TEST(DamagedFolder, RowOfARunNeverPlannedIsRefused) {
  TempDir tmp;
  struct Case {
    std::size_t cell;
    std::string value, problem;
  };
  // repeat (1 planned), procs (1,4,10 planned), workload (spin, mlp planned), mode (timeslice, mps)
  for (const Case& c : {Case{1, "7", "repeat 7 of 1"}, Case{6, "3", "N=3"}, Case{2, "membw", "workload membw"},
                        Case{4, "mps:50", "mode mps:50"}}) {
    const fs::path dir = copy_of(smoke_fixture(), tmp / ("unplanned" + std::to_string(c.cell)));
    auto lines = lines_of(dir / "summary.csv");
    lines[3] = with_cell(with_cell(lines[3], c.cell, c.value), 0, "r9-extra");
    write_text(dir / "summary.csv", joined(lines));
    expect_refused(report(dir), dir / "summary.csv", "run r9-extra was never planned (" + c.problem);
    expect_refused(compare(dir, dir), dir / "summary.csv", "never planned");
  }
}

TEST(DamagedFolder, SummaryCutShortIsRefusedNotShownAsComplete) {
  TempDir tmp;
  const fs::path dir = copy_of(smoke_fixture(), tmp / "cut");
  std::string header = lines_of(dir / "summary.csv")[0];
  header.pop_back();  // the header alone, its newline lost: a write cut short after the first line
  write_text(dir / "summary.csv", header);
  expect_refused(report(dir), dir / "summary.csv", "its last line has no line end (a file cut short)");
  expect_refused(compare(dir, dir), dir / "summary.csv", "cut short");

  const fs::path fleet = tmp / "fleet";
  fs::create_directories(fleet);
  copy_of(dir, fleet / "node1");
  copy_of(smoke_fixture(), fleet / "node2");
  const auto r = report(fleet);
  EXPECT_EQ(r.out.find("0/0"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(fleet / "report.md") && read_text(fleet / "report.md").find("0/0") != std::string::npos);
}

// ---- meta.json ----------------------------------------------------------------------------------

TEST(DamagedMeta, StringSchemaVersionIsAWrongTypeNotMissing) {
  TempDir tmp;
  const fs::path dir = copy_of(compare_fixture("base"), tmp / "v");
  nlohmann::json meta = nlohmann::json::parse(read_text(dir / "meta.json"));
  meta["schema_version"] = "1";
  write_text(dir / "meta.json", meta.dump(2));
  const auto r = compare(compare_fixture("base"), dir);
  expect_refused(r, dir / "meta.json", "schema_version is a string (\"1\"), not a whole number");
  EXPECT_EQ(r.err.find("no schema_version"), std::string::npos) << r.err;
}

TEST(DamagedMeta, AMissingGpuSectionOrAValueOfTheWrongTypeIsDamageNotACpuRun) {
  // Every sweep writes "gpu" (null for a CPU-only run) and each value it reads by name with its type: a file
  // without it, or with "a" for a count, was damaged after, and is refused rather than shown as another run.
  TempDir tmp;
  const fs::path base = copy_of(smoke_fixture(), tmp / "base");
  add_facts_column(base);
  const nlohmann::json intact = nlohmann::json::parse(read_text(base / "meta.json"));
  struct Damage {
    std::string name, expected;
    std::function<void(nlohmann::json&)> apply;
  };
  const std::vector<Damage> damages{
      {"nogpu", "no \"gpu\" section", [](nlohmann::json& m) { m.erase("gpu"); }},
      {"smcount", "gpu.sm_count is \"a\", not a whole number", [](nlohmann::json& m) { m["gpu"]["sm_count"] = "a"; }},
      {"procs", "sweep.procs is [1,\"4\"], not a list, each a whole number",
       [](nlohmann::json& m) {
         m["sweep"]["procs"] = nlohmann::json::array({1, "4"});
       }},
      {"pids", "mps.modes[1].server_pids is \"x\", not a list",
       [](nlohmann::json& m) { m["mps"]["modes"][1]["server_pids"] = "x"; }},
      // Values of the right type that no sweep writes: a report printed "The sweep took -5.0 s", "-1 SMs".
      {"wall", "timing.wall_s is -5, not a duration", [](nlohmann::json& m) { m["timing"]["wall_s"] = -5; }},
      {"timing", "timing is \"x\", not an object", [](nlohmann::json& m) { m["timing"] = "x"; }},
      {"sms", "gpu.sm_count is -1, not a count above 0", [](nlohmann::json& m) { m["gpu"]["sm_count"] = -1; }},
      {"memory", "gpu.memory_total_bytes is -5, not a count above 0",
       [](nlohmann::json& m) { m["gpu"]["memory_total_bytes"] = -5; }},
      {"name", "gpu.name is 5, not a GPU's name", [](nlohmann::json& m) { m["gpu"]["name"] = 5; }},
      {"repeats", "sweep.repeats is -2, not a whole number of 1 or more",
       [](nlohmann::json& m) { m["sweep"]["repeats"] = -2; }},
      {"tasks", "sweep.tasks_per_worker is \"x\", not an object",
       [](nlohmann::json& m) { m["sweep"]["tasks_per_worker"] = "x"; }},
      {"status", "status is \"weird\", none a sweep writes", [](nlohmann::json& m) { m["status"] = "weird"; }},
  };
  for (const Damage& d : damages) {
    nlohmann::json meta = intact;
    d.apply(meta);
    const fs::path dir = copy_of(base, tmp / d.name);
    write_text(dir / "meta.json", meta.dump(2));
    const auto r = report(dir);
    expect_refused(r, dir / "meta.json", d.expected);
    EXPECT_FALSE(fs::exists(dir / "report.md")) << d.name;
    expect_refused(compare(dir, base), dir / "meta.json", d.expected);
  }
  EXPECT_EQ(meta_misfit(intact), "");
  EXPECT_EQ(meta_misfit(nlohmann::json{{"gpu", nullptr}, {"sweep", {{"procs", nullptr}}}}), "") << "null stays null";
}

/// `args` run by bench_mps as a user without rights to what root made (nobody, through setpriv, where the tests run
/// as root: root reads every folder); nullopt where neither is possible.
std::optional<CommandOutput> as_unprivileged(const std::vector<std::string>& args) {
  if (::geteuid() != 0) return run_program(bench_mps_exe(), args);
  if (::access("/usr/bin/setpriv", X_OK) != 0) return std::nullopt;
  std::vector<std::string> a{"--reuid=65534", "--regid=65534", "--clear-groups", bench_mps_exe().string()};
  a.insert(a.end(), args.begin(), args.end());
  return run_program("/usr/bin/setpriv", a);
}

TEST(DamagedFolder, AFolderThisUserMayNotReadIsSaidSoNotCalledEmpty) {
  TempDir tmp;
  fs::permissions(tmp.path(), fs::perms::all);  // nobody may reach what lies below
  const fs::path locked = copy_of(smoke_fixture(), tmp / "locked");
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_write);  // 600: listed by its owner only
  const auto r = as_unprivileged({"report", locked.string()});
  if (!r) GTEST_SKIP() << "root, and no setpriv to read as another user";
  expect_refused(*r, locked, "cannot be read: Permission denied");
  EXPECT_EQ(r->err.find("holds no results folder"), std::string::npos) << r->err;
  // In a fleet, the folder it may not enter is named among the unreadable ones.
  const fs::path fleet = tmp / "fleet";
  fs::create_directories(fleet / "hidden");
  fs::permissions(fleet, fs::perms::all);
  copy_of(smoke_fixture(), fleet / "open");
  copy_of(smoke_fixture(), fleet / "hidden" / "x");
  fs::permissions(fleet / "hidden", fs::perms::owner_all);
  const auto f = as_unprivileged({"report", fleet.string()});
  ASSERT_TRUE(f);
  EXPECT_NE(f->err.find("hidden could not be read: Permission denied"), std::string::npos) << f->err;
  fs::permissions(locked, fs::perms::owner_all);
}

TEST(DamagedMeta, MetaJsonThatIsAFolderIsExitTwoOneLine) {
  TempDir tmp;
  const fs::path dir = copy_of(smoke_fixture(), tmp / "m");
  fs::remove(dir / "meta.json");
  fs::create_directory(dir / "meta.json");
  expect_refused(report(dir), dir / "meta.json", "not a file");
  expect_refused(compare(compare_fixture("base"), dir), dir / "meta.json", "not a file");
}

// ---- numbers that cannot be -------------------------------------------------------------------------

TEST(DamagedNumbers, NegativeOrNonFiniteTaskDurationIsRefusedByReport) {
  TempDir tmp;
  for (const std::string value : {"-10.1", "nan", "inf", ""}) {
    const fs::path dir = copy_of(smoke_fixture(), tmp / ("d" + std::to_string(value.size()) + value.substr(0, 1)));
    auto lines = lines_of(dir / "tasks.csv");
    lines[5] = with_cell(lines[5], 4, value);
    write_text(dir / "tasks.csv", joined(lines));
    const auto r = report(dir);
    expect_refused(r, dir / "tasks.csv", "line 6 duration_ms");
    EXPECT_FALSE(fs::exists(dir / "report.md")) << value;
  }
}

TEST(DamagedNumbers, NegativeWorkerTimeIsRefused) {
  TempDir tmp;
  const fs::path dir = copy_of(smoke_fixture(), tmp / "w");
  add_facts_column(dir);
  auto lines = lines_of(dir / "runs.csv");
  lines[1] = with_cell(lines[1], column_of(lines[0], "task_mean_ms"), "-3");
  write_text(dir / "runs.csv", joined(lines));
  EXPECT_THROW(read_runs(dir / "runs.csv"), ResultsError);
}

// ---- --resume names the user's files, not its scratch copies ------------------------------------

TEST(DamagedFolder, ResumeNamesTheUsersFileNotAScratchCopy) {
  TempDir tmp;
  const fs::path dir = copy_of(smoke_fixture(), tmp / "resume");
  add_facts_column(dir);
  auto lines = lines_of(dir / "tasks.csv");
  lines[3] = with_cell(lines[3], 4, "abc");
  write_text(dir / "tasks.csv", joined(lines));
  try {
    prepare_resume(dir);
    ADD_FAILURE() << "a duration 'abc' was accepted by --resume";
  } catch (const ResultsError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((dir / "tasks.csv").string()), std::string::npos) << what;
    EXPECT_EQ(what.find("bench_mps-resume-"), std::string::npos) << "names the scratch copy: " << what;
  }
}

TEST(DamagedFolder, ResumeRefusesARecordedRunMissingWorkerRowsAndLeavesTheFolder) {
  // A copy whose runs.csv lost a recorded run's workers was sealed complete by --resume, those rows gone for good.
  TempDir tmp;
  const fs::path dir = copy_of(smoke_fixture(), tmp / "resume");
  add_facts_column(dir);
  std::vector<std::string> kept;
  for (const std::string& line : lines_of(dir / "runs.csv"))
    if (line.rfind("r1-timeslice-spin-n4,", 0) != 0) kept.push_back(line);
  write_text(dir / "runs.csv", joined(kept));
  const std::string before = read_text(dir / "runs.csv") + read_text(dir / "summary.csv");
  try {
    prepare_resume(dir);
    ADD_FAILURE() << "a recorded run without its runs.csv rows was taken by --resume";
  } catch (const ResultsError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((dir / "runs.csv").string() + ": run r1-timeslice-spin-n4 has 0 worker rows of its 4"),
              std::string::npos)
        << what;
  }
  EXPECT_EQ(read_text(dir / "runs.csv") + read_text(dir / "summary.csv"), before);
}

// ---- a folder packed for the repository (scripts/pack_results.py) ---------------------------------

/// Packs `dir`'s tasks.csv as the repository's folders are (every size).
void pack(const fs::path& dir) {
  const auto r = run_program("/usr/bin/env", {"python3", (source_dir() / "scripts" / "pack_results.py").string(),
                                              dir.string(), "--min-kib", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(fs::exists(dir / "tasks.csv"));
  ASSERT_TRUE(fs::is_regular_file(dir / "tasks.csv.gz"));
}

TEST(PackedFolder, ReadsAsItWasAndReportsTheSame) {
  TempDir tmp;
  fs::create_directories(tmp / "a");
  fs::create_directories(tmp / "b");
  // One folder name (the report's title is it), two places.
  const fs::path plain = copy_of(smoke_fixture(), tmp / "a" / "f"), packed = copy_of(smoke_fixture(), tmp / "b" / "f");
  const std::vector<TaskSample> before = read_tasks(plain / "tasks.csv");
  pack(packed);
  const std::vector<TaskSample> after = read_tasks(packed / "tasks.csv");
  ASSERT_EQ(after.size(), before.size());
  ASSERT_GT(after.size(), 10u);
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].run_id, before[i].run_id) << i;
    EXPECT_EQ(after[i].duration_ms, before[i].duration_ms) << i;
  }
  const auto a = report(plain), b = report(packed);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(read_text(packed / "report.md"), read_text(plain / "report.md"));
}

TEST(PackedFolder, ADamagedPackIsRefusedNamingItAndResumeAsksToUnpack) {
  TempDir tmp;
  const fs::path dir = copy_of(smoke_fixture(), tmp / "d");
  add_facts_column(dir);
  pack(dir);
  try {
    prepare_resume(dir);
    ADD_FAILURE() << "--resume took a packed folder";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("tasks.csv.gz: the folder was packed"), std::string::npos) << e.what();
  }
  std::string bytes = read_text(dir / "tasks.csv.gz");
  write_text(dir / "tasks.csv.gz", bytes.substr(0, bytes.size() / 2));  // cut in the middle
  expect_refused(report(dir), dir / "tasks.csv.gz", "tasks.csv.gz");
  EXPECT_FALSE(fs::exists(dir / "report.md"));
}

// ---- compare's options and outputs ----------------------------------------------------------------

TEST(CompareOptions, EmptyTextOrNegativeNumbersAreRefused) {
  TempDir tmp;
  const std::vector<std::vector<std::string>> cases{
      {"--threshold", ""}, {"--threshold", "abc"}, {"--threshold", "-1"}, {"--threshold", "nan"}, {"--threshold", "5%"},
      {"--alpha", ""},     {"--alpha", "x"},       {"--alpha", "-0.5"},   {"--alpha", "inf"}};
  for (const auto& option : cases) {
    std::vector<std::string> extra = option;
    extra.insert(extra.end(), {"--csv", (tmp / "c.csv").string()});
    const auto r = compare(compare_fixture("base"), compare_fixture("aa"), extra);
    EXPECT_EQ(r.exit_code, 2) << option[0] << " '" << option[1] << "': " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(option[0]), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << option[0] << " '" << option[1] << "' ran: " << r.out.substr(0, 200);
    EXPECT_FALSE(fs::exists(tmp / "c.csv"));
  }
}

TEST(CompareOutputs, AFileInsideAnInputFolderIsNeverWritten) {
  TempDir tmp;
  const fs::path base = copy_of(compare_fixture("base"), tmp / "base");
  const fs::path next = copy_of(compare_fixture("aa"), tmp / "new");
  fs::create_directory_symlink(base, tmp / "link");
  fs::create_symlink(next / "meta.json", tmp / "meta_link.json");
  const std::string summary = read_text(base / "summary.csv"), meta = read_text(next / "meta.json");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--csv", (base / "summary.csv").string()},
      {"--md", (next / "meta.json").string()},
      {"--csv", (tmp / "link" / "summary.csv").string()},                // through a link to the folder
      {"--md", (tmp / "new" / ".." / "base" / "summary.csv").string()},  // through ..
      {"--csv", (tmp / "meta_link.json").string()},                      // a link to the file itself
      {"--md", (base / "runs.csv").string()}};                           // not read, but beside what is
  for (const auto& [option, file] : cases) {
    const auto r = compare(base, next, {option, file});
    EXPECT_EQ(r.exit_code, 2) << option << " " << file << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("a folder this comparison reads"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  EXPECT_EQ(read_text(base / "summary.csv"), summary);
  EXPECT_EQ(read_text(next / "meta.json"), meta);
  EXPECT_FALSE(fs::exists(base / "runs.csv"));

  const auto same = compare(base, next, {"--csv", (tmp / "x").string(), "--md", (tmp / "." / "x").string()});
  EXPECT_EQ(same.exit_code, 2) << same.err;
  EXPECT_NE(same.err.find("the same file"), std::string::npos) << same.err;
}

TEST(CompareOutputs, AFolderComparedWithItselfSaysSo) {
  TempDir tmp;
  const fs::path base = copy_of(compare_fixture("base"), tmp / "base");
  fs::create_directory_symlink(base, tmp / "alias");
  for (const fs::path& next : {base, tmp / "alias", tmp / "base" / ".." / "base"}) {
    const fs::path out = tmp / ("out" + std::to_string(next.string().size()));
    const auto r = compare(base, next, {"--out", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Base and New are the same folder"), std::string::npos) << r.out.substr(0, 400);
    EXPECT_NE(r.out.find("base and new are the same folder (SAME trivially)"), std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(read_text(out / "comparison.json")).at("same_folder"), true);
  }
  const fs::path out = tmp / "other";
  const auto r = compare(base, compare_fixture("aa"), {"--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("same folder"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "comparison.json")).at("same_folder"), false);
}

// ---- a stop signal to report --------------------------------------------------------------------

bool alive(int pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  const auto state = stat.find(") ");
  return state != std::string::npos && stat[state + 2] != 'Z';
}

/// A fake Python: "can import matplotlib", and as the plotting script writes its pid and a child's
/// to $FAKE_PLOT_PIDS, then waits for that child (a minute).
fs::path fake_python(const TempDir& tmp) {
  const fs::path exe = tmp / "python3";
  write_text(exe,
             "#!/bin/sh\n"
             "[ \"$1\" = -c ] && exit 0\n"
             "sleep 60 &\n"
             "echo $$ $! > \"$FAKE_PLOT_PIDS.tmp\" && mv \"$FAKE_PLOT_PIDS.tmp\" \"$FAKE_PLOT_PIDS\"\n"
             "wait\n");
  fs::permissions(exe, fs::perms::owner_all);
  return exe;
}

class ReportStopSignal : public ::testing::TestWithParam<int> {};

TEST_P(ReportStopSignal, EndsThePlotterRemovesStagingExits128PlusSignal) {
  const int sig = GetParam();
  TempDir tmp;
  const fs::path dir = copy_of(smoke_fixture(), tmp / "results");
  const fs::path pids = tmp / "plot.pids";
  BackgroundProgram bench(
      bench_mps_exe(), {"report", dir.string()},
      Env{{{"BENCH_MPS_PYTHON", fake_python(tmp).string()}, {"FAKE_PLOT_PIDS", pids.string()}}, {}});
  ASSERT_TRUE(wait_until([&] { return fs::exists(pids); }, 60)) << "the plotting script never started";
  int script = 0, child = 0;
  std::istringstream(read_text(pids)) >> script >> child;
  ASSERT_GT(child, 0);
  bench.signal(sig);
  const CommandOutput r = bench.wait(30);
  EXPECT_EQ(r.exit_code, 128 + sig) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(std::string("stopped by SIG") + sigabbrev_np(sig)), std::string::npos) << r.err;
  EXPECT_TRUE(wait_until([&] { return !alive(script) && !alive(child); }, 5))
      << "the plotting script (" << script << ") or its child (" << child << ") outlived report";
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename().string().rfind(".report-staging-", 0), std::string::npos) << entry.path();
  EXPECT_FALSE(fs::exists(dir / "report.md"));
  EXPECT_FALSE(fs::exists(dir / "plots"));
}

INSTANTIATE_TEST_SUITE_P(Signals, ReportStopSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& signal) { return std::string(sigabbrev_np(signal.param)); });

}  // namespace
}  // namespace bench_mps::testing
