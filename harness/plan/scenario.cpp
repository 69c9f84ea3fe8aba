#include "harness/plan/scenario.hpp"

#include <tuple>
#include <utility>

#include "harness/common/word_table.hpp"

namespace bench_mps::harness {
namespace {

constexpr WordTable<Scenario, 5> kScenarioNames{{
    {Scenario::sweep, "sweep"},
    {Scenario::fault, "fault"},
    {Scenario::interference, "interference"},
    {Scenario::xray, "xray"},
    {Scenario::regimes, "regimes"},
}};

/// Every kind but regime_point, whose cell is its tag.
constexpr WordTable<RunKind, 10> kRunKindNames{{
    {RunKind::plain, ""},
    {RunKind::fault_baseline, "fault_baseline"},
    {RunKind::fault, "fault"},
    {RunKind::interference, "interference"},
    {RunKind::interference_fg, "interference_fg"},
    {RunKind::interference_bg, "interference_bg"},
    {RunKind::xray_busy, "xray_busy"},
    {RunKind::xray_wait, "xray_wait"},
    {RunKind::xray_turns, "xray_turns"},
    {RunKind::xray_gaps, "xray_gaps"},
}};

constexpr std::string_view kRegimePointPrefix = "regime-";

}  // namespace

std::string_view scenario_name(Scenario scenario) { return word_of(kScenarioNames, scenario).value_or("?"); }

std::optional<Scenario> parse_scenario(std::string_view name) { return value_of(kScenarioNames, name); }

std::vector<std::string> scenario_names() {
  std::vector<std::string> out;
  for (const auto& entry : kScenarioNames) out.emplace_back(entry.second);
  return out;
}

std::ostream& operator<<(std::ostream& out, Scenario scenario) { return out << scenario_name(scenario); }

const ScenarioPlan& scenario_plan(Scenario scenario) {
  static const std::vector<ScenarioPlan> plans = [] {
    std::vector<ScenarioPlan> rows(5);
    rows[0].scenario = Scenario::sweep;
    rows[0].default_workloads = "spin,mlp";
    rows[0].exec_copies = rows[0].noise_target = true;
    rows[1].scenario = Scenario::fault;
    rows[1].default_workloads = "spin";
    rows[1].least_largest_n = 2;
    rows[1].procs_why = "N-1 victims and one faulting worker";
    rows[1].processes_only = true;
    rows[1].runs_exec = false;
    rows[2].scenario = Scenario::interference;
    rows[2].workloads_from = "--foreground and --background";
    rows[2].least_every_n = 2;
    rows[2].procs_why = "one foreground, N-1 background";
    rows[3].scenario = Scenario::xray;
    rows[3].own_workloads = {"xray"};
    rows[4].scenario = Scenario::regimes;
    rows[4].own_workloads = {"xray", "duty"};
    return rows;
  }();
  for (const ScenarioPlan& p : plans)
    if (p.scenario == scenario) return p;
  return plans.front();  // every Scenario has its row above (tests/test_cli.cpp)
}

std::string procs_left_out_note(Scenario scenario, const std::vector<int>& procs) {
  const ScenarioPlan& plan = scenario_plan(scenario);
  std::string below;
  for (int n : procs)
    if (n < plan.least_largest_n) below += (below.empty() ? "N=" : ", N=") + std::to_string(n);
  if (below.empty()) return "";
  return "--scenario " + std::string(scenario_name(scenario)) + ": " + below + " in --procs " +
         (below.find(',') == std::string::npos ? "runs" : "run") + " nothing (" + std::string(plan.procs_why) +
         "): left out";
}

RunScenario RunScenario::regime(std::string tag) {
  RunScenario s(RunKind::regime_point);
  s.point = std::move(tag);
  return s;
}

RunScenario RunScenario::warmup(int k) {
  RunScenario s(RunKind::exec_warmup);
  s.point = "warmup" + std::to_string(k);
  return s;
}

std::string RunScenario::name() const {
  if (kind == RunKind::regime_point || kind == RunKind::exec_warmup) return point;
  return std::string(word_of(kRunKindNames, kind).value_or("?"));
}

bool operator==(const RunScenario& a, const RunScenario& b) { return a.kind == b.kind && a.point == b.point; }
bool operator!=(const RunScenario& a, const RunScenario& b) { return !(a == b); }
bool operator<(const RunScenario& a, const RunScenario& b) {
  return std::tie(a.kind, a.point) < std::tie(b.kind, b.point);
}

std::optional<RunScenario> parse_run_scenario(std::string_view cell) {
  if (cell.substr(0, kRegimePointPrefix.size()) == kRegimePointPrefix) return RunScenario::regime(std::string(cell));
  if (const std::optional<RunKind> kind = value_of(kRunKindNames, cell)) return RunScenario(*kind);
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, const RunScenario& scenario) { return out << scenario.name(); }

const std::vector<RunKind>& xray_probes() {
  static const std::vector<RunKind> probes{RunKind::xray_busy, RunKind::xray_wait, RunKind::xray_turns,
                                           RunKind::xray_gaps};
  return probes;
}

}  // namespace bench_mps::harness
