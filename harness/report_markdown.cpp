// Writes report.md for a results folder. Every number comes from ReportData; nothing is hard-coded
// except the seed articles' figures, which come from results/seeds.csv with their sources.
#include "harness/report_markdown.hpp"

#include <cmath>
#include <set>

#include "harness/format.hpp"
#include "harness/markdown_table.hpp"
#include "harness/report_meta.hpp"

namespace bench_mps::harness {
namespace {

/// The MPS mode the verdict speaks of: plain `mps` if measured, else the first other MPS mode.
std::string verdict_mps_mode(const ReportData& data) {
  std::string pick;
  for (const auto& m : data.modes) {
    if (m == "mps") return m;
    if (m != "timeslice" && pick.empty()) pick = m;
  }
  return pick;
}

/// One clause of the verdict for one workload, or "" when nothing comparable was measured.
std::string verdict_clause(const ReportData& data, const std::string& series, const std::string& mps, bool first) {
  auto rel = [&](const std::string& mode, int n) {
    const ReportCell* c = data.find(series, mode, n);
    return c ? c->relative_throughput.median : NAN;
  };
  const std::string mps_name = mps.empty() ? "" : mode_label(mps);
  // Largest N > 1 where both modes have a throughput relative to N=1.
  for (auto it = data.procs.rbegin(); it != data.procs.rend(); ++it) {
    const int n = *it;
    if (n <= 1) break;
    const double ts = rel("timeslice", n), mp = mps.empty() ? NAN : rel(mps, n);
    if (std::isfinite(ts) && std::isfinite(mp)) {
      if (first)
        return std::to_string(n) + " processes time-sliced ran at " + fmt_times(ts) +
               " the throughput of one process for " + series + " while " + mps_name + " reached " + fmt_times(mp);
      return "for " + series + " at N=" + std::to_string(n) + ", " + fmt_times(ts) + " time-sliced and " +
             fmt_times(mp) + " with " + mps_name;
    }
  }
  // No N=1 in one of the modes: MPS over time-slicing at the largest N with both.
  for (auto it = data.procs.rbegin(); it != data.procs.rend() && !mps.empty(); ++it) {
    const ReportCell* c = data.find(series, mps, *it);
    if (c && std::isfinite(c->speedup_vs_timeslice.median))
      return (first ? "" : "for " + series + ", ") + mps_name + " ran " + std::to_string(*it) + " processes at " +
             fmt_times(c->speedup_vs_timeslice.median) + " the throughput of time-slicing" +
             (first ? " for " + series : "");
  }
  // One mode only: its scaling.
  for (auto it = data.procs.rbegin(); it != data.procs.rend(); ++it) {
    if (*it <= 1) break;
    for (const auto& m : data.modes) {
      const double r = rel(m, *it);
      if (std::isfinite(r))
        return std::to_string(*it) + " processes " + mode_label(m) + " ran at " + fmt_times(r) +
               " the throughput of one process for " + series;
    }
  }
  return "";
}

std::string runs_phrase(const ReportData& data) {
  const int failed = static_cast<int>(data.failed.size());
  if (data.runs_total == 0) return "no runs recorded";
  if (failed == 0) return "all " + std::to_string(data.runs_total) + " runs ok";
  return std::to_string(failed) + " of " + std::to_string(data.runs_total) + " runs failed and are left out";
}

std::string results_table(const ReportData& data) {
  MarkdownTable t({"workload", "mode", "N", "runs ok", "per-task ms", "p99 ms", "tasks/s", "per-task time vs N=1",
                   "throughput vs N=1", "throughput vs time-sliced"},
                  {false, false, true, true, true, true, true, true, true, true});
  auto ratio = [](const Spread& s) {
    if (!std::isfinite(s.median)) return std::string("-");
    const std::string m = fmt_times(s.median), lo = fmt_times(s.min), hi = fmt_times(s.max);
    return lo == hi ? m : m + " (" + lo + "–" + hi + ")";
  };
  for (const ReportCell& c : data.cells) {
    t.add_row({c.series, c.mode, std::to_string(c.procs),
               std::to_string(c.runs - c.failed) + "/" + std::to_string(c.runs),
               fmt_range(c.task_mean_ms.median, c.task_mean_ms.min, c.task_mean_ms.max),
               fmt_range(c.task_p99_ms.median, c.task_p99_ms.min, c.task_p99_ms.max),
               fmt_range(c.throughput.median, c.throughput.min, c.throughput.max), ratio(c.relative_task_time),
               ratio(c.relative_throughput), c.mode == "timeslice" ? "" : ratio(c.speedup_vs_timeslice)});
  }
  return t.str();
}

std::string seeds_section(const ReportData& data, const std::vector<SeedRatio>& seeds) {
  std::vector<std::string> header{"source", "GPU", "their workload", "N", "mode", "their time vs N=1"};
  std::vector<bool> right{false, false, false, true, false, true};
  for (const auto& s : data.series) {
    header.push_back("ours: " + s);
    right.push_back(true);
  }
  MarkdownTable t(header, right);
  for (const SeedRatio& r : seeds) {
    std::vector<std::string> row{r.source_id,          r.gpu, r.their_workload, std::to_string(r.procs), r.mode,
                                 fmt_fixed(r.ratio, 2)};
    for (const auto& s : data.series) {
      const ReportCell* c = data.find(s, r.mode, r.procs);
      std::string ours = c ? fmt_fixed(c->relative_task_time.median, 2) : "-";
      if (ours != "-" && !r.workload_kind.empty() && c->workload == r.workload_kind) ours = "**" + ours + "**";
      row.push_back(ours);
    }
    t.add_row(row);
  }
  std::string out =
      "Each seed figure is the time one process's work took with N processes sharing the GPU, divided by "
      "the time it took alone (their N=1 run, which used no MPS); ours is the median per-task time at the "
      "same N and mode over our N=1 per-task time (\"per-task time vs N=1\" above). \"-\": we did not run "
      "that N and mode. Bold: our workload closest to theirs.\n\n" +
      t.str() + "\nSources:\n\n";
  std::set<std::string> listed;
  for (const SeedRatio& r : seeds) {
    if (!listed.insert(r.source_id).second) continue;
    out += "- `" + r.source_id + "`: " + r.title + " (" + r.gpu + "; " + r.their_workload + "), " + r.reference + "\n";
  }
  return out;
}

}  // namespace

std::string results_verdict(const ReportData& data, const nlohmann::json& meta) {
  const std::string mps = verdict_mps_mode(data);
  std::string clauses;
  for (const auto& s : data.series) {
    const std::string c = verdict_clause(data, s, mps, clauses.empty());
    if (!c.empty()) clauses += (clauses.empty() ? "" : "; ") + c;
  }
  if (clauses.empty()) clauses = "no configuration could be set against another";
  return "On " + gpu_and_driver(meta) + ", " + clauses + " (" + runs_phrase(data) + ").";
}

std::string render_results_report(const ReportData& data, const nlohmann::json& meta,
                                  const std::vector<SeedRatio>& seeds, const PlotPlan& plan,
                                  const std::string& folder_name) {
  std::string md = results_verdict(data, meta) + "\n\n# bench_mps report: " + folder_name + "\n\n";
  md +=
      "Rendered by `bench_mps report` from meta.json, summary.csv and tasks.csv; see docs/REPORT.md for "
      "how to read it. Statistics count only runs with status ok: " +
      runs_phrase(data) + ".\n\n## Machine\n\n" + machine_markdown(meta);
  md += "\n## Figures\n\n";
  for (const FigureInfo& f : plan.figures)
    md += "### " + f.title + "\n\n![" + f.title + "](plots/" + f.name + ".png)\n\n" + f.how_to_read + " ([SVG](plots/" +
          f.name + ".svg))\n\n";
  for (const std::string& why : plan.not_drawn) md += "Not drawn: " + why + ".\n\n";
  md +=
      "## Per workload, mode and N\n\n"
      "Median over the ok repeats, (min–max) where they differ. Per-task ms is the mean task time of a run; "
      "ratios are taken per repeat against the same repeat's N=1 run (same workload and mode) or "
      "time-sliced run (same N), then summarised.\n\n" +
      results_table(data);
  md += "\n## Beside the seed articles\n\n" + seeds_section(data, seeds);
  md += "\n## Failed runs\n\n";
  if (data.failed.empty()) md += "None.\n";
  for (const FailedRun& f : data.failed)
    md += "- `" + f.run_id + "`: " + f.status + (f.reason.empty() ? "" : " (" + one_line(f.reason) + ")") + "\n";
  return md;
}

}  // namespace bench_mps::harness
