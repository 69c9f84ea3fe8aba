#include "harness/report/report_interference.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "harness/common/format.hpp"
#include "harness/common/json_text.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/report/report_data.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/results/co_run.hpp"
#include "harness/results/interference_rows.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/summary_checks.hpp"
#include "harness/plan/mode_names.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

using nlohmann::json;

std::string ms(double v) { return std::isnan(v) ? "-" : fmt_num(v, 3); }
std::string ratio(double v) { return std::isnan(v) ? "-" : fmt_fixed(v, 2) + "x"; }
std::string fraction(double v) { return std::isnan(v) ? "-" : fmt_fixed(v, 2); }

/// What a mode means for the foreground, in a few words.
std::string mode_meaning(const std::string& mode) {
  const std::optional<NamedMode> named = mode_of_name(mode);
  if (!named || named->external) return mode_label(mode);
  const Mode& m = named->mode;
  switch (m.kind) {
    case ModeKind::timeslice:
      return "no MPS: the contexts take turns";
    case ModeKind::threads:
      return "one process, a host thread and stream per job";
    case ModeKind::green:
      return "one process, each job in a green context of its own SMs";
    case ModeKind::streams:
      return mode_label(mode);
    case ModeKind::mps:
      if (m.prio_first || !m.client_priorities.empty())
        return "MPS, the foreground at normal priority and the background below it (CUDA_MPS_CLIENT_PRIORITY)";
      if (m.auto_pct) return "MPS, each client limited to 100/N% of the SMs (the device plugin's rule)";
      if (is_limited_mps(m)) return "MPS with active-thread limits";
      if (!has_mps_options(m)) return "MPS, every client may use every SM";
      return mode_label(mode);
  }
  return mode_label(mode);
}

}  // namespace

bool is_interference_folder(const SweepMeta& meta) { return meta_scenario(meta) == Scenario::interference; }

