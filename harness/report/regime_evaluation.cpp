#include "harness/report/regime_evaluation.hpp"

#include <algorithm>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/results/regime_rows.hpp"
#include "harness/workers/workload_kind.hpp"

namespace bench_mps::harness {
namespace {

std::string grid_label(const RegimeCell& c) {
  const double burst_us = param_number(c.params, "burst_us"), host_us = param_number(c.params, "host_us");
  return fmt_num(burst_us / 1000, 3) + " ms at " + fmt_num(100 * burst_us / (burst_us + host_us), 3) + "%";
}

std::string placed_label(const RegimeCell& c) {
  std::string label = c.workload;
  if (const std::optional<std::string> profile = param_text(c.params, "profile")) label += " " + *profile;
  if (parse_workload_kind(c.workload) == WorkloadKind::duty) label += " " + grid_label(c);
  return label;
}

}  // namespace

std::vector<Evaluated> evaluate_cells(const std::vector<RegimeCell>& cells, bool grid, const std::string& source,
                                      const SchedulerFacts& sched) {
  std::vector<Evaluated> out;
  for (const RegimeCell& c : cells) {
    if (c.procs < 2 || (c.mode != kTimesliceMode && c.mode != kMpsMode) || grid != c.grid_point) continue;
    const RegimeCell* alone = find_regime(cells, c.point, kTimesliceMode, 1);
    if (!alone || !std::isfinite(alone->burst_alone_ms)) continue;  // a workload that measures no burst (exec)
    Evaluated e;
    e.label = grid ? grid_label(c) : placed_label(c);
    e.kind = grid ? "grid" : "placed";
    e.source = source;
    e.mode = c.mode;
    e.procs = c.procs;
    e.burst_ms = alone->burst_alone_ms;
    e.duty = alone->duty_alone;
    e.point = regime_point(alone->burst_alone_ms, alone->duty_alone, alone->util_alone, alone->gpm_alone);
    e.measured = c.loss;
    e.measured_min = c.loss_min;
    e.measured_max = c.loss_max;
    e.predicted =
        c.mode == kTimesliceMode ? predict_timesliced(e.point, c.procs, sched) : predict_mps(e.point, c.procs);
    out.push_back(e);
  }
  return out;
}

std::vector<Evaluated> seed_cells(const std::vector<SeedRatio>& seeds, const SchedulerFacts& sched) {
  std::vector<Evaluated> out;
  const SeedRatio* ts10 = nullptr;
  for (const SeedRatio& s : seeds)
    if (s.source_id == "p100_qiita" && s.mode == kTimesliceMode && s.procs == 10) ts10 = &s;
  for (const SeedRatio& s : seeds) {
    Evaluated e;
    e.kind = "seed";
    e.source = s.source_id;
    e.mode = s.mode;
    e.procs = s.procs;
    e.measured = s.ratio;
    if (s.source_id == "p100_qiita" && ts10 && sched.usable()) {
      const double step = s.alone * 1000 / kSeed001Steps;
      const double kernel = ts10->value * 1000 / kSeed001Steps / 10 - sched.turn_cost_ms;
      e.label = "seed 001 (" + s.gpu + ")";
      e.burst_ms = kernel;
      e.duty = kernel / step;
      e.point = regime_point(kernel, e.duty, NAN, NAN);
    } else if (s.source_id == "v100_blog") {
      e.label = "seed 000 (" + s.gpu + ")";
      e.duty = 1.0;
    } else {
      continue;
    }
    if (std::isfinite(e.burst_ms))
      e.predicted =
          s.mode == kTimesliceMode ? predict_timesliced(e.point, s.procs, sched) : predict_mps(e.point, s.procs);
    else
      e.predicted = {NAN, NAN, ""};
    out.push_back(e);
  }
  return out;
}

ErrorSummary summarize_errors(const std::vector<Evaluated>& rows, const std::string& kind, const std::string& mode) {
  std::vector<double> errs;
  for (const Evaluated& e : rows)
    if (e.kind == kind && e.mode == mode && std::isfinite(e.error())) errs.push_back(std::abs(e.error()));
  ErrorSummary s;
  s.count = static_cast<int>(errs.size());
  if (errs.empty()) return s;
  s.within = static_cast<int>(std::count_if(errs.begin(), errs.end(), [](double x) { return x <= 0.15; }));
  s.median_abs = median(errs);
  s.max_abs = *std::max_element(errs.begin(), errs.end());
  return s;
}

std::string error_line(const ErrorSummary& s, const std::string& what) {
  if (s.count == 0) return "";
  auto pct = [](double x) { return fmt_fixed(100 * x, x < 0.1 ? 1 : 0) + "%"; };
  return what + ": median error " + pct(s.median_abs) + ", largest " + pct(s.max_abs) + ", " +
         std::to_string(s.within) + " of " + std::to_string(s.count) + " cells within 15%";
}

}  // namespace bench_mps::harness
