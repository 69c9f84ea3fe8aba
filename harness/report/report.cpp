// `bench_mps report DIR`: reads the folder (results or comparison), computes every statistic here,
// lets scripts/plot_report.py draw the figures, and writes report.md. Everything is produced in a
// staging folder inside DIR and moved into place at the end, so a failure leaves no half report;
// input defects (exit 2) and a missing matplotlib (exit 3) are found before anything is written.
#include "harness/report/report.hpp"
#include "harness/common/cli_checks.hpp"
#include "harness/common/json_text.hpp"
#include "harness/common/staged_folder.hpp"

#include <algorithm>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/signals.hpp"
#include "harness/report/report_comparison.hpp"
#include "harness/report/report_data.hpp"
#include "harness/report/report_fault.hpp"
#include "harness/report/report_fleet.hpp"
#include "harness/report/report_interference.hpp"
#include "harness/report/report_markdown.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/report/report_plot_data.hpp"
#include "harness/report/report_plotter.hpp"
#include "harness/report/report_regimes.hpp"
#include "harness/report/report_seeds.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_writer.hpp"
#include "harness/results/summary_checks.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// What one report consists of before anything is written.
struct Rendered {
  PlotPlan plan;
  std::string markdown;
};

fs::path default_seeds() {
  const char* env = std::getenv("BENCH_MPS_SEEDS");
  return env && *env ? fs::path(env) : fs::path(BENCH_MPS_SOURCE_DIR) / "results" / "seeds.csv";
}

std::string folder_name(const fs::path& dir) {
  const fs::path clean = dir.lexically_normal();
  const std::string name = (clean.has_filename() ? clean : clean.parent_path()).filename().string();
  return name.empty() ? dir.string() : name;
}

Rendered render_results(const fs::path& dir, const SweepMeta& meta, const fs::path& seeds_file) {
  const std::vector<SummaryRecord> summary = read_summary(dir / "summary.csv");
  check_rows_match_meta(dir / "summary.csv", summary, meta);
  const std::vector<TaskSample> tasks = read_tasks(dir / "tasks.csv");
  const std::vector<SeedRatio> seeds = seed_ratios(read_seeds(seeds_file));
  ReportData data = aggregate_results(summary, tasks);
  data.tasks_note = tasks_short_of_summary(summary, tasks);
  const auto has = [&summary](const char* workload) {
    return std::any_of(summary.begin(), summary.end(),
                       [workload](const SummaryRecord& r) { return r.workload == workload; });
  };
  if (has("exec") || has("membw")) {
    const std::vector<WorkerRecord> workers = read_runs(dir / "runs.csv");
    if (has("exec")) {
      aggregate_exec(workers, data);
      data.exec_slow_first = find_slow_first_runs(summary);
    }
    if (has("membw")) aggregate_membw(workers, data);
  }
  Rendered r;
  try {
    r.plan = results_plot_plan(data, seeds, gpu_title(meta));
    r.markdown = render_results_report(data, meta, seeds, r.plan, folder_name(dir));
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError((dir / "meta.json").string() + ": " + json_value_problem(e));
  }
  return r;
}

Rendered render_comparison(const fs::path& dir) {
  const ComparisonFolder folder = read_comparison_folder(dir);
  Rendered r;
  r.plan = comparison_plot_plan(folder);
  r.markdown = render_comparison_report(folder, r.plan, folder_name(dir));
  return r;
}

void write_file(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw FileWriteError("report: cannot write " + file.string() + ": " + std::strerror(errno), file, errno);
}

