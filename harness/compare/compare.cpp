// The compare subcommand: options, then read both folders, judge, render everything, and only then
// write files and print, so bad input leaves nothing behind.
#include "harness/plan/scenario.hpp"
#include "harness/results/sweep_meta.hpp"
#include "harness/compare/compare.hpp"
#include "harness/common/json_text.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <vector>

#include "harness/common/cli_checks.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/compare/compare_conform.hpp"
#include "harness/compare/compare_meta.hpp"
#include "harness/compare/compare_output.hpp"
#include "harness/compare/exports.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_writer.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

CompareOptions validated_options(const CompareArgs& args) {
  CompareOptions o;
  o.metric = parse_compare_metric(args.metric);
  if (!std::isfinite(args.threshold_pct) || args.threshold_pct < 0)
    throw UsageError("--threshold must be a percentage >= 0, e.g. 5");
  if (!(args.alpha > 0 && args.alpha < 1)) throw UsageError("--alpha must lie strictly between 0 and 1, e.g. 0.05");
  o.threshold_pct = args.threshold_pct;
  o.ignore_params = args.ignore_params;
  o.alpha = args.alpha;
  return o;
}

/// The files --out DIR gets: of two results folders, and of two conform folders.
constexpr const char* kOutFiles[] = {"comparison.csv", "comparison.md", "comparison.json"};
constexpr const char* kConformOutFiles[] = {"conform_comparison.csv", "conform_comparison.md"};

/// Refuses, before anything is written, an output file whose folder does not exist, one of --out's files, or one inside
/// BASE or NEW: it would overwrite what this comparison reads (or the runs beside it).
void check_output_file(const std::string& option, const std::string& file, const CompareArgs& args) {
  if (file.empty()) return;
  const auto refuse_clash = [&](const char* name) {
    if (!args.out_dir.empty() && resolved_path(file) == resolved_path(fs::path(args.out_dir) / name))
      throw UsageError(option + " " + file + ": is the " + name + " that --out " + args.out_dir +
                       " gets; give it another name (nothing was written)");
  };
  for (const char* name : kOutFiles) refuse_clash(name);
  for (const char* name : kConformOutFiles) refuse_clash(name);
  const fs::path parent = fs::path(file).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw UsageError(option + " " + file + ": the folder " + parent.string() + " does not exist");
  if (fs::is_directory(file, ec)) throw UsageError(option + " " + file + ": is a folder");
  for (const std::string& input : {args.base, args.next})
    if (lies_inside(file, input))
      throw UsageError(option + " " + file + ": lies inside " + input +
                       ", a folder this comparison reads; write it elsewhere (nothing was written)");
}

/// Refuses a --out folder inside BASE or NEW: its files would land among the runs this comparison reads.
void check_out_folder(const CompareArgs& args) {
  if (args.out_dir.empty()) return;
  for (const std::string& input : {args.base, args.next})
    if (lies_inside(args.out_dir, input))
      throw UsageError("--out " + args.out_dir + ": lies inside " + input +
                       ", a folder this comparison reads; write it elsewhere (nothing was written)");
}

/// What compare writes (--out's files, --csv, --md) as one: all of it or, on a failure, none (and a --out folder
/// made for it removed again).
void write_outputs(const std::string& out_dir, const std::vector<std::pair<fs::path, std::string>>& files) {
  std::error_code ec;
  const bool made = !out_dir.empty() && !fs::exists(out_dir, ec);
  if (!out_dir.empty()) {
    fs::create_directories(out_dir, ec);
    if (ec || !fs::is_directory(out_dir))
      throw UsageError("--out " + out_dir + ": cannot create the folder" + (ec ? " (" + ec.message() + ")" : ""));
  }
  try {
    write_files_together(files);
  } catch (const FileWriteError& e) {  // its errno decides the exit code: a full disk 3, a read-only folder 2
    if (made) fs::remove(out_dir, ec);
    throw FileWriteError(std::string("compare: ") + e.what() + " (nothing was written)", e.path(), e.error());
  }
}

