// The regimes report's figures, as data for scripts/plot_report.py (which computes nothing).
#include <algorithm>
#include <cmath>
#include <set>

#include "harness/common/format.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/common/json_text.hpp"
#include "harness/report/report_regimes_parts.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/plan/mode_names.hpp"

namespace bench_mps::harness {
namespace {

using json = nlohmann::json;

/// The busy contexts' intervals of one X-ray run inside [from, from + width] ms after its GO, per worker.
json timeline(const std::vector<TaskSample>& tasks, const std::string& run_id, double from, double width) {
  std::map<int, json> by_worker;
  for (const TaskSample& t : tasks) {
    if (t.run_id != run_id) continue;
    const double a = std::max(t.start_ms, from), b = std::min(t.start_ms + t.duration_ms, from + width);
    if (!by_worker.count(t.worker)) by_worker[t.worker] = json::array();
    if (b > a) by_worker[t.worker].push_back({a - from, b - from});
  }
  json out = json::array();
  for (auto& [w, spans] : by_worker) out.push_back(spans);
  return out;
}

json xray_figure(const RegimesInput& in) {
  std::set<int> ns;
  for (const XrayCell& c : in.xray)
    if (c.procs > 1) ns.insert(c.procs);
  if (ns.empty() || in.tasks.empty()) return json();
  const int n = ns.count(4) ? 4 : *ns.rbegin();
  json panels = json::array();
  for (const std::string& mode : {kTimesliceMode, kMpsMode}) {
    // The first repeat's busy run at N that finished: a failed one's tasks are no timeline of N busy contexts.
    const SummaryRecord* run = nullptr;
    for (const SummaryRecord& r : in.rows)
      if (r.scenario == RunKind::xray_busy && r.mode == mode && r.procs == n && r.status == RunStatus::ok &&
          (!run || r.repeat < run->repeat))
        run = &r;
    if (!run) continue;
    const json contexts = timeline(in.tasks, run->run_id, 200.0, 25.0);
    if (!contexts.empty())
      panels.push_back({{"mode", mode}, {"mode_label", mode_label(mode)}, {"n", n}, {"contexts", contexts}});
  }
  json waits = json::array();
  for (const XrayCell& c : in.xray)
    if (c.mode == kTimesliceMode && c.procs > 1)
      waits.push_back({{"n", c.procs},
                       {"measured", json_number(c.wait_ms)},
                       {"p99", json_number(c.wait_p99_ms)},
                       {"predicted", json_number(predict_wait_ms(c.procs, in.sched))},
                       {"turn_cost", json_number(c.turn_switch_ms)}});
  return {{"name", "xray"},    {"title", "The time-slice X-ray (" + gpu_title(in.meta) + ")"},
          {"window_ms", 25.0}, {"slice_ms", json_number(in.sched.slice_ms)},
          {"panels", panels},  {"waits", waits}};
}

/// The model's loss over a dense grid of bursts (log) and duty cycles, for contours.
json model_surface(const std::string& mode, int n, const SchedulerFacts& sched, double footprint) {
  json bursts = json::array(), duties = json::array(), loss = json::array();
  constexpr int kSteps = 48;
  for (int i = 0; i < kSteps; ++i) bursts.push_back(0.06 * std::pow(20.0 / 0.06, i / (kSteps - 1.0)));
  for (int j = 0; j < kSteps; ++j) duties.push_back(0.02 + 0.98 * j / (kSteps - 1.0));
  for (const json& d : duties) {
    json row = json::array();
    for (const json& b : bursts) {
      RegimePoint p = regime_point(b.get<double>(), d.get<double>(), NAN, NAN);
      p.footprint = footprint;
      row.push_back(
          json_number(mode == kTimesliceMode ? predict_timesliced(p, n, sched).loss : predict_mps(p, n).loss));
    }
    loss.push_back(row);
  }
  return {{"bursts_ms", bursts}, {"duties", duties}, {"loss", loss}};
}

json map_figure(const RegimesInput& in) {
  std::set<int> ns;
  std::vector<double> footprints;
  for (const Evaluated& e : in.evaluated)
    if (e.kind == "grid") {
      ns.insert(e.procs);
      footprints.push_back(e.point.footprint);
    }
  if (ns.empty()) return json();
  footprints.erase(std::remove_if(footprints.begin(), footprints.end(), [](double f) { return !std::isfinite(f); }),
                   footprints.end());
  std::sort(footprints.begin(), footprints.end());
  const double footprint = footprints.empty() ? NAN : footprints[footprints.size() / 2];
  std::vector<std::pair<std::string, int>> wanted;
  for (int n : ns) wanted.emplace_back(kTimesliceMode, n);
  wanted.emplace_back(kMpsMode, *ns.rbegin());
  json panels = json::array();
  for (const auto& [mode, n] : wanted) {
    json cells = json::array(), points = json::array();
    for (const Evaluated& e : in.evaluated) {
      if (e.mode != mode || e.procs != n) continue;
      if (e.kind == "grid") {
        cells.push_back(
            {{"label", e.label}, {"burst_ms", e.burst_ms}, {"duty", e.duty}, {"loss", json_number(e.measured)}});
      } else {
        points.push_back({{"label", e.label},
                          {"kind", e.kind},
                          {"burst_ms", json_number(e.burst_ms)},
                          {"duty", json_number(e.duty)},
                          {"loss", json_number(e.measured)},
                          {"predicted", json_number(e.predicted.loss)}});
      }
    }
    const bool measured = std::any_of(cells.begin(), cells.end(), [](const json& c) { return !c["loss"].is_null(); });
    if (!measured) continue;  // no grid point measured in that mode at N (MPS not run, or every run failed)
    panels.push_back({{"mode", mode},
                      {"mode_label", mode_label(mode)},
                      {"n", n},
                      {"cells", cells},
                      {"points", points},
                      {"model", model_surface(mode, n, in.sched, footprint)}});
  }
  if (panels.empty()) return json();
  return {{"name", "regime_map"}, {"title", "The regime map (" + gpu_title(in.meta) + ")"}, {"panels", panels}};
}

json accuracy_figure(const RegimesInput& in) {
  json points = json::array();
  for (const Evaluated& e : in.evaluated)
    if (std::isfinite(e.measured) && std::isfinite(e.predicted.loss))
      points.push_back({{"label", e.label},
                        {"kind", e.kind},
                        {"mode", e.mode},
                        {"n", e.procs},
                        {"measured", e.measured},
                        {"predicted", e.predicted.loss}});
  if (points.empty()) return json();
  return {{"name", "model_vs_measured"},
          {"title", "The regime model against the measurements (" + gpu_title(in.meta) + ")"},
          {"points", points}};
}

}  // namespace

PlotPlan regimes_plot_plan(const RegimesInput& in) {
  PlotPlan plan;
  plan.data = {{"format_version", kPlotDataFormatVersion}, {"figures", json::array()}};
  const std::vector<std::pair<json, FigureInfo>> figures{
      {xray_figure(in),
       {"xray", "The time-slice X-ray",
        "Left: when each of N contexts that always have work ran, time-sliced and under MPS, over 25 ms of one run "
        "(each bar an interval its one-thread kernel ran without a pause longer than --xray-gap-us, read on the GPU's "
        "clock). Right: what a context of short synchronising steps waits per step beside N-1 such contexts, measured "
        "(dots, p99 whiskers) and predicted as (N-1) x (slice + switch) (line)."}},
      {map_figure(in),
       {"regime_map", "The regime map",
        "Each cell is one grid point: its burst (GPU time per synchronising step) and duty cycle alone, coloured by "
        "the loss at N (per-step time over one copy alone time-sliced: the seeds' basis; 1 = nothing lost, N = "
        "no gain over running the copies one after the other). The lines are the regime model's loss at the same "
        "N; markers are the placed workloads and the seeds at their points (labels give their measured loss)."}},
      {accuracy_figure(in),
       {"model_vs_measured", "The model against the measurements",
        "Every cell (grid points, placed workloads, seeds) at every N, time-sliced and under MPS: the model's loss "
        "against the measured one, log scales; the diagonal is a perfect prediction, the band +-15%."}},
  };
  for (const auto& [data, info] : figures) {
    if (data.is_null()) {
      plan.not_drawn.push_back(info.title + ": nothing measured for it in this folder");
      continue;
    }
    plan.data["figures"].push_back(data);
    plan.figures.push_back(info);
  }
  return plan;
}

}  // namespace bench_mps::harness
