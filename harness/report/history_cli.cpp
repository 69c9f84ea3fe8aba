// The history subcommand: options, the folders read and ordered, the testbeds checked, the series built and
// judged, then everything rendered before anything is written. See history_cli.hpp.
#include "harness/plan/scenario.hpp"
#include "harness/results/sweep_meta.hpp"
#include "harness/report/history_cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "harness/common/cli_checks.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/json_text.hpp"
#include "harness/common/signals.hpp"
#include "harness/common/staged_folder.hpp"
#include "harness/compare/compare_meta.hpp"
#include "harness/compare/exports.hpp"
#include "harness/report/history_output.hpp"
#include "harness/report/report_plotter.hpp"
#include "harness/results/interference_rows.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/worker_sets.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

constexpr const char* kHistoryFooter =
    "Reads results folders (or one folder holding them), orders them by driver version, then by the\n"
    "sweep's start, and follows each configuration (workload, parameters, mode, N) across them: its\n"
    "worker sets' mean per folder with its ~94% interval, and the changes that persisted. A folder is\n"
    "judged against the folders since the last change with compare's verdict rule; FASTER or SLOWER is\n"
    "a change only when the next folder agrees (one folder off is a blip, the last one pending); under\n"
    "two worker sets or runs not ok is INSUFFICIENT. Folders of another testbed (GPU model, SMs,\n"
    "memory, host CPU) are refused unless --allow-different-testbeds, and then never mixed.\n"
    "\n"
    "Examples:\n"
    "  bench_mps history results/driver-archive --out hist/\n"
    "      each results folder directly inside results/driver-archive; hist/history.md, .csv,\n"
    "      .json, plots/\n"
    "  bench_mps history OLD MID NEW --format markdown >> \"$GITHUB_STEP_SUMMARY\"\n"
    "      the changes for a CI job's page; --format bencher or github-benchmark for a dashboard\n"
    "\n"
    "Exit codes: 0 done, whatever it found; 1 with --fail-on-regression a series changed for the\n"
    "worse or is SLOWER in the newest folder (pending), with --fail-on-insufficient a series' newest point is "
    "INSUFFICIENT or its testbed's newest\n"
    "folder lacks it; 2 bad command line or\n"
    "input (under two folders, a folder twice, a damaged folder, mixed testbeds; nothing written);\n"
    "3 a full disk or quota; 128+N stopped by signal N. More: docs/COMPARE.md";

/// The folders named, or the results folders inside the one folder named.
std::vector<fs::path> folders_of(const std::vector<std::string>& dirs) {
  std::error_code ec;
  if (dirs.size() == 1 && fs::is_directory(dirs[0], ec) && !fs::exists(fs::path(dirs[0]) / "meta.json", ec)) {
    std::vector<fs::path> inside;
    for (const fs::directory_entry& e : fs::directory_iterator(dirs[0], ec))
      if (e.is_directory(ec) && fs::exists(e.path() / "meta.json", ec)) inside.push_back(e.path());  // a loop: none
    std::sort(inside.begin(), inside.end());
    if (inside.empty())
      throw UsageError(dirs[0] + ": neither a results folder nor a folder holding any directly inside it");
    return inside;
  }
  std::vector<fs::path> out(dirs.begin(), dirs.end());
  for (const fs::path& d : out)
    if (!fs::is_directory(d, ec)) throw UsageError(d.string() + ": " + not_a_folder_why(d));
  return out;
}

/// "580.159.04" before "580.65.06" before "590.1": numeric field by field.
bool driver_before(const std::string& a, const std::string& b) {
  const auto fields = [](const std::string& v) {
    std::vector<long> out;
    for (const std::string& f : split(v, '.')) out.push_back(std::strtol(f.c_str(), nullptr, 10));
    return out;
  };
  return fields(a) < fields(b);
}

struct ReadFolder {
  HistoryFolder info;
  std::vector<std::string> fields;
  std::vector<SummaryRecord> summary;
};