/// `bench_mps report --help` below the options: what it writes, examples a newcomer can type, exit codes
/// (those of run_report and main; docs/REPORT.md has the table). Lines under 100 columns.
constexpr const char* kReportHelpFooter =
    "Writes DIR/report.md and DIR/plots/ (each figure as .png, and plot_data.json); fault\n"
    "isolation and fleet reports write report.md alone. Rerun it at any time: it replaces them. The\n"
    "folder decides the report: a sweep's results (regimes, interference and fault folders have their\n"
    "own), a comparison (`bench_mps compare BASE NEW --out DIR`), or a folder of many results folders\n"
    "(a --gpus run's, a cluster's): the fleet report. Figures need Python with matplotlib.\n"
    "\n"
    "Examples:\n"
    "  bench_mps report results/2026-11-26-h100-80gb-hbm3\n"
    "      one sweep: verdict, tables and figures, beside the seed articles' figures\n"
    "  bench_mps report results/2026-11-26-h100-80gb-hbm3-regimes \\\n"
    "      --place results/2026-11-26-h100-80gb-hbm3\n"
    "      a regimes map, with that sweep's workloads placed on it (remembered in places.json)\n"
    "  bench_mps report results/2026-11-24-h100-80gb-hbm3-pergpu/gpus --threshold 2\n"
    "      the fleet report of a --gpus run: a GPU more than 2% from the fleet median, its interval\n"
    "      wholly beyond, is an outlier\n"
    "\n"
    "Exit codes: 0 report written; 1 the plotting script failed; 2 bad command line or input\n"
    "(not a folder, a missing or damaged meta.json/summary.csv/tasks.csv, a bad seeds file; one line\n"
    "naming the file); 3 no Python with matplotlib, or scripts/plot_report.py not found; 128+N\n"
    "stopped by signal N. On any exit but 0 nothing was written. More: docs/REPORT.md";

}  // namespace

CLI::App* add_report_command(CLI::App& app, ReportArgs& args) {
  auto* cmd = app.add_subcommand("report",
                                 "render report.md and plots/ for a results (or comparison) folder; the "
                                 "fleet report for a folder of many");
  cmd->footer(kReportHelpFooter);
  cmd->add_option("dir", args.dir,
                  "results folder, a folder written by `bench_mps compare --out`, or a folder of many results folders "
                  "(a cluster's, a --gpus run's)")
      ->required();
  cmd->add_option("--seeds", args.seeds,
                  "the seed articles' figures (default: $BENCH_MPS_SEEDS, else results/seeds.csv of the source tree)")
      ->check(not_blank());
  cmd->add_option("--place", args.place,
                  "a regimes folder: also place this results folder's workloads on the map (repeatable; remembered in "
                  "DIR/places.json)")
      ->check(not_blank());
  cmd->add_option("--forget-place", args.forget_place,
                  "a regimes folder: drop this folder from DIR/places.json (as it is listed there; repeatable)")
      ->check(not_blank());
  add_fleet_report_options(*cmd, args);
  return cmd;
}

namespace {

/// Refuses a folder another verb wrote with its own report: a comparison of two conform folders (compare wrote
/// conform_comparison.md) and an advise folder (its advice.md), which would otherwise read as a fleet.
void refuse_folder_with_own_report(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_regular_file(dir / "conform_comparison.csv", ec))
    throw ResultsError(dir.string() +
                       ": a comparison of two conform folders, whose report compare wrote there already "
                       "(conform_comparison.md); report renders results folders, sweep comparisons and fleets");
  if (fs::is_regular_file(dir / "advice.json", ec))
    throw ResultsError(dir.string() + ": an advise folder, whose report is its advice.md (bench_mps advise --redo " +
                       dir.string() + " writes it again); report renders one of its sweeps (" +
                       (dir / "sweeps" / "<name>").string() + "), not the folder as a fleet of GPUs");
}

