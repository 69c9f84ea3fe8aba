#include "harness/results/regime_rows.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"

namespace bench_mps::harness {
namespace {

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }
std::string ms(double v) { return std::isnan(v) ? "-" : fmt_num(v, 3); }
std::string ratio(double v) { return std::isnan(v) ? "-" : fmt_fixed(v, 2) + "x"; }

/// A configuration's identity across modes and N: the grid point's tag, else workload and parameters.
std::string point_of(const SummaryRecord& r) {
  return r.scenario == RunKind::plain ? r.workload + "|" + r.params : r.scenario.point;
}

}  // namespace

std::vector<XrayCell> aggregate_xray(const std::vector<SummaryRecord>& rows) {
  std::vector<std::string> modes;
  std::map<std::pair<std::string, int>, std::vector<const SummaryRecord*>> by;
  for (const SummaryRecord& r : rows) {
    if (!r.scenario.is_xray()) continue;
    if (std::find(modes.begin(), modes.end(), r.mode) == modes.end()) modes.push_back(r.mode);
    by[{r.mode, r.procs}].push_back(&r);
  }
  std::vector<XrayCell> cells;
  for (const std::string& mode : modes)
    for (const auto& [key, list] : by) {
      if (key.first != mode) continue;
      XrayCell c;
      c.mode = mode;
      c.procs = key.second;
      std::map<std::string, std::vector<double>> v;
      for (const SummaryRecord* r : list) {
        ++c.runs;
        if (r->status != RunStatus::ok) {
          ++c.failed;
          continue;
        }
        if (r->scenario == RunKind::xray_busy) {
          v["slice"].push_back(r->xray_slice_ms);
          v["switch"].push_back(r->xray_switch_ms);
          v["lost"].push_back(r->xray_lost_share);
          v["on"].push_back(r->xray_on_share);
        } else if (r->scenario == RunKind::xray_wait) {
          v["wait"].push_back(r->xray_wait_ms);
          v["wait99"].push_back(r->xray_wait_p99_ms);
        } else if (r->scenario == RunKind::xray_turns) {
          v["turn"].push_back(r->xray_turn_ms);
          v["turn_switch"].push_back(r->xray_turn_switch_ms);
          v["step"].push_back(r->task_mean_ms);
        } else if (r->scenario == RunKind::xray_gaps) {
          v["hold"].push_back(r->xray_hold_us);
          v["hold_bound"].push_back(r->xray_hold_bound);
          v["kept"].push_back(r->xray_idle_kept_share);
        }
      }
      c.slice_ms = median_finite(v["slice"]);
      c.switch_ms = median_finite(v["switch"]);
      c.lost_share = median_finite(v["lost"]);
      c.on_share = median_finite(v["on"]);
      c.wait_ms = median_finite(v["wait"]);
      c.wait_p99_ms = median_finite(v["wait99"]);
      c.turn_ms = median_finite(v["turn"]);
      c.turn_switch_ms = median_finite(v["turn_switch"]);
      c.step_ms = median_finite(v["step"]);
      c.hold_us = median_finite(v["hold"]);
      c.hold_bound = median_finite(v["hold_bound"]);
      c.idle_kept_share = median_finite(v["kept"]);
      cells.push_back(c);
    }
  return cells;
}

nlohmann::json xray_json(const std::vector<XrayCell>& cells) {
  nlohmann::json out = nlohmann::json::object();
  for (const XrayCell& c : cells)
    out[c.mode][std::to_string(c.procs)] = {{"runs", c.runs},
                                            {"failed", c.failed},
                                            {"slice_ms", number(c.slice_ms)},
                                            {"switch_ms", number(c.switch_ms)},
                                            {"lost_share", number(c.lost_share)},
                                            {"on_share", number(c.on_share)},
                                            {"wait_ms", number(c.wait_ms)},
                                            {"wait_p99_ms", number(c.wait_p99_ms)},
                                            {"turn_ms", number(c.turn_ms)},
                                            {"turn_switch_ms", number(c.turn_switch_ms)},
                                            {"step_ms", number(c.step_ms)},
                                            {"hold_us", number(c.hold_us)},
                                            {"hold_bound", number(c.hold_bound)},
                                            {"idle_kept_share", number(c.idle_kept_share)}};
  return out;
}

void print_xray_table(std::ostream& out, const std::vector<XrayCell>& cells) {
  if (cells.empty()) return;
  char line[512];
  std::snprintf(line, sizeof line, "%-12s %4s %10s %10s %8s %12s %12s %12s %14s %10s\n", "mode", "N", "slice ms",
                "switch ms", "lost", "wait ms", "wait p99 ms", "turn ms", "turn cost ms", "hold us");
  out << "\ntime-slice X-ray (busy: N contexts that always have work; wait: one step context beside N-1 busy; turns: N "
         "step contexts; hold: how long a queue may stay empty beside N-1 busy ones and keep the GPU; medians over "
         "repeats)\n"
      << line;
  for (const XrayCell& c : cells) {
    const std::string failed = c.failed ? "  (" + std::to_string(c.failed) + " run(s) failed)" : "";
    const std::string hold = std::isnan(c.hold_us) ? "-" : (c.hold_bound > 0 ? ">=" : "") + fmt_num(c.hold_us, 3);
    std::snprintf(line, sizeof line, "%-12s %4d %10s %10s %8s %12s %12s %12s %14s %10s%s\n", c.mode.c_str(), c.procs,
                  ms(c.slice_ms).c_str(), ms(c.switch_ms).c_str(),
                  std::isnan(c.lost_share) ? "-" : (fmt_fixed(100 * c.lost_share, 1) + "%").c_str(),
                  ms(c.wait_ms).c_str(), ms(c.wait_p99_ms).c_str(), ms(c.turn_ms).c_str(), ms(c.turn_switch_ms).c_str(),
                  hold.c_str(), failed.c_str());
    out << line;
  }
}