/// The testbeds the folders ran on (each one's fields, a "?" filled by a folder that recorded it), and each folder's
/// (`testbed_of`). The folders that recorded the most fields make the testbeds first; then each folder lacking more
/// ("?") joins the one testbed it matches: in folder order, a folder without an SM count would take in every GPU after
/// it. One that matches two is refused (UsageError): its points could belong to either.
std::vector<std::vector<std::string>> assign_testbeds(const std::vector<ReadFolder>& folders,
                                                      std::vector<std::size_t>& testbed_of) {
  std::vector<std::vector<std::string>> testbeds;
  testbed_of.assign(folders.size(), 0);
  std::vector<std::size_t> order(folders.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto unrecorded = [&folders](std::size_t i) {
    return std::count(folders[i].fields.begin(), folders[i].fields.end(), "?");
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return unrecorded(a) < unrecorded(b); });
  for (const std::size_t i : order) {
    const std::vector<std::string>& f = folders[i].fields;
    std::vector<std::size_t> matches;
    for (std::size_t t = 0; t < testbeds.size(); ++t)
      if (same_testbed(testbeds[t], f)) matches.push_back(t);
    if (matches.size() > 1) {
      std::string which;
      for (const std::size_t t : matches) which += (which.empty() ? "" : " | ") + testbed_text(testbeds[t]);
      throw UsageError(folders[i].info.dir + ": its testbed (" + testbed_text(f) + ") is not recorded whole and " +
                       "matches " + std::to_string(matches.size()) + " testbeds (" + which +
                       "): pass it with one testbed's folders only");
    }
    if (matches.empty()) {
      testbeds.push_back(f);
      matches.push_back(testbeds.size() - 1);
    }
    std::vector<std::string>& joined = testbeds[matches.front()];
    for (std::size_t k = 0; k < joined.size(); ++k)
      if (joined[k] == "?") joined[k] = f[k];
    testbed_of[i] = matches.front();
  }
  return testbeds;
}

HistoryReport build(const std::vector<ReadFolder>& folders, const CompareOptions& options) {
  HistoryReport r;
  r.options = options;
  std::vector<std::size_t> testbed_of;
  const std::vector<std::vector<std::string>> testbeds = assign_testbeds(folders, testbed_of);
  std::map<std::size_t, std::string> text_of;  // each testbed's text, listed in order of its first folder
  for (std::size_t i = 0; i < folders.size(); ++i) {
    if (!text_of.count(testbed_of[i])) {
      text_of[testbed_of[i]] = testbed_text(testbeds[testbed_of[i]]);
      r.testbeds.push_back(text_of[testbed_of[i]]);
    }
    r.folders.push_back(folders[i].info);
    r.folders.back().testbed = text_of[testbed_of[i]];
  }
  for (std::size_t field = 1; field < 4; ++field) {
    std::size_t unknown = 0;
    for (const ReadFolder& f : folders) unknown += f.fields[field] == "?";
    if (unknown > 0)
      r.notes.push_back(std::string(field == 1   ? "SM count"
                                    : field == 2 ? "GPU memory"
                                                 : "host CPU model") +
                        " not recorded in " + std::to_string(unknown) + " of " + std::to_string(folders.size()) +
                        " folders: each such folder joins the testbed whose recorded fields it matches (a "
                        "testbed of its own where none does)");
  }
  // Series: per testbed and configuration, in order of first appearance.
  std::map<std::string, std::size_t> index;
  const auto value = [&options](const SummaryRecord& s) { return metric_value(s, options.metric); };
  for (std::size_t i = 0; i < folders.size(); ++i) {
    std::map<std::string, std::vector<const SummaryRecord*>> ok;
    std::map<std::string, std::size_t> not_ok;
    std::map<std::string, const SummaryRecord*> first;  ///< each configuration's first row, in folder order
    std::vector<std::string> order;
    for (const SummaryRecord& s : folders[i].summary) {
      const std::string key = s.config_key();
      if (first.emplace(key, &s).second) order.push_back(key);
      if (s.status == RunStatus::ok && ran_side_by_side(s))  // an interference run not side by side: left out
        ok[key].push_back(&s);
      else
        ++not_ok[key];
    }
    for (const std::string& key : order) {
      const std::string series_key = r.folders[i].testbed + "|" + key;
      if (index.emplace(series_key, r.series.size()).second) {
        const SummaryRecord& s = *first[key];
        r.series.push_back({r.folders[i].testbed, s.workload, s.params, s.mode, s.procs, {}, {}});
      }
      r.series[index[series_key]].points.push_back(
          make_point(i, ok.count(key) ? worker_set_means(ok[key], value) : std::vector<double>{},
                     not_ok.count(key) ? not_ok[key] : 0));
    }
  }
  for (HistorySeries& s : r.series) s.found = find_changes(s.points, options);
  return r;
}

