#include "harness/sweep/progress.hpp"

#include <cmath>
#include <iostream>

#include "harness/common/format.hpp"
#include "harness/results/interference_rows.hpp"
#include "harness/results/regime_rows.hpp"
#include "harness/results/summary_table.hpp"
#include "harness/sweep/fault_scenario.hpp"
#include "harness/sweep/scenario_hooks.hpp"

namespace bench_mps::harness {

void plain_progress(std::ostream& out, const RunScenario&, const SummaryRow& s) {
  out << "  per-task " << fmt_fixed(s.task_mean_ms, 3) << " ms";
  if (!std::isnan(s.slowdown_vs_alone)) out << " (" << fmt_fixed(s.slowdown_vs_alone, 2) << "x alone)";
  out << "  " << fmt_fixed(s.throughput_tasks_per_s, 1) << " tasks/s";
  if (!std::isnan(s.burst_ms))
    out << "  burst " << fmt_num(s.burst_ms, 3) << " ms, GPU busy " << fmt_fixed(100 * s.gpu_busy_share, 0) << "%";
}

void print_progress(const RunRecord& r, int done, int total, double seconds) {
  const SummaryRow& s = r.summary;
  std::cerr << "[" << done << "/" << total << "] " << r.spec.run_id() << ": " << s.status;
  if (s.status != RunStatus::ok)
    std::cerr << " (" << s.reason << ")";
  else
    run_hooks(r.spec.scenario).progress(std::cerr, r.spec.scenario, s);
  if (s.status == RunStatus::ok && !s.reason.empty())
    std::cerr << "  note: " << s.reason;  // e.g. an exec metric that read nothing
  std::cerr << "  [" << fmt_fixed(seconds, 1) << " s]\n";
}

namespace {

bool summary_tables(std::ostream& out, ClosingInput& in) {
  if (in.records.empty()) out << "no run finished in this invocation: nothing to tabulate\n";  // not a bare blank
  print_summary_table(out, in.records);
  return false;
}

bool fault_tables(std::ostream& out, ClosingInput& in) {
  print_fault_table(out, in.records);
  return false;
}

bool interference_tables(std::ostream& out, ClosingInput& in) {
  print_interference_table(out, aggregate_interference_runs(in.records));
  return false;
}

/// The X-ray and the regime map, from summary.csv (the runs of an earlier, resumed part too); the X-ray's
/// medians go into meta.json beside the time-slice policy they were measured under.
bool regime_tables(std::ostream& out, ClosingInput& in) {
  std::vector<SummaryRecord> rows;
  try {
    rows = read_summary(in.out / "summary.csv");
  } catch (const std::exception& e) {
    std::cerr << "bench_mps: warning: cannot read back " << (in.out / "summary.csv").string() << ": " << e.what()
              << "\n";
    return false;
  }
  const std::vector<XrayCell> xray = aggregate_xray(rows);
  in.meta.xray = xray_json(xray);
  print_xray_table(out, xray);
  print_regime_table(out, aggregate_regimes(rows));
  return true;
}

struct ClosingRow {
  Scenario scenario;
  ClosingTables tables;
};
constexpr ClosingRow kClosing[] = {
    {Scenario::sweep, summary_tables},
    {Scenario::fault, fault_tables},
    {Scenario::interference, interference_tables},
    {Scenario::xray, regime_tables},
    {Scenario::regimes, regime_tables},
};

}  // namespace

ClosingTables closing_tables(Scenario scenario) {
  for (const ClosingRow& row : kClosing)
    if (row.scenario == scenario) return row.tables;
  return summary_tables;
}

}  // namespace bench_mps::harness