int report_folder(const ReportArgs& args) {
  const fs::path dir = args.dir;
  require_readable_folder(dir);
  refuse_folder_with_own_report(dir);
  if (is_fleet_folder(dir)) return run_fleet_report(args, folder_name(dir));  // many results folders below
  check_no_fleet_options(args);
  const bool comparison = is_comparison_folder(dir);
  std::optional<SweepMeta> meta;  // meta.json, read once: every report of a results folder reads it from here
  if (!comparison) meta = read_sweep_meta(dir);
  if (meta && is_fault_folder(*meta)) {  // tables only: no figures, no matplotlib needed
    std::string markdown;
    try {
      markdown = render_fault_report(dir, *meta, folder_name(dir));
    } catch (const ResultsError& e) {
      throw ResultsError(one_line(e.what()));
    }
    nlohmann::json no_figures = nlohmann::json::object();
    if (is_demo_folder(*meta)) stamp_demo(markdown, no_figures);
    write_file_atomically(dir / "report.md", markdown);
    std::cout << "report: wrote " << (dir / "report.md").string() << " (fault isolation; no figures)\n";
    return kExitOk;
  }
  Rendered r;
  std::vector<fs::path> places, remembered;
  try {
    const bool regimes = meta && is_regimes_folder(*meta);
    if ((!args.place.empty() || !args.forget_place.empty()) && !regimes)
      throw UsageError(std::string(args.place.empty() ? "--forget-place" : "--place") +
                       ": only a regimes or xray folder has a map to place on");
    if (comparison) {
      r = render_comparison(dir);
    } else if (regimes) {
      const Places p = placed_folders(dir, args.place, args.forget_place);
      for (const std::string& w : p.warnings) std::cerr << "bench_mps: warning: " << w << "\n";
      places = p.placed;
      remembered = p.remembered;
      const fs::path seeds = args.seeds.empty() ? default_seeds() : fs::path(args.seeds);
      RegimesReport rr = render_regimes_report(dir, *meta, folder_name(dir), places, seed_ratios(read_seeds(seeds)));
      for (const std::string& w : rr.warnings) std::cerr << "bench_mps: warning: " << w << "\n";
      r = {std::move(rr.plan), std::move(rr.markdown)};
    } else if (is_interference_folder(*meta)) {
      InterferenceReport ir = render_interference_report(dir, *meta, folder_name(dir));
      r = {std::move(ir.plan), std::move(ir.markdown)};
    } else {
      r = render_results(dir, *meta, args.seeds.empty() ? default_seeds() : fs::path(args.seeds));
    }
  } catch (const ResultsError& e) {
    throw ResultsError(one_line(e.what()));
  }
  if (meta && is_demo_folder(*meta)) stamp_demo(r.markdown, r.plan.data);
  const std::string python = find_plot_python();
  const fs::path script = plot_script();

  StagedFolder stage(dir, "report");
  const fs::path plots = stage.path() / "plots";
  std::error_code ec;
  fs::create_directories(plots, ec);
  if (ec) throw FileWriteError("report: cannot create " + plots.string() + ": " + ec.message(), plots, ec.value());
  write_file(plots / "plot_data.json", json_text(r.plan.data, 2) + "\n");
  run_plot_script(python, script, plots / "plot_data.json", plots, stage.path() / "plot.log");
  for (const FigureInfo& f : r.plan.figures) {
    const fs::path file = plots / (f.name + ".png");
    if (!fs::is_regular_file(file, ec) || fs::file_size(file, ec) == 0)
      throw std::runtime_error("report: " + script.filename().string() + " did not write " + file.filename().string());
  }
  write_file(stage.path() / "report.md", r.markdown);
  throw_if_stopped();                    // the last moment a stop leaves the folder as it was
  stage.commit({"plots", "report.md"});  // plot.log stays behind in the staging folder, removed with it
  if (!args.place.empty() || !args.forget_place.empty())
    write_file_atomically(dir / "places.json", places_json(remembered));
  std::cout << "report: wrote " << (dir / "report.md").string() << " and " << r.plan.figures.size()
            << (r.plan.figures.size() == 1 ? " figure in " : " figures in ") << (dir / "plots").string() << "\n";
  return kExitOk;
}

}  // namespace

int run_report(const ReportArgs& args) {
  install_stop_handlers();  // a stop ends the plotting script and removes the staging folder (ReportStopped)
  try {
    return report_folder(args);
  } catch (const ReportStopped& e) {
    std::cerr << "bench_mps: " << e.what() << "\n";
    return 128 + e.signal;
  } catch (const nlohmann::json::exception& e) {  // a value of the wrong type deep in a folder's JSON
    const fs::path dir = args.dir;
    throw ResultsError((dir / (is_comparison_folder(dir) ? "comparison.json" : "meta.json")).string() + ": " +
                       json_value_problem(e));
  }
}

}  // namespace bench_mps::harness