std::optional<std::string> param_text(const std::string& params, const std::string& key) {
  for (const std::string& item : split(params, ';'))
    if (item.rfind(key + "=", 0) == 0) return item.substr(key.size() + 1);
  return std::nullopt;
}

double param_number(const std::string& params, const std::string& key) {
  const std::optional<std::string> v = param_text(params, key);
  if (!v) return NAN;
  char* end = nullptr;
  const double x = std::strtod(v->c_str(), &end);
  return end && *end == '\0' && !v->empty() ? x : NAN;
}

std::vector<RegimeCell> aggregate_regimes(const std::vector<SummaryRecord>& rows) {
  // The time-sliced alone run of each configuration and repeat: the basis of every cell.
  std::map<std::pair<std::string, int>, const SummaryRecord*> alone;
  std::vector<std::string> points;
  std::vector<std::string> modes;
  for (const SummaryRecord& r : rows) {
    if (!r.scenario.is_plain_workload()) continue;
    const std::string p = point_of(r);
    if (std::find(points.begin(), points.end(), p) == points.end()) points.push_back(p);
    if (std::find(modes.begin(), modes.end(), r.mode) == modes.end()) modes.push_back(r.mode);
    if (r.mode == kTimesliceMode && r.procs == 1 && r.status == RunStatus::ok) alone[{p, r.repeat}] = &r;
  }
  std::map<std::tuple<std::string, std::string, int>, std::vector<const SummaryRecord*>> by;
  for (const SummaryRecord& r : rows)
    if (r.scenario.is_plain_workload()) by[{point_of(r), r.mode, r.procs}].push_back(&r);
  std::vector<RegimeCell> cells;
  for (const std::string& p : points)
    for (const std::string& mode : modes)
      for (const auto& [key, list] : by) {
        if (std::get<0>(key) != p || std::get<1>(key) != mode) continue;
        RegimeCell c;
        c.point = p;
        c.grid_point = list.front()->scenario == RunKind::regime_point;
        c.workload = list.front()->workload;
        c.params = list.front()->params;
        c.mode = mode;
        c.procs = std::get<2>(key);
        std::vector<double> burst, duty, util, gpm, base, task, loss;
        for (const SummaryRecord* r : list) {
          if (r->status != RunStatus::ok) {
            ++c.failed;
            continue;
          }
          const auto a = alone.find({p, r->repeat});
          if (a == alone.end()) continue;
          ++c.repeats;
          burst.push_back(a->second->burst_ms);
          duty.push_back(a->second->gpu_busy_share);
          util.push_back(a->second->gpu_util_mean);
          gpm.push_back(a->second->gpm_sm_util);
          base.push_back(a->second->task_mean_ms);
          task.push_back(r->task_mean_ms);
          loss.push_back(r->task_mean_ms / a->second->task_mean_ms);
        }
        if (c.repeats == 0 && c.failed == 0) continue;
        c.burst_alone_ms = median_finite(burst);
        c.duty_alone = median_finite(duty);
        c.util_alone = median_finite(util);
        c.gpm_alone = median_finite(gpm);
        c.task_alone_ms = median_finite(base);
        c.task_ms = median_finite(task);
        c.loss = median_finite(loss);
        if (!loss.empty()) {
          c.loss_min = *std::min_element(loss.begin(), loss.end());
          c.loss_max = *std::max_element(loss.begin(), loss.end());
        }
        cells.push_back(c);
      }
  return cells;
}

const RegimeCell* find_regime(const std::vector<RegimeCell>& cells, const std::string& point, const std::string& mode,
                              int procs) {
  for (const RegimeCell& c : cells)
    if (c.point == point && c.mode == mode && c.procs == procs) return &c;
  return nullptr;
}

void print_regime_table(std::ostream& out, const std::vector<RegimeCell>& cells) {
  std::vector<std::string> points;
  std::set<int> ns;
  for (const RegimeCell& c : cells) {
    if (!c.grid_point) continue;
    if (std::find(points.begin(), points.end(), c.point) == points.end()) points.push_back(c.point);
    if (c.procs > 1) ns.insert(c.procs);
  }
  if (points.empty()) return;
  out << "\nregime map (per-task time over one process alone time-sliced, same repeat: the seeds' basis; medians over "
         "repeats; ideal: MPS 1x, time-sliced between 1x and N)\n";
  std::string head = "burst alone ms  duty alone";
  for (int n : ns) head += "   TS N=" + std::to_string(n) + "  MPS N=" + std::to_string(n) + "  TS/MPS";
  out << head << "\n";
  char cell[64];
  for (const std::string& p : points) {
    const RegimeCell* a = find_regime(cells, p, "timeslice", 1);
    std::snprintf(cell, sizeof cell, "%14s  %10s", a ? ms(a->burst_alone_ms).c_str() : "-",
                  a && !std::isnan(a->duty_alone) ? (fmt_fixed(100 * a->duty_alone, 1) + "%").c_str() : "-");
    std::string line = cell;
    for (int n : ns) {
      const RegimeCell* ts = find_regime(cells, p, "timeslice", n);
      const RegimeCell* mps = find_regime(cells, p, "mps", n);
      const double t = ts ? ts->loss : NAN, m = mps ? mps->loss : NAN;
      std::snprintf(cell, sizeof cell, "  %8s  %8s  %6s", ratio(t).c_str(), ratio(m).c_str(),
                    std::isnan(t) || std::isnan(m) ? "-" : fmt_fixed(t / m, 2).c_str());
      line += cell;
    }
    out << line << "   " << p << "\n";
  }
}

}  // namespace bench_mps::harness
