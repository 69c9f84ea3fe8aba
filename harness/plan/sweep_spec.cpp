#include "harness/plan/sweep_spec.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"

namespace bench_mps::harness {
namespace {

/// Entry i of a per-client list, or its one value for every client. check_client_lists() has made
/// sure a longer list has an entry for every client (at() throws rather than reuse one).
template <class T>
T client_entry(const std::vector<T>& list, int i) {
  return list.size() == 1 ? list.front() : list.at(static_cast<std::size_t>(i));
}

/// "60/20/20": a per-client list as the mode names it.
template <class T>
std::string slash_list(const std::vector<T>& list) {
  std::string out;
  for (std::size_t i = 0; i < list.size(); ++i) out += (i ? "/" : "") + std::to_string(list[i]);
  return out;
}

}  // namespace

int Mode::client_active_thread_pct(int i, int n) const {
  if (kind != ModeKind::mps) return 0;
  if (auto_pct) return std::max(1, 100 / std::max(n, 1));
  if (!client_pcts.empty()) return client_entry(client_pcts, i);
  return active_thread_pct;
}

int Mode::client_priority(int i) const {
  if (prio_first) return i == 0 ? 0 : 1;
  return client_priorities.empty() ? -1 : client_entry(client_priorities, i);
}

std::uint64_t Mode::client_mem_limit(int i) const {
  return client_mem_limits.empty() ? 0 : client_entry(client_mem_limits, i);
}

int Mode::uniform_active_thread_pct(int n) const {
  const int first = client_active_thread_pct(0, n);
  for (int i = 1; i < n; ++i)
    if (client_active_thread_pct(i, n) != first) return -1;
  return first;
}

std::string Mode::check_client_lists(int n) const {
  auto check = [&](std::size_t size, const std::string& list, const std::string& what) {
    if (size <= 1 || size == static_cast<std::size_t>(n)) return std::string();
    return "--modes '" + name + "': " + std::to_string(size) + " " + what + " (" + list +
           ") for N=" + std::to_string(n) + " clients";
  };
  std::string problem = check(client_pcts.size(), slash_list(client_pcts), "active thread percentages");
  if (problem.empty())
    problem = check(client_priorities.size(), slash_list(client_priorities), "client priorities (+prio=)");
  if (problem.empty()) {
    const auto at = name.find("+mem=");
    problem =
        check(client_mem_limits.size(), at == std::string::npos ? "" : name.substr(at + 5), "memory limits (+mem=)");
  }
  return problem;
}

const WorkloadConfig& run_params(const SweepSpec& spec, const RunSpec& run) {
  return run.config ? *run.config : spec.params;
}

std::string regime_point_tag(double burst_ms, double duty_pct) {
  return "regime-b" + fmt_num(burst_ms, 4) + "ms-d" + fmt_num(duty_pct, 4);
}

WorkloadConfig regime_point_params(const WorkloadConfig& base, double burst_ms, double duty_pct) {
  WorkloadConfig c = base;
  c.duty.burst_us = burst_ms * 1000.0;
  c.duty_pct = duty_pct;
  resolve_duty_host_us(c);
  const double step_ms = (c.duty.burst_us + c.duty.host_us) / 1000.0;
  c.duty.steps_per_task = std::max(1, static_cast<int>(std::lround(20.0 / step_ms)));
  return c;
}

int warmup_tasks(const SweepSpec& spec, const std::string& workload) {
  if (runs_user_program(workload)) return 0;  // runs once, no in-process warm-up (harness/plan/exec_options.hpp)
  return spec.warmup >= 0 ? spec.warmup : default_warmup_tasks(workload, spec.params);
}

RunLength run_length(const SweepSpec& spec, const std::string& workload) {
  const std::optional<WorkloadKind> kind = parse_workload_kind(workload);
  // Runs once per worker (exec), or one logging kernel per round (the X-ray's busy probes): never longer.
  if (runs_user_program(workload) || kind == WorkloadKind::xray) {
    const DefaultLength once = default_run_length(workload, spec.params);
    return {once.tasks, once.duration_s};
  }
  if (spec.duration_s > 0) return {0, spec.duration_s};
  if (spec.tasks > 0) return {spec.tasks, 0};
  // Victims of the fault scenario run long enough to be measured well after the fault.
  if (spec.scenario == Scenario::fault) return {kind == WorkloadKind::mlp ? 500 : 100, 0};
  // The interference scenario's jobs run side by side for one time, long enough for a tail latency.
  if (spec.scenario == Scenario::interference) return {0, 3.0};
  const DefaultLength d = default_run_length(workload, spec.params);  // the workload's row (workload_config)
  return {d.tasks, d.duration_s};
}

int rounds_per_set(const SweepSpec& spec, const std::string& workload) {
  if (spec.scenario == Scenario::fault || !workload_allows_rounds(workload, spec.params)) return 1;
  if (spec.scenario == Scenario::interference && !workload_allows_rounds(spec.foreground, spec.params)) return 1;
  return std::min(spec.repeats, spec.rounds > 0 ? spec.rounds : (spec.repeats + 1) / 2);
}

std::string RunSpec::configuration_id() const {
  std::string mode_part = mode.name;
  std::replace(mode_part.begin(), mode_part.end(), '/', '_');
  return mode_part + "-" + workload + "-n" + std::to_string(procs) +
         (scenario == RunKind::plain ? "" : "-" + scenario.name());
}

std::string RunSpec::run_id() const { return "r" + std::to_string(repeat) + "-" + configuration_id(); }

std::string configuration_of_run_id(const std::string& run_id) {
  const auto dash = run_id.find('-');
  return dash == std::string::npos ? run_id : run_id.substr(dash + 1);
}

std::vector<RunSpec> ModeBlock::runs() const {
  std::vector<RunSpec> out;
  for (const WorkerSetPlan& s : sets) out.insert(out.end(), s.runs.begin(), s.runs.end());
  return out;
}

bool noise_target_applies(const SweepSpec& spec) {
  return scenario_plan(spec.scenario).noise_target && spec.noise_target_pct > 0;
}

bool sweep_needs_gpu(const SweepSpec& spec) {
  return !spec.cpu_stand_in && std::any_of(spec.workloads.begin(), spec.workloads.end(),
                                           [](const std::string& w) { return workload_needs_gpu(w); });
}

namespace {

/// A run of `workload` under `mode` at N = `n`, its length the workload's (repeat and index set later).
RunSpec planned_run(const SweepSpec& spec, const std::string& workload, const Mode& mode, int n,
                    const RunScenario& scenario) {
  RunSpec run;
  run.workload = workload;
  run.params = workload_params_string(workload, spec.params);
  run.mode = mode;
  run.procs = n;
  run.scenario = scenario;
  const RunLength length = run_length(spec, workload);
  run.tasks = length.tasks;
  run.duration_s = length.duration_s;
  return run;
}

/// The N a sweep runs at, ascending; the X-ray and the regime grid always measure N=1 (the alone
/// reference), and the regimes scenario's X-ray also N=2 (the smallest N that shares).
struct PlannedProcs {
  std::vector<int> procs, xray_procs;
};
PlannedProcs planned_procs(const SweepSpec& spec) {
  PlannedProcs p{spec.procs, spec.procs};
  std::sort(p.procs.begin(), p.procs.end());
  p.xray_procs = p.procs;
  if (spec.scenario == Scenario::xray || spec.scenario == Scenario::regimes) {
    for (int n : spec.scenario == Scenario::regimes ? std::vector<int>{1, 2} : std::vector<int>{1})
      if (std::find(p.xray_procs.begin(), p.xray_procs.end(), n) == p.xray_procs.end()) p.xray_procs.push_back(n);
    if (std::find(p.procs.begin(), p.procs.end(), 1) == p.procs.end()) p.procs.push_back(1);
    std::sort(p.xray_procs.begin(), p.xray_procs.end());
    std::sort(p.procs.begin(), p.procs.end());
  }
  return p;
}

/// The X-ray's probes at each N (one context: only its steps alone), then (regimes) every grid point at each N.
void xray_and_grid_templates(const SweepSpec& spec, const Mode& mode, const PlannedProcs& p,
                             std::vector<RunSpec>& out) {
  for (int n : p.xray_procs)
    for (RunKind probe : xray_probes()) {
      if (n == 1 && probe != RunKind::xray_turns) continue;
      RunSpec run = planned_run(spec, "xray", mode, n, probe);
      run.params += ";probe=" + run.scenario.name();
      if (probe == RunKind::xray_turns) run.tasks = kXrayTurnSteps;  // step contexts: back-to-back steps
      out.push_back(run);
    }
  if (spec.scenario != Scenario::regimes) return;
  for (double burst : spec.regime_bursts_ms)
    for (double duty : spec.regime_duties_pct) {
      auto config = std::make_shared<const WorkloadConfig>(regime_point_params(spec.params, burst, duty));
      const double step_s = (config->duty.burst_us + config->duty.host_us) * 1e-6;
      for (int n : p.procs) {
        RunSpec run = planned_run(spec, "duty", mode, n, RunScenario::regime(regime_point_tag(burst, duty)));
        run.config = config;
        run.params = workload_params_string("duty", *config);
        if (spec.duration_s <= 0 && spec.tasks <= 0) {  // >= 0.5 s and >= 5 steps alone
          run.tasks = 0;
          run.duration_s = std::max(0.5, 5 * step_s);
        }
        out.push_back(run);
      }
    }
}

/// The foreground alone, then for every N the N-1 background jobs alone and both side by side.
void interference_templates(const SweepSpec& spec, const Mode& mode, const PlannedProcs& p, std::vector<RunSpec>& out) {
  out.push_back(planned_run(spec, spec.foreground, mode, 1, RunKind::interference_fg));
  for (int n : p.procs) {
    out.push_back(planned_run(spec, spec.background, mode, n - 1, RunKind::interference_bg));
    RunSpec mix = planned_run(spec, spec.foreground, mode, n, RunKind::interference);
    mix.background = spec.background;
    mix.params += ";background=" + spec.background + "(" + workload_params_string(spec.background, spec.params) + ")";
    out.push_back(mix);
  }
}

/// Every workload at every N; in the fault scenario (N >= 2) the victims alone, then beside a faulter.
void workload_templates(const SweepSpec& spec, const Mode& mode, const PlannedProcs& p, std::vector<RunSpec>& out) {
  for (const std::string& workload : spec.workloads)
    for (int n : p.procs) {
      if (spec.scenario != Scenario::fault) {
        out.push_back(planned_run(spec, workload, mode, n, RunKind::plain));
        continue;
      }
      if (n < 2) continue;  // a fault scenario needs a victim and a faulter
      out.push_back(planned_run(spec, workload, mode, n - 1, RunKind::fault_baseline));
      RunSpec fault = planned_run(spec, workload, mode, n, RunKind::fault);
      fault.params += ";fault_delay_ms=" + fmt_num(spec.params.fault_delay_ms);
      out.push_back(fault);
    }
}

/// One set per configuration and group when its workload shares processes between repeats, else one
/// set per repeat; each set's runs get their repeats `first`..`last` and indices in plan order.
void add_sets(const SweepSpec& spec, ModeBlock& block, int first, int last, const std::vector<RunSpec>& templates,
              int& index) {
  for (const RunSpec& t : templates) {
    const bool shared =
        rounds_per_set(spec, t.workload) > 1 && (t.background.empty() || rounds_per_set(spec, t.background) > 1);
    WorkerSetPlan set;
    for (int r = first; r <= last; ++r) {
      RunSpec run = t;
      run.repeat = r;
      run.index = index++;
      set.runs.push_back(run);
      if (!shared) {
        block.sets.push_back(set);
        set.runs.clear();
      }
    }
    if (!set.runs.empty()) block.sets.push_back(set);
  }
}

/// Where extra alone run `k` (from 0) of a mode goes among its blocks `mine` (the mode's blocks in plan
/// order): the first after the last block's last set, the next after the middle N of the first block's
/// ladder, then of the next block's (wrapping round). {block, set index to insert before}.
std::pair<std::size_t, std::size_t> alone_position(const std::vector<std::size_t>& mine,
                                                   const std::vector<ModeBlock>& blocks, const std::string& workload,
                                                   int k) {
  if (k == 0) {
    const std::size_t last = mine.back();
    std::size_t at = 0;  // after the workload's last set in the block
    for (std::size_t i = 0; i < blocks[last].sets.size(); ++i)
      if (blocks[last].sets[i].runs.front().workload == workload) at = i + 1;
    return {last, at};
  }
  const std::size_t b = mine[static_cast<std::size_t>(k - 1) % mine.size()];
  std::vector<std::size_t> ladder;  // the workload's sets in the block
  for (std::size_t i = 0; i < blocks[b].sets.size(); ++i)
    if (blocks[b].sets[i].runs.front().workload == workload) ladder.push_back(i);
  return {b, ladder[ladder.size() / 2]};
}

/// The extra alone runs of extra_alone_runs(), placed by alone_position and numbered after the repeats in
/// the order they run; then every run's index is its place in the plan again.
void add_alone_runs(const SweepSpec& spec, std::vector<ModeBlock>& blocks) {
  bool added = false;
  for (const Mode& mode : spec.modes) {
    std::vector<std::size_t> mine;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (blocks[b].mode.name == mode.name) mine.push_back(b);
    if (mine.empty()) continue;
    for (const std::string& workload : spec.workloads) {
      const int extra = extra_alone_runs(spec, workload);
      for (int k = 0; k < extra; ++k) {
        const auto [b, at] = alone_position(mine, blocks, workload, k);
        RunSpec run = planned_run(spec, workload, mode, 1, RunKind::plain);
        WorkerSetPlan set;
        set.runs.push_back(run);
        blocks[b].sets.insert(blocks[b].sets.begin() + static_cast<std::ptrdiff_t>(at), set);
        added = true;
      }
    }
  }
  if (!added) return;
  std::map<std::string, int> next_repeat;  // (mode, workload): the next extra's repeat, in plan order
  int index = 0;
  for (ModeBlock& block : blocks)
    for (WorkerSetPlan& set : block.sets)
      for (RunSpec& run : set.runs) {
        if (run.repeat == 0) {
          int& r = next_repeat.try_emplace(run.mode.name + "|" + run.workload, spec.repeats).first->second;
          run.repeat = ++r;
        }
        run.index = index++;
      }
}

}  // namespace

int extra_alone_runs(const SweepSpec& spec, const std::string& workload) {
  if (spec.scenario != Scenario::sweep || !runs_user_program(workload) || rounds_per_set(spec, workload) > 1) return 0;
  const bool alone = std::find(spec.procs.begin(), spec.procs.end(), 1) != spec.procs.end();
  const bool shared = std::any_of(spec.procs.begin(), spec.procs.end(), [](int n) { return n >= 2; });
  return alone && shared ? std::max(0, spec.exec_alone_runs - spec.repeats) : 0;
}

std::vector<ModeBlock> plan_sweep(const SweepSpec& spec) {
  // Group size: the largest number of rounds any workload of the sweep runs per set.
  int group = 1;
  const std::vector<std::string> workloads =
      spec.scenario == Scenario::interference ? std::vector<std::string>{spec.foreground} : spec.workloads;
  for (const std::string& w : workloads) group = std::max(group, rounds_per_set(spec, w));
  const PlannedProcs procs = planned_procs(spec);
  std::vector<ModeBlock> blocks;
  int index = 0;
  for (int first = 1, g = 1; first <= spec.repeats; first += group, ++g) {
    const int last = std::min(spec.repeats, first + group - 1);
    for (const Mode& mode : spec.modes) {
      std::vector<RunSpec> templates;
      if (spec.scenario == Scenario::xray || spec.scenario == Scenario::regimes) {
        xray_and_grid_templates(spec, mode, procs, templates);
      } else if (spec.scenario == Scenario::interference) {
        interference_templates(spec, mode, procs, templates);
      } else {
        workload_templates(spec, mode, procs, templates);
      }
      ModeBlock block{mode, g, {}};
      add_sets(spec, block, first, last, templates, index);
      blocks.push_back(block);
    }
  }
  add_alone_runs(spec, blocks);
  return blocks;
}

void check_client_lists(const SweepSpec& spec) {
  for (const ModeBlock& block : plan_sweep(spec))
    for (const RunSpec& run : block.runs()) {
      if (!run.mode.mps) continue;
      const std::string problem = run.mode.check_client_lists(run.procs);
      if (problem.empty()) continue;
      throw UsageError(problem + (run.scenario == RunKind::plain ? "" : " (its " + run.scenario.name() + " runs)") +
                       "; a per-client list needs one entry per client at every N it runs at, or one value for all");
    }
}

}  // namespace bench_mps::harness
