// Builds plot_data.json for a results folder: line series (relative per-task time, throughput),
// precomputed box statistics (per-task time distribution) and bars (MPS speedup).
#include "harness/report/report_plot_data.hpp"

#include <algorithm>
#include <cmath>

#include "harness/results/results_schema.hpp"
#include "harness/common/json_text.hpp"
#include "harness/plan/mode_names.hpp"

namespace bench_mps::harness {
namespace {

using nlohmann::json;

/// x, median, min and max of `pick(cell)` along N for one series and mode; points without a value are left out.
template <typename Pick>
json line(const ReportData& data, const std::string& series, const std::string& mode, Pick pick) {
  json n = json::array(), med = json::array(), lo = json::array(), hi = json::array();
  for (const ReportCell& c : data.cells) {
    if (c.series != series || c.mode != mode) continue;
    const Spread& s = pick(c);
    if (!std::isfinite(s.median)) continue;
    n.push_back(c.procs);
    med.push_back(s.median);
    lo.push_back(json_number(s.min));
    hi.push_back(json_number(s.max));
  }
  return {{"series", series}, {"mode", mode}, {"mode_label", mode_label(mode)}, {"n", n}, {"median", med},
          {"min", lo},        {"max", hi}};
}

/// Each maker fills `out` with the figure's entry and returns whether it has anything to draw.
bool relative_figure(const ReportData& data, const std::vector<SeedRatio>& seeds, FigureInfo& f, json& out) {
  f = {"relative_task_time", "Per-task time over one process alone, time-sliced",
       "Each line is one workload in one mode: the median per-task time at N processes divided by the "
       "median per-task time of one process alone, time-sliced (same workload): seed 000's basis, so an MPS "
       "mode's own cost at N=1 (an active-thread limit's above all) shows. Error bars span the same ratio "
       "taken per repeat. The gray dashed line N is what ideal time-slicing predicts "
       "(each process gets 1/N of the GPU), the gray dotted line 1 is ideal sharing. Large open markers "
       "are the seed articles' figures at their N (labelled by source), on the same basis, except those "
       "marked †: those seeds timed the completion of all N copies, not the time per task (seed 001), "
       "as the seed tables below mark them. Where two modes' lines coincide, the time-sliced one is the thin "
       "line with open markers drawn over the other."};
  json lines = json::array();
  for (const auto& s : data.series)
    for (const auto& m : data.modes) {
      json l = line(data, s, m, [](const ReportCell& c) -> const Spread& { return c.task_time_vs_timeslice_alone; });
      if (!l["n"].empty()) lines.push_back(l);
    }
  json points = json::array();
  for (const SeedRatio& r : seeds)
    points.push_back({{"source_id", r.source_id},
                      {"label", r.gpu + ", " + r.source_id},
                      {"n", r.procs},
                      {"mode", r.mode},
                      {"mode_label", mode_label(r.mode)},
                      {"ratio", r.ratio},
                      {"metric", r.metric}});  // completion_time is marked: this axis is per task
  int max_n = 1;
  for (int n : data.procs) max_n = std::max(max_n, n);
  for (const SeedRatio& r : seeds) max_n = std::max(max_n, r.procs);
  out = {{"name", f.name}, {"title", f.title}, {"lines", lines}, {"seeds", points}, {"max_n", max_n}};
  return !lines.empty();  // the seeds alone are no figure of this folder
}

bool throughput_figure(const ReportData& data, FigureInfo& f, json& out) {
  f = {"throughput", "Aggregate throughput against N",
       "One panel per workload: tasks completed per second by all N processes together (median over "
       "repeats, error bars min to max). A flat line means adding processes adds no work done "
       "(time-slicing a GPU that one process already keeps busy); a line rising with N means the "
       "processes really share the GPU."};
  json panels = json::array();
  for (const auto& s : data.series) {
    json lines = json::array();
    for (const auto& m : data.modes) {
      json l = line(data, s, m, [](const ReportCell& c) -> const Spread& { return c.throughput; });
      if (!l["n"].empty()) lines.push_back(l);
    }
    if (!lines.empty()) panels.push_back({{"series", s}, {"lines", lines}});
  }
  out = {{"name", f.name}, {"title", f.title}, {"panels", panels}};
  return !panels.empty();
}

bool distribution_figure(const ReportData& data, FigureInfo& f, json& out) {
  f = {"task_time_distribution", "Per-task time distribution",
       "One panel per workload, one box per mode and N, from every task of the ok runs (tasks.csv, "
       "repeats pooled): the box spans p25 to p75, the line inside is p50, whiskers reach p1 and p99, "
       "the triangle marks p99 and the small dots the minimum and maximum. A long upper whisker is a "
       "tail: tasks that waited for other processes' time slices."};
  json panels = json::array();
  for (const auto& s : data.series) {
    json boxes = json::array();
    for (const ReportCell& c : data.cells) {
      if (c.series != s || c.tasks.count == 0) continue;
      const TaskTimeDistribution& d = c.tasks;
      boxes.push_back({{"mode", c.mode},
                       {"mode_label", mode_label(c.mode)},
                       {"n", c.procs},
                       {"count", d.count},
                       {"min", d.min},
                       {"p1", d.p1},
                       {"p25", d.p25},
                       {"p50", d.p50},
                       {"p75", d.p75},
                       {"p99", d.p99},
                       {"max", d.max},
                       {"mean", d.mean}});
    }
    if (!boxes.empty()) panels.push_back({{"series", s}, {"boxes", boxes}});
  }
  out = {{"name", f.name}, {"title", f.title}, {"modes", data.modes}, {"procs", data.procs}, {"panels", panels}};
  return !panels.empty();
}

bool speedup_figure(const ReportData& data, FigureInfo& f, json& out) {
  f = {"mps_speedup", "MPS throughput over time-slicing",
       "Bars: the median aggregate throughput with MPS divided by the median time-sliced throughput at "
       "the same N (error bars: the same ratio per repeat, min to max), one bar per workload and MPS mode. "
       "Above 1 MPS gets more work done; at N=1 the bar shows MPS's own overhead."};
  json bars = json::array();
  for (const ReportCell& c : data.cells) {
    if (c.mode == kTimesliceMode || !std::isfinite(c.speedup_vs_timeslice.median)) continue;
    bars.push_back({{"series", c.series},
                    {"mode", c.mode},
                    {"mode_label", mode_label(c.mode)},
                    {"n", c.procs},
                    {"median", c.speedup_vs_timeslice.median},
                    {"min", json_number(c.speedup_vs_timeslice.min)},
                    {"max", json_number(c.speedup_vs_timeslice.max)}});
  }
  out = {{"name", f.name}, {"title", f.title}, {"procs", data.procs}, {"bars", bars}};
  return !bars.empty();
}

}  // namespace

PlotPlan results_plot_plan(const ReportData& data, const std::vector<SeedRatio>& seeds, const std::string& machine) {
  PlotPlan plan;
  json figures = json::array();
  auto add = [&](bool has_data, const FigureInfo& f, const json& entry, const std::string& why_not) {
    if (has_data) {
      plan.figures.push_back(f);
      figures.push_back(entry);
    } else {
      plan.not_drawn.push_back(f.title + ": " + why_not);
    }
  };
  FigureInfo f;
  json entry;
  bool has = relative_figure(data, seeds, f, entry);
  add(has, f, entry, "no ok run has a time-sliced N=1 run of the same workload and repeat to divide by");
  has = throughput_figure(data, f, entry);
  add(has, f, entry, "no run finished ok");
  has = distribution_figure(data, f, entry);
  add(has, f, entry, "no task of an ok run in tasks.csv");
  has = speedup_figure(data, f, entry);
  add(has, f, entry, "no N with both a time-sliced and an MPS run ok in the same repeat");
  plan.data = {{"format_version", kPlotDataFormatVersion},
               {"kind", "results"},
               {"machine", machine},
               {"modes", data.modes},
               {"series", data.series},
               {"figures", figures}};
  return plan;
}

}  // namespace bench_mps::harness