namespace {

/// What the report takes from the runs besides the cells: the failed runs, NVML's busy share beside,
/// and the background's absolute rates beside and alone (keyed "mode|N"; alone: its N-1 jobs, keyed by N too).
struct InterferenceRates {
  std::vector<std::string> failed;
  std::map<std::string, std::vector<double>> util, bg_beside, bg_alone;
};

InterferenceRates collect_rates(const std::vector<SummaryRecord>& summary) {
  InterferenceRates rates;
  for (const SummaryRecord& r : summary) {
    if (r.status != RunStatus::ok)
      rates.failed.push_back("`" + r.run_id + "`: " + to_string(r.status) +
                             (r.reason.empty() ? "" : " (" + one_line(r.reason) + ")"));
    // Beside: the runs its cell counts (ok, side by side); the figure's background rates are absolute, beside
    // (keyed by N) and alone (its N-1 jobs, keyed by N too).
    if (r.scenario == RunKind::interference && r.status == RunStatus::ok && ran_side_by_side(r)) {
      rates.util[r.mode + "|" + std::to_string(r.procs)].push_back(r.gpu_util_mean);
      rates.bg_beside[r.mode + "|" + std::to_string(r.procs)].push_back(r.bg_throughput_per_s);
    }
    if (r.status == RunStatus::ok && r.scenario == RunKind::interference_bg)
      rates.bg_alone[r.mode + "|" + std::to_string(r.procs + 1)].push_back(r.bg_throughput_per_s);
  }
  return rates;
}

/// The figure (per N, one group of bars per mode) into the plot plan, and its section of the markdown.
void add_figure(const std::vector<InterferenceCell>& cells, InterferenceRates& rates, const SweepMeta& meta,
                const std::string& bg, InterferenceReport& out) {
  std::string& md = out.markdown;
  // The figure: per N, one group of bars per mode.
  json groups = json::array();
  std::vector<int> ns;
  for (const auto& c : cells)
    if (std::find(ns.begin(), ns.end(), c.procs) == ns.end()) ns.push_back(c.procs);
  for (int n : ns) {
    json modes = json::array();
    for (const auto& c : cells)
      if (c.procs == n && c.runs > c.failed + c.not_side_by_side)  // none side by side: no bar to draw
        modes.push_back(
            {{"mode", c.mode},
             {"mode_label", mode_label(c.mode)},
             {"p99_vs_alone", json_number(c.p99_vs_alone)},
             {"p99_vs_alone_min", json_number(c.p99_vs_alone_min)},
             {"p99_vs_alone_max", json_number(c.p99_vs_alone_max)},
             {"bg_kept", json_number(c.bg_kept)},
             {"bg_per_s", json_number(spread_of(rates.bg_beside[c.mode + "|" + std::to_string(n)]).median)},
             {"bg_alone_per_s", json_number(spread_of(rates.bg_alone[c.mode + "|" + std::to_string(n)]).median)}});
    if (!modes.empty()) groups.push_back({{"n", n}, {"modes", modes}});
  }
  FigureInfo f{
      "interference", "The foreground beside " + bg + " background jobs",
      "Left: the foreground's p99 latency beside the background jobs over its own alone, per mode (log scale; "
      "1 = undisturbed; bars span the repeats). Right: the background jobs' tasks per second, absolute (median "
      "over the repeats): the open bar alone, in the same mode, the filled bar beside the foreground, with the "
      "share kept (*background kept* in the tables: beside over alone in the same mode) written above it. "
      "Modes differ in what the background does alone, so a share kept compares a mode only with itself; the "
      "heights compare the modes. A mode that protects the foreground has a short bar on the left; what it "
      "costs the background shows on the right."};
  out.plan.data = {
      {"format_version", kPlotDataFormatVersion},
      {"figures",
       json::array({{{"name", f.name}, {"title", f.title + " (" + gpu_title(meta) + ")"}, {"groups", groups}}})}};
  if (!groups.empty()) {
    out.plan.figures.push_back(f);
    md += "## Figure\n\n" + figure_markdown(f);
  } else {
    out.plan.data["figures"] = json::array();
    out.plan.not_drawn.push_back(f.title + ": no side-by-side run finished side by side");
  }
}

/// The tables: the cells, every run, the failed runs.
std::string tables_markdown(const std::vector<InterferenceCell>& cells, InterferenceRates& rates,
                            const std::vector<SummaryRecord>& summary) {
  std::string md;
  md += "## The foreground beside the background\n\n";
  MarkdownTable t({"mode", "what it means", "N", "runs ok, side by side", "fg p50 ms alone → beside",
                   "fg p95 ms beside", "fg p99 ms alone → beside", "p99 vs alone (min–max)", "fg throughput vs alone",
                   "background kept", "GPU busy beside (NVML)"});
  for (const auto& c : cells) {
    auto& u = rates.util[c.mode + "|" + std::to_string(c.procs)];
    const Spread busy = spread_of(u);
    t.add_row({c.mode, mode_meaning(c.mode), std::to_string(c.procs),
               std::to_string(c.runs - c.failed - c.not_side_by_side) + "/" + std::to_string(c.runs) +
                   (c.not_side_by_side ? " (" + std::to_string(c.not_side_by_side) + " not side by side)" : ""),
               ms(c.alone_p50_ms) + " → " + ms(c.p50_ms), ms(c.p95_ms), ms(c.alone_p99_ms) + " → " + ms(c.p99_ms),
               ratio(c.p99_vs_alone) + (std::isnan(c.p99_vs_alone_min)
                                            ? ""
                                            : " (" + ratio(c.p99_vs_alone_min) + "–" + ratio(c.p99_vs_alone_max) + ")"),
               ratio(c.throughput_vs_alone), fraction(c.bg_kept), fraction(busy.median)});
  }
  md += t.str() + "\n";
  md += "## Every run\n\n";
  MarkdownTable every({"run", "status", "fg overlap", "fg p50 ms", "fg p99 ms", "p99 vs alone",
                       "fg throughput vs alone", "background tasks/s", "background kept"});
  for (const SummaryRecord& r : summary)
    every.add_row(
        {r.run_id,
         to_string(r.status) + (r.status == RunStatus::ok && !ran_side_by_side(r) ? ", not side by side" : ""),
         overlap_percent(r.fg_overlap), ms(r.fg_latency_p50_ms), ms(r.fg_latency_p99_ms), ratio(r.fg_p99_vs_alone),
         ratio(r.fg_throughput_vs_alone), std::isnan(r.bg_throughput_per_s) ? "-" : fmt_num(r.bg_throughput_per_s, 4),
         fraction(r.bg_throughput_kept)});
  md += every.str() + "\n## Failed runs\n\n";
  if (rates.failed.empty()) md += "None.\n";
  for (const std::string& f2 : rates.failed) md += "- " + f2 + "\n";
  return md;
}

}  // namespace