/// `bench_mps compare --help` below the options: what it writes, examples, the verdict rule in short
/// (decide_verdict; docs/COMPARE.md has it in full) and the exit codes of run_compare and main.
/// Lines under 100 columns.
constexpr const char* kCompareHelpFooter =
    "Pairs the runs of two results folders by configuration (workload, parameters, mode, N) and\n"
    "prints a markdown table: each side's median over its repeats and its noise, the change, the\n"
    "Welch p and a verdict, then a summary line (\"12 pairs: 12 SAME, 0 FASTER, 0 SLOWER,\n"
    "0 UNSURE, 0 INSUFFICIENT; ...\"). Files only on request: --out DIR writes comparison.csv,\n"
    "comparison.md and comparison.json (`bench_mps report DIR` charts it), --md FILE and --csv FILE\n"
    "one each.\n"
    "\n"
    "Examples:\n"
    "  bench_mps compare results/2026-11-25-h100-80gb-hbm3 results/2026-11-26-h100-80gb-hbm3\n"
    "      before and after a driver or build change, on one GPU model\n"
    "  bench_mps compare BASE NEW --threshold 2 --out cmp/\n"
    "      call only changes above 2% FASTER/SLOWER; keep the tables in cmp/\n"
    "  bench_mps compare results/2026-11-22-h100-80gb-hbm3 results/2026-11-22-h200 --allow-different-gpu\n"
    "      two GPU models (refused without the flag)\n"
    "  bench_mps compare BASE NEW --fail-on-regression\n"
    "      a CI gate: exit 1 when any row is SLOWER\n"
    "  bench_mps compare BASE NEW --format markdown >> \"$GITHUB_STEP_SUMMARY\"\n"
    "      the job's summary page; --format bencher or github-benchmark for a dashboard\n"
    "\n"
    "Verdicts, per configuration. A worker set is one set of worker processes and the rounds it\n"
    "ran; sets, not rounds, are the independent units (rounds of one set agree more closely).\n"
    "change = (NEW median - BASE median) / BASE median; noise = the wider side's width of the ~94%\n"
    "Student-t confidence interval of the mean of its worker sets' means, over that mean (it narrows\n"
    "as sets are added); p = Welch's t-test of NEW's worker-set means vs BASE's.\n"
    "  FASTER, SLOWER  p < --alpha, |change| > --threshold and |change| > noise (better or worse\n"
    "                  in --metric: for p50/p99 a fall is FASTER)\n"
    "  SAME            |change| <= --threshold, and p < --alpha or noise <= --threshold\n"
    "  INSUFFICIENT    not measured enough to say: fewer than two worker sets on a side, or runs\n"
    "                  of the configuration failed or were left out (--fail-on-insufficient: exit 1,\n"
    "                  as for a configuration of BASE missing from NEW, or nothing compared)\n"
    "  UNSURE          measured enough, but a change within the noise or not significant, or\n"
    "                  noise above --threshold\n"
    "\n"
    "Exit codes: 0 compared, whatever the verdicts (without --fail-on-regression a SLOWER row does\n"
    "not change the exit code: gate on the summary line or comparison.json's \"counts\"); 1 with\n"
    "--fail-on-regression, a row is SLOWER or the folders had no configuration in common, or with\n"
    "--fail-on-insufficient, a row is INSUFFICIENT, a configuration of BASE is missing from NEW or\n"
    "nothing was compared;\n"
    "2 bad command line or input (a missing folder, a damaged file, two GPU models without\n"
    "--allow-different-gpu; one line naming it, nothing written); 3 a full disk or quota where --out,\n"
    "--md or --csv go; 128+N stopped by signal N.\n"
    "Two conform folders (bench_mps conform): their levers side by side, old and new verdict and\n"
    "evidence; PASS -> FAIL is a REGRESSION (exit 1 with --fail-on-regression); --out writes\n"
    "conform_comparison.csv and .md.\n"
    "More: docs/COMPARE.md";

