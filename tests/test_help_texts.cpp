// The help of `bench_mps report` and `bench_mps compare` is where a newcomer looks first: each says
// what it writes, gives examples that run as written on the committed folders, and lists its verdicts
// (compare) and exit codes; `bench_mps --help` points to both. Each case runs the real bench_mps.
#include <gtest/gtest.h>

#include <initializer_list>
#include <regex>
#include <sstream>

#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

std::string help_of(const std::vector<std::string>& args) {
  const auto r = run_program(bench_mps_exe(), args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

void expect_all(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) EXPECT_NE(text.find(part), std::string::npos) << "missing: " << part << "\n" << text;
}

/// The text from the line holding `first` to the end: the footer, below CLI11's option list.
std::string footer_from(const std::string& help, const std::string& first) {
  const std::size_t at = help.find(first);
  EXPECT_NE(at, std::string::npos) << first << "\n" << help;
  return at == std::string::npos ? "" : help.substr(help.rfind('\n', at) + 1);
}

/// The example command lines of a help text ("  bench_mps ...", a trailing `\` joining the next
/// line), each split at spaces.
std::vector<std::vector<std::string>> examples(const std::string& help) {
  std::vector<std::vector<std::string>> out;
  std::istringstream lines(help);
  std::string line, command;
  while (std::getline(lines, line)) {
    if (command.empty() && line.rfind("  bench_mps ", 0) != 0) continue;
    command += line;
    if (!command.empty() && command.back() == '\\') {
      command.pop_back();
      continue;
    }
    std::istringstream words(command);
    std::vector<std::string> args;
    for (std::string w; words >> w;) args.push_back(w);
    out.push_back({args.begin() + 1, args.end()});  // without "bench_mps"
    command.clear();
  }
  return out;
}

/// True when an example names a placeholder (BASE, NEW, DIR) rather than a committed folder.
bool has_placeholder(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "BASE" || a == "NEW" || a == "DIR") return true;
  return false;
}

TEST(HelpTexts, ReportSaysWhatItWritesWithExamplesAndExitCodes) {
  const std::string help = help_of({"report", "--help"});
  expect_all(help, {"report.md", "plots/", ".png", "Examples:", "bench_mps report results/", "--place", "fleet report",
                    "Exit codes: 0 report written", "; 1 the plotting script failed", "; 2 bad command line",
                    "; 3 no Python with matplotlib", "128+N", "docs/REPORT.md"});
  EXPECT_EQ(examples(help).size(), 3u) << help;
}

TEST(HelpTexts, CompareGivesExamplesVerdictsAndExitCodes) {
  const std::string help = help_of({"compare", "--help"});
  expect_all(help, {"Examples:", "bench_mps compare results/", "--threshold 2 --out cmp/", "--allow-different-gpu",
                    "--fail-on-regression", "Verdicts", "FASTER, SLOWER  p < --alpha", "SAME            |change|",
                    "UNSURE          measured enough", "INSUFFICIENT    not measured enough", "worker sets' means",
                    "Exit codes: 0 compared, whatever the verdicts", "comparison.json's \"counts\"", "; 1 with",
                    "2 bad command line", "128+N", "docs/COMPARE.md", "--format markdown"});
  EXPECT_EQ(examples(help).size(), 5u) << help;
}

TEST(HelpTexts, AdviseGivesExamplesAndExitCodes) {
  const std::string help = help_of({"advise", "--help"});
  expect_all(help, {"Examples:", "bench_mps advise --command", "--workload mlp -- --mlp-profile gpu-bound",
                    "--workload mlp-infer --beside mlp", "Exit codes: 0 advice written", "; 1 no configuration ran",
                    "2 bad command line", "128+N", "docs/ADVISE.md"});
  EXPECT_EQ(examples(help).size(), 4u) << help;
}

TEST(HelpTexts, MainHelpPointsToTheCommandsHelp) {
  expect_all(help_of({"--help"}), {"bench_mps report --help", "bench_mps compare --help", "bench_mps advise --help"});
}

TEST(HelpTexts, FootersFitIn100Columns) {
  for (const auto& [args, first] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--help"}, "Each command has its own help"},
           {{"report", "--help"}, "Writes DIR/report.md"},
           {{"compare", "--help"}, "Pairs the runs of two results folders"},
           {{"advise", "--help"}, "Profiles one copy alone"}}) {
    std::istringstream lines(footer_from(help_of(args), first));
    for (std::string line; std::getline(lines, line);) EXPECT_LT(line.size(), 100u) << args.front() << ": " << line;
  }
}

TEST(HelpTexts, CompareExamplesRunAsWrittenOnTheCommittedFolders) {
  int ran = 0;
  for (std::vector<std::string> args : examples(help_of({"compare", "--help"}))) {
    if (has_placeholder(args)) continue;
    for (std::string& a : args)
      if (a.rfind("results/", 0) == 0) a = (source_dir() / a).string();  // as typed in the source tree
    const auto r = run_program(bench_mps_exe(), args);
    EXPECT_EQ(r.exit_code, 0) << args[1] << "\n" << r.err;
    EXPECT_NE(r.out.find(" pairs: "), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("no configuration in common"), std::string::npos) << r.err;
    ++ran;
  }
  EXPECT_EQ(ran, 2);
}

/// Copies the committed folder `results/...` to the same place under `to`, with the folders its
/// places.json remembers (a regimes folder's earlier --place), unless copied already.
void copy_committed(const std::string& folder, const fs::path& to) {
  if (fs::exists(to / folder)) return;
  fs::create_directories((to / folder).parent_path());
  fs::copy(source_dir() / folder, to / folder, fs::copy_options::recursive);
  if (!fs::exists(to / folder / "places.json")) return;
  const std::string places = read_text(to / folder / "places.json");
  const std::regex remembered(R"re("\.\./([^"]+)")re");
  for (std::sregex_iterator m(places.begin(), places.end(), remembered), end; m != end; ++m)
    copy_committed((fs::path(folder).parent_path() / (*m)[1].str()).string(), to);
}

TEST(HelpTexts, ReportExamplesRunAsWrittenOnCopiesOfTheCommittedFolders) {
  TempDir tmp;
  int ran = 0;
  for (std::vector<std::string> args : examples(help_of({"report", "--help"}))) {
    if (has_placeholder(args)) continue;
    for (std::string& a : args)
      if (a.rfind("results/", 0) == 0) {  // a copy, so the committed report stays as it is
        copy_committed(a, tmp.path());
        a = (tmp / a).string();
      }
    fs::remove(fs::path(args[1]) / "report.md");
    const auto r = run_program(bench_mps_exe(), args, {}, 300);
    EXPECT_EQ(r.exit_code, 0) << args[1] << "\n" << r.err;
    EXPECT_TRUE(fs::is_regular_file(fs::path(args[1]) / "report.md")) << args[1];
    ++ran;
  }
  EXPECT_EQ(ran, 3);
}

}  // namespace
}  // namespace bench_mps::testing