InterferenceReport render_interference_report(const fs::path& dir, const SweepMeta& meta, const std::string& name) {
  std::vector<SummaryRecord> summary = read_summary(dir / "summary.csv");
  check_rows_match_meta(dir / "summary.csv", summary, meta);
  // A folder written before fg_overlap: the overlap from its tasks, so that a run not side by side is not read as
  // undisturbed there either; without tasks.csv it stays unknown, and is said so.
  const int overlap_unknown = fill_missing_overlap(dir, summary);
  InterferenceRates rates = collect_rates(summary);
  const std::vector<InterferenceCell> cells = aggregate_interference_runs(summary);
  const std::string fg = meta_text(shown_of(meta.sweep), "/foreground"),
                    bg = meta_text(shown_of(meta.sweep), "/background");
  const std::string fg_params = workload_params(meta, fg), bg_params = workload_params(meta, bg);

  InterferenceReport out;
  const std::string verdict = interference_verdict(cells);
  const bool finished =
      std::any_of(cells.begin(), cells.end(), [](const InterferenceCell& c) { return c.runs > c.failed; });
  const bool side_by_side = std::any_of(
      cells.begin(), cells.end(), [](const InterferenceCell& c) { return c.runs > c.failed + c.not_side_by_side; });
  std::string& md = out.markdown;
  md = (!verdict.empty() ? "On " + gpu_and_driver(meta) + ": " + verdict
        : side_by_side ? std::string("Side-by-side runs finished, but no run of the foreground alone did: no ratio to "
                                     "its alone to say which mode protects it.")
        : finished     ? "Side-by-side runs finished, but in none did every background job run during at least " +
                         fmt_fixed(100 * kMinCoRunCoverage, 0) +
                         " % of the foreground's timed span (fg_overlap): nothing measured the foreground beside "
                         "them; " +
                         kNotSideBySideHint + "."
                   : std::string("No side-by-side run finished.")) +
       "\n\n# bench_mps interference report: " + name + "\n\n";
  md += "One foreground job, `" + fg + "` (`" + fg_params + "`), beside N-1 background jobs, `" + bg + "` (`" +
        bg_params +
        "`), in each mode. Every repeat of a mode measures the foreground alone, the background jobs alone and then "
        "both side by side: *p99 vs alone* is the foreground's 99th-percentile latency beside the background over "
        "its own alone, the two medians shown beside it (1 = undisturbed; in brackets the range of the per-repeat "
        "ratios, each repeat over its own alone run); *fg throughput vs alone* the same for its requests (tasks) per "
        "second, median of the per-repeat ratios; *background kept* the background jobs' throughput beside the "
        "foreground over theirs alone in the same mode (1 = they lost nothing; each mode against its own alone, so "
        "compare the background's tasks per second across modes in *Every run*). A side-by-side run counts where every "
        "background job ran during at least " +
        fmt_fixed(100 * kMinCoRunCoverage, 0) +
        " % of the foreground's timed span (*fg overlap*, its first task's start to its last task's end); one that "
        "did not is shown, counted as *not side by side* and left out of its cell. For `mlp-infer` a latency runs "
        "from a request's arrival (fixed rate, open loop) to its completion, queueing included. Medians over the "
        "repeats.\n\n";
  md += "## Machine\n\n" + machine_markdown(meta) + "\n";

  if (overlap_unknown > 0)
    md += "*fg overlap* is not recorded for " + std::to_string(overlap_unknown) +
          " side-by-side run(s) (a folder written before the column, without tasks.csv): they are counted as side by "
          "side, unchecked.\n\n";
  add_figure(cells, rates, meta, bg, out);
  md += tables_markdown(cells, rates, summary);
  return out;
}

}  // namespace bench_mps::harness