void write_out(const fs::path& file, const std::string& text) { write_file_atomically(file, text); }

}  // namespace

CLI::App* add_history_command(CLI::App& app, HistoryArgs& args) {
  auto* cmd = app.add_subcommand("history", "follow each configuration across many results folders (driver versions)");
  cmd->footer(kHistoryFooter);
  cmd->add_option("dirs", args.dirs, "results folders, or one folder holding them")->required();
  cmd->add_option("--metric", args.metric, "throughput (tasks/s, higher is better), p50 or p99 (per-task ms)")
      ->capture_default_str();
  cmd->add_option("--threshold", args.threshold_pct, "smallest change in percent called a change")
      ->check(finite_in(0.0, 1000.0))
      ->capture_default_str();
  cmd->add_option("--alpha", args.alpha, "significance level of the Welch t-test, strictly between 0 and 1")
      ->check(finite_in(0.0, 1.0))
      ->capture_default_str();
  cmd->add_flag("--allow-different-testbeds", args.allow_different_testbeds,
                "take folders of several testbeds (GPU model, SMs, memory, host CPU): one series per testbed");
  cmd->add_flag("--fail-on-regression", args.fail_on_regression,
                "exit 1 when a series changed for the worse, or is SLOWER in the newest folder (pending)");
  cmd->add_flag("--fail-on-insufficient", args.fail_on_insufficient,
                "exit 1 when a series' newest point is INSUFFICIENT, or its testbed's newest folder lacks it");
  cmd->add_option("--out", args.out_dir, "write history.md, history.csv, history.json and plots/ into this folder")
      ->check(not_blank());
  cmd->add_option("--format", args.format,
                  "what stdout carries: text (history.md), json, bencher, github-benchmark (the newest folder's "
                  "points), markdown (a CI job summary)")
      ->capture_default_str();
  return cmd;
}