/// compare on two conform folders: read both, render, then write (--out, --md, --csv) and print.
int run_conform_compare(const CompareArgs& args) {
  for (const CLI::Option* o : args.results_only)
    if (o && o->count() > 0)
      throw UsageError(o->get_name() +
                       ": applies to results folders; two conform folders are compared lever by "
                       "lever (their verdicts), with no metric or threshold");
  const ConformComparison c = compare_conform(read_conform(args.base), read_conform(args.next), args.base, args.next);
  if (!args.out_dir.empty()) {
    std::error_code ec;
    for (const char* name : kConformOutFiles)
      if (fs::exists(fs::path(args.out_dir) / name, ec))
        throw UsageError("--out " + args.out_dir + ": already holds a comparison (" + name +
                         "); choose another folder");
  }
  std::vector<std::pair<fs::path, std::string>> files;
  if (!args.out_dir.empty()) {
    files.emplace_back(fs::path(args.out_dir) / "conform_comparison.csv", c.csv);
    files.emplace_back(fs::path(args.out_dir) / "conform_comparison.md", c.markdown);
  }
  if (!args.csv_file.empty()) files.emplace_back(args.csv_file, c.csv);
  if (!args.md_file.empty()) files.emplace_back(args.md_file, c.markdown);
  write_outputs(args.out_dir, files);
  std::cout << c.markdown << std::flush;
  check_stdout_written();
  if ((args.fail_on_regression || args.fail_on_insufficient) && c.paired == 0) {  // as for results folders
    std::cerr << "bench_mps: compare: the two conform folders have no lever in common: nothing was compared\n";
    return kExitFailed;
  }
  if (args.fail_on_insufficient && (c.unjudged > 0 || !c.incomplete.empty())) {
    std::cerr << "bench_mps: compare: "
              << (c.incomplete.empty()
                      ? ""
                      : "not a complete conform run (" + c.incomplete + ")" + (c.unjudged > 0 ? "; " : ""))
              << (c.unjudged > 0 ? std::to_string(c.unjudged) + " lever(s) of base missing or ERROR in new" : "")
              << " (--fail-on-insufficient)\n";
    return kExitFailed;
  }
  if (args.fail_on_regression && c.regressions > 0) {
    std::cerr << "bench_mps: compare: " << c.regressions << " lever(s) went from PASS to FAIL (--fail-on-regression)\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

CLI::App* add_compare_command(CLI::App& app, CompareArgs& args) {
  auto* cmd = app.add_subcommand("compare", "compare two results folders (driver upgrade, other GPU)");
  cmd->footer(kCompareHelpFooter);
  cmd->add_option("BASE", args.base, "the baseline results folder (or conform folder)")->required();
  cmd->add_option("NEW", args.next, "the new results folder, compared against BASE")->required();
  args.results_only.push_back(
      cmd->add_option("--metric", args.metric, "throughput (tasks/s, higher is better), p50 or p99 (per-task ms)")
          ->capture_default_str());
  args.results_only.push_back(
      cmd->add_option("--threshold", args.threshold_pct, "smallest change in percent called FASTER/SLOWER")
          ->check(finite_in(0.0, 1000.0))
          ->capture_default_str());
  args.results_only.push_back(
      cmd->add_option("--alpha", args.alpha,
                      "significance level of the Welch t-test of the worker sets' means, strictly between 0 and 1")
          ->check(finite_in(0.0, 1.0))
          ->capture_default_str());
  cmd->add_flag("--fail-on-regression", args.fail_on_regression, "exit 1 when a configuration is SLOWER");
  cmd->add_flag(
      "--fail-on-insufficient", args.fail_on_insufficient,
      "exit 1 when a configuration is INSUFFICIENT (under two worker sets a side, or runs not ok), one of BASE "
      "is missing from NEW, or nothing was compared (conform folders: a lever of BASE missing or ERROR in "
      "NEW, or a run not complete): a gate that must not pass on data it lacks");
  cmd->add_flag("--allow-different-gpu", args.allow_different_gpu, "compare folders measured on different GPU models");
  args.results_only.push_back(
      cmd->add_flag("--ignore-params", args.ignore_params,
                    "pair runs on workload, mode and N even where their parameters differ (a changed kernel)"));
  cmd->add_option("--md", args.md_file, "also write the markdown report to this file")->check(not_blank());
  cmd->add_option("--csv", args.csv_file, "also write comparison.csv to this file")->check(not_blank());
  cmd->add_option("--out", args.out_dir, "write comparison.csv, comparison.md and comparison.json into this folder")
      ->check(not_blank());
  args.results_only.push_back(
      cmd->add_option("--format", args.format,
                      "what stdout carries: text (the report), json (comparison.json), bencher (Bencher's BMF), "
                      "github-benchmark (github-action-benchmark's custom JSON), markdown (a CI job summary)")
          ->capture_default_str());
  return cmd;
}

int run_compare(const CompareArgs& args) {
  CompareReport report;
  report.options = validated_options(args);
  const ExportFormat format = parse_export_format(args.format);
  check_output_file("--md", args.md_file, args);
  check_output_file("--csv", args.csv_file, args);
  check_out_folder(args);
  if (!args.md_file.empty() && !args.csv_file.empty() && resolved_path(args.md_file) == resolved_path(args.csv_file))
    throw UsageError("--md and --csv name the same file " + args.csv_file + "; give each its own");
  report.base_dir = args.base;
  report.new_dir = args.next;
  report.same_folder = resolved_path(args.base) == resolved_path(args.next);
  if (!args.out_dir.empty()) {  // like a sweep's --out: never overwrite what is there
    std::error_code ec;
    for (const char* name : kOutFiles)
      if (fs::exists(fs::path(args.out_dir) / name, ec))
        throw UsageError("--out " + args.out_dir + ": already holds a comparison (" + name +
                         "); choose another folder");
    for (const char* name : {"summary.csv", "meta.json"})
      if (fs::exists(fs::path(args.out_dir) / name, ec))
        throw UsageError("--out " + args.out_dir + ": is a results folder (" + name + "); choose another folder");
    for (const char* name : {"history.md", "history.csv", "history.json"})  // report would replace its figures
      if (fs::exists(fs::path(args.out_dir) / name, ec))
        throw UsageError("--out " + args.out_dir + ": already holds a history (" + name + "); choose another folder");
  }
  const bool base_conform = is_conform_folder(args.base), next_conform = is_conform_folder(args.next);
  if (base_conform != next_conform)
    throw UsageError((base_conform ? args.base : args.next) + " holds conform results and " +
                     (base_conform ? args.next : args.base) +
                     " does not: compare two conform folders, or two results folders");
  if (base_conform) return run_conform_compare(args);
  const ResultsFolder base = read_results_folder(args.base);
  const ResultsFolder next = read_results_folder(args.next);
  if (const auto a = meta_scenario(base.meta), b = meta_scenario(next.meta); a != b)  // runs of other kinds
    throw UsageError("different scenarios: base is of scenario '" + std::string(scenario_name(*a)) + "', new of '" +
                     std::string(scenario_name(*b)) +
                     "' (meta.json's sweep.scenario); compare pairs the runs of one kind of sweep");
  try {
    const nlohmann::json base_meta = base.meta, next_meta = next.meta;  // compared key by key, as written
    check_same_gpu(base_meta, next_meta, args.allow_different_gpu);
    report.metadata = diff_metadata(base_meta, next_meta);
    report.testbed = testbed_line(base_meta, next_meta);
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError((fs::path(args.base) / "meta.json").string() + " or " +
                       (fs::path(args.next) / "meta.json").string() + ": " + json_value_problem(e));
  }
  report.comparison = compare_runs(base.summary, next.summary, report.options);
  if (report.comparison.pairs.empty()) {
    std::string hint;
    if (!report.options.ignore_params) {
      CompareOptions loose = report.options;
      loose.ignore_params = true;
      if (!compare_runs(base.summary, next.summary, loose).pairs.empty())
        hint = "; their configurations differ only in parameters: add --ignore-params to pair them anyway";
    }
    std::cerr << "bench_mps: compare: the two folders have no configuration in common, nothing was compared" << hint
              << "\n";
  }

  const std::string md = render_comparison_markdown(report);
  const std::string csv = render_comparison_csv(report);
  const std::string json = json_text(comparison_json(report), 2) + "\n";
  std::vector<std::pair<fs::path, std::string>> files;
  if (!args.out_dir.empty()) {
    files.emplace_back(fs::path(args.out_dir) / "comparison.csv", csv);
    files.emplace_back(fs::path(args.out_dir) / "comparison.md", md);
    files.emplace_back(fs::path(args.out_dir) / "comparison.json", json);
  }
  if (!args.csv_file.empty()) files.emplace_back(args.csv_file, csv);
  if (!args.md_file.empty()) files.emplace_back(args.md_file, md);
  write_outputs(args.out_dir, files);

  std::cout << render_export(format, md, json, comparison_points(report), render_comparison_summary(report));
  std::cout << std::flush;
  check_stdout_written();
  const auto& pairs = report.comparison.pairs;
  if (pairs.empty() && (args.fail_on_regression || args.fail_on_insufficient))
    return kExitFailed;  // a gate never passes on nothing (the line above says why); the report is written
  const auto any = [&pairs](Verdict v) {
    return std::any_of(pairs.begin(), pairs.end(), [v](const ComparedPair& p) { return p.verdict == v; });
  };
  if (args.fail_on_insufficient && any(Verdict::insufficient)) {
    std::cerr << "bench_mps: compare: a configuration is INSUFFICIENT (--fail-on-insufficient): measure it again "
                 "with more worker sets (--repeats) or see why its runs failed\n";
    return kExitFailed;
  }
  if (args.fail_on_insufficient && !report.comparison.only_in_base.empty()) {  // NEW lacks what BASE measured
    std::cerr << "bench_mps: compare: " << report.comparison.only_in_base.size()
              << " configuration(s) of base are missing from new (--fail-on-insufficient), the first "
              << report.comparison.only_in_base.front() << "\n";
    return kExitFailed;
  }
  if (args.fail_on_regression && any(Verdict::slower)) {
    const auto slower =
        std::count_if(pairs.begin(), pairs.end(), [](const ComparedPair& p) { return p.verdict == Verdict::slower; });
    std::cerr << "bench_mps: compare: " << slower << " configuration(s) SLOWER (--fail-on-regression)\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace bench_mps::harness
