#pragma once
// The scenario words as types: what a sweep runs (--scenario, meta.json's sweep.scenario) and what one
// run is inside it (summary.csv's `scenario` column). Their names are parsed and written here only.
#include "harness/plan/wing.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace bench_mps::harness {

/// --scenario: what a sweep runs.
enum class Scenario {
  sweep,         ///< every workload, mode and N (the default)
  fault,         ///< N-1 victims beside one worker that faults
  interference,  ///< one foreground job beside N-1 background jobs
  xray,          ///< the time-slice X-ray's probes
  regimes,       ///< the X-ray, then a grid of duty-workload points (burst x duty cycle)
};
std::string_view scenario_name(Scenario scenario);
std::optional<Scenario> parse_scenario(std::string_view name);
/// Every scenario's name, in declaration order (--scenario's choices).
std::vector<std::string> scenario_names();
std::ostream& operator<<(std::ostream& out, Scenario scenario);

/// A scenario's plan side, one row each (scenario.cpp): what the command line fills in and checks for it. Its run
/// side is its row in sweep/scenario_hooks; its runs' lengths and probe runs are plan_sweep's (sweep_spec.cpp).
struct ScenarioPlan {
  Scenario scenario = Scenario::sweep;  ///< its name is scenario_name(scenario)
  /// Its workloads where the scenario sets them (xray, regimes); empty: --workloads, or `default_workloads`.
  std::vector<std::string_view> own_workloads;
  std::string_view default_workloads;  ///< --workloads when not given ("" where another option names them)
  std::string_view workloads_from;     ///< the options that name its workloads instead of --workloads ("" none)
  int least_largest_n = 1;             ///< some N in --procs at least this (the fault's victims and faulter)
  int least_every_n = 1;               ///< every N in --procs at least this (a foreground and its background)
  std::string_view procs_why;          ///< why, in the refusal of --procs
  bool processes_only = false;         ///< no in-process modes (streams, threads, green)
  bool runs_exec = true;               ///< exec may run in it
  bool exec_copies = false;            ///< --profile-gpu and --exec-gate apply (a plain sweep's exec copies)
  bool noise_target = false;           ///< --noise-target applies
};
/// The row of `scenario`.
const ScenarioPlan& scenario_plan(Scenario scenario);
/// Where `scenario` runs nothing at some N of `procs` though another N lets the command line pass (the fault
/// scenario at N=1: no victim beside the faulter), what it leaves out: "--scenario fault: N=1 in --procs runs no
/// fault (...): left out"; "" where it runs every N.
std::string procs_left_out_note(Scenario scenario, const std::vector<int>& procs);

/// What one run is inside its scenario.
enum class RunKind {
  plain,            ///< a workload alone or beside copies of itself ("" in summary.csv)
  fault_baseline,   ///< the fault scenario's N-1 victims alone
  fault,            ///< the victims beside the faulting worker
  interference,     ///< the foreground beside N-1 background jobs
  interference_fg,  ///< the foreground alone
  interference_bg,  ///< the N background jobs alone (the run's workload is the background's)
  xray_busy,        ///< the X-ray: N contexts that always have work
  xray_wait,        ///< one context of short synchronising steps beside N-1 busy ones
  xray_turns,       ///< N contexts of short steps (N=1: the alone reference)
  xray_gaps,        ///< one context whose queue empties between tiny kernels (no host wait) beside N-1 busy ones
  regime_point,     ///< a grid point of the regimes scenario ("regime-b<burst>ms-d<duty>")
  exec_warmup,      ///< exec: an untimed warm-up run of one copy ("warmup<k>"; never in summary.csv)
};

/// A run's scenario: its kind, and for a regime grid point the point's tag.
struct RunScenario {
  RunKind kind = RunKind::plain;
  std::string point;  ///< regime_point: "regime-b<burst>ms-d<duty>"; exec_warmup: "warmup<k>"; empty otherwise

  RunScenario() = default;
  RunScenario(RunKind k) : kind(k) {}  // NOLINT: a kind is a scenario
  static RunScenario regime(std::string tag);
  static RunScenario warmup(int k);

  /// The `scenario` cell: "" for plain, the tag of a grid point or a warm-up, else the kind's name.
  std::string name() const;
  bool is_xray() const {
    return kind == RunKind::xray_busy || kind == RunKind::xray_wait || kind == RunKind::xray_turns ||
           kind == RunKind::xray_gaps;
  }
  bool is_interference() const {
    return kind == RunKind::interference || kind == RunKind::interference_fg || kind == RunKind::interference_bg;
  }
  bool is_fault() const { return kind == RunKind::fault || kind == RunKind::fault_baseline; }
  /// A workload on its own terms (plain or a grid point): its N=1 run is its alone reference.
  bool is_plain_workload() const { return kind == RunKind::plain || kind == RunKind::regime_point; }
};
/// Against a kind, only the kind counts (any grid point is a regime_point).
inline bool operator==(const RunScenario& s, RunKind k) { return s.kind == k; }
inline bool operator!=(const RunScenario& s, RunKind k) { return s.kind != k; }
bool operator==(const RunScenario& a, const RunScenario& b);
bool operator!=(const RunScenario& a, const RunScenario& b);
bool operator<(const RunScenario& a, const RunScenario& b);
/// The cell back: "" plain, "regime-..." a grid point, a kind's name; nullopt for any other text.
std::optional<RunScenario> parse_run_scenario(std::string_view cell);
std::ostream& operator<<(std::ostream& out, const RunScenario& scenario);

/// The X-ray's probes, in the order a block runs them.
const std::vector<RunKind>& xray_probes();

}  // namespace bench_mps::harness