/// run_history's work; a stop signal comes out of it as ReportStopped.
static int history_command(const HistoryArgs& args) {
  CompareOptions options;
  options.metric = parse_compare_metric(args.metric);
  if (!(args.alpha > 0 && args.alpha < 1)) throw UsageError("--alpha must lie strictly between 0 and 1, e.g. 0.05");
  options.threshold_pct = args.threshold_pct;
  options.alpha = args.alpha;
  const ExportFormat format = parse_export_format(args.format);
  if (args.dirs.empty()) throw UsageError("history needs results folders (two or more), or one folder holding them");
  const std::vector<fs::path> dirs = folders_of(args.dirs);
  if (dirs.size() < 2)
    throw UsageError("history needs two results folders or more (got " + std::to_string(dirs.size()) + ")");
  std::map<fs::path, std::string> seen;
  for (const fs::path& d : dirs) {
    const fs::path real = resolved_path(d);
    if (seen.count(real)) throw UsageError(d.string() + ": given twice (also as " + seen[real] + ")");
    seen[real] = d.string();
  }
  if (!args.out_dir.empty()) {
    std::error_code ec;
    for (const char* name : {"history.md", "history.csv", "history.json"})
      if (fs::exists(fs::path(args.out_dir) / name, ec))
        throw UsageError("--out " + args.out_dir + ": already holds a history (" + name + "); choose another folder");
    for (const char* name : {"summary.csv", "meta.json"})
      if (fs::exists(fs::path(args.out_dir) / name, ec))
        throw UsageError("--out " + args.out_dir + ": is a results folder (" + name + "); choose another folder");
    for (const char* name : {"comparison.csv", "comparison.json", "comparison.md"})  // its report owns plots/
      if (fs::exists(fs::path(args.out_dir) / name, ec))
        throw UsageError("--out " + args.out_dir + ": already holds a comparison (" + name +
                         "), whose report would replace history's figures; choose another folder");
    for (const std::string& given : args.dirs)  // a folder holding the results read, given as one argument
      if (resolved_path(args.out_dir) == resolved_path(given))
        throw UsageError("--out " + args.out_dir + ": is a folder this history reads (" + given +
                         "); write it elsewhere (nothing was written)");
    if (fs::exists(fs::path(args.out_dir) / "plots", ec))  // history's would take its place: never another verb's
      throw UsageError("--out " + args.out_dir + ": already holds a plots folder (a report's or a comparison's?); " +
                       "choose another folder");
    for (const auto& [real, given] : seen) {
      if (resolved_path(args.out_dir) == real)
        throw UsageError("--out " + args.out_dir + ": is one of the folders read");
      if (lies_inside(args.out_dir, real))  // its plots/ a report replaces whole, or among the runs read
        throw UsageError("--out " + args.out_dir + ": lies inside " + given +
                         ", a folder this history reads; write it elsewhere (nothing was written)");
    }
  }
  std::vector<ReadFolder> folders;
  std::optional<std::pair<Scenario, std::string>> first_scenario;  // one kind of sweep in a series
  for (const fs::path& d : dirs) {
    throw_if_stopped();  // Ctrl-C while many folders are read
    const ResultsFolder rf = read_results_folder(d);
    const Scenario scenario = meta_scenario(rf.meta).value_or(Scenario::sweep);  // an unknown one: refused above
    if (!first_scenario) first_scenario.emplace(scenario, d.string());
    if (scenario != first_scenario->first)
      throw UsageError(d.string() + ": of scenario '" + std::string(scenario_name(scenario)) + "', where " +
                       first_scenario->second + " is of '" + std::string(scenario_name(first_scenario->first)) +
                       "' (meta.json's sweep.scenario): a history follows one kind of sweep");
    const nlohmann::json meta = rf.meta;
    ReadFolder f;
    f.info.dir = d.string();
    f.info.driver = meta_text(meta, "gpu", "driver_version");
    if (f.info.driver.empty()) f.info.driver = "no driver";
    f.info.started_utc = meta.contains("started_utc") && meta["started_utc"].is_string()
                             ? meta["started_utc"].get<std::string>()
                             : std::string("not recorded");
    f.fields = testbed_of(meta);
    f.summary = rf.summary;
    folders.push_back(std::move(f));
  }
  std::stable_sort(folders.begin(), folders.end(), [](const ReadFolder& a, const ReadFolder& b) {
    if (a.info.driver != b.info.driver) return driver_before(a.info.driver, b.info.driver);
    return a.info.started_utc < b.info.started_utc;
  });
  const HistoryReport report = build(folders, options);
  if (report.testbeds.size() > 1 && !args.allow_different_testbeds) {
    std::string which;
    for (const std::string& t : report.testbeds) which += (which.empty() ? "" : " | ") + t;
    throw UsageError("the folders measured " + std::to_string(report.testbeds.size()) + " testbeds (" + which +
                     "): give --allow-different-testbeds to follow each apart, or pass one testbed's folders");
  }
  const std::string md = render_history_markdown(report);
  const std::string json = json_text(history_json(report), 2) + "\n";
  if (!args.out_dir.empty()) {
    // Written into a staging folder and moved in together: a failure, a full disk or Ctrl-C leaves --out as it
    // was (a folder made for it removed again), so the same command can be run again.
    // --out named, as the sweep names it, where its folder cannot be made
    StagedFolder stage = [&] {
      try {
        return StagedFolder(args.out_dir, "history");
      } catch (const FileWriteError& e) {
        throw FileWriteError("--out: " + std::string(e.what()), e.path(), e.error());
      }
    }();
    const fs::path out = stage.path();
    std::error_code ec;
    fs::create_directories(out / "plots", ec);
    if (ec)
      throw FileWriteError(
          "--out " + args.out_dir + ": cannot create " + (out / "plots").string() + ": " + ec.message(), out,
          ec.value());
    write_out(out / "history.csv", render_history_csv(report));
    write_out(out / "history.json", json);
    nlohmann::json plot = history_plot_data(report);
    plot["format_version"] = kPlotDataFormatVersion;
    plot["kind"] = "history";
    plot["machine"] = std::to_string(report.folders.size()) + " folders";
    write_out(out / "plots" / "plot_data.json", json_text(plot, 2) + "\n");
    try {
      run_plot_script(find_plot_python(), plot_script(), out / "plots" / "plot_data.json", out / "plots",
                      out / "plots" / "plot.log");
    } catch (const EnvironmentError& e) {
      std::cerr << "bench_mps history: figures not drawn: " << e.what() << "\n";
    }
    write_out(out / "history.md", md);
    throw_if_stopped();  // the last moment a stop leaves --out as it was
    stage.commit({"history.csv", "history.json", "plots", "history.md"});
  }
  throw_if_stopped();
  std::cout << render_export(format, md, json, history_points(report), render_history_summary(report));
  std::cout << std::flush;
  // Exit 1 says why on stderr, naming the series, as compare does: a CI log shows more than an exit status.
  std::string worse, insufficient;
  for (const HistorySeries& s : report.series) {
    const std::string label = config_label(s.workload, s.params, s.mode, s.procs);
    for (const HistoryChange& c : s.found.changes)
      if (c.direction == Verdict::slower) worse += (worse.empty() ? "" : "; ") + label;
    // A gate is run on the newest folder, which no later folder can confirm yet: SLOWER there fails it too.
    for (const HistoryChange& c : s.found.pending_changes)
      if (c.direction == Verdict::slower)
        worse += (worse.empty() ? "" : "; ") + label + " (SLOWER in the newest folder, pending: no later folder yet)";
    const HistoryPoint* newest = newest_point(report, s);  // missing from the newest folder: data it lacks
    if (!newest || !newest->sufficient())
      insufficient += (insufficient.empty() ? "" : "; ") + label + (newest ? " (INSUFFICIENT)" : " (missing)");
  }
  if (args.fail_on_insufficient && !insufficient.empty()) {
    std::cerr << "bench_mps: history: newest folder INSUFFICIENT or missing for: " << insufficient
              << " (--fail-on-insufficient)\n";
    return kExitFailed;
  }
  if (args.fail_on_regression && !worse.empty()) {
    std::cerr << "bench_mps: history: changed for the worse: " << worse << " (--fail-on-regression)\n";
    return kExitFailed;
  }
  return kExitOk;
}

int run_history(const HistoryArgs& args) {
  install_stop_handlers();  // a stop ends the plotting script and leaves --out as it was (ReportStopped)
  try {
    return history_command(args);
  } catch (const ReportStopped& e) {
    std::cerr << "bench_mps: history: stopped by "
              << (sigabbrev_np(e.signal) ? "SIG" + std::string(sigabbrev_np(e.signal)) : std::string("a signal"))
              << "; nothing was written\n";
    return 128 + e.signal;
  }
}

}  // namespace bench_mps::harness
