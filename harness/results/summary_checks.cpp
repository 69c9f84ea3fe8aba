#include "harness/results/summary_checks.hpp"

#include "harness/results/sweep_meta.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "harness/common/format.hpp"
#include "harness/plan/device_options.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The words of a list meta.json may hold (none where it does not).
template <class T, class Word>
std::set<std::string> listed(const std::optional<std::vector<T>>& list, Word word) {
  std::set<std::string> out;
  if (list)
    for (const T& v : *list) out.insert(word(v));
  return out;
}

/// Why `r` lies outside the plan meta.json describes; "" when it lies inside.
std::string outside_plan(const SummaryRecord& r, const SweepMeta& meta) {
  const SweepSection none;
  const SweepSection& sweep = meta.sweep ? *meta.sweep : none;
  const std::set<std::string> workloads = listed(sweep.workloads, [](const std::string&w) { return w; }),
                              procs = listed(sweep.procs, [](long n) { return std::to_string(n); }),
                              modes = listed(meta.mps ? meta.mps->modes : std::nullopt,
                                             [](const ModeMeta&m) { return m.name.value_or(""); });
  const std::string mode =
      r.mode.rfind(kExternalModePrefix, 0) == 0 ? r.mode.substr(std::string(kExternalModePrefix).size()) : r.mode;
  if (!workloads.empty() && !workloads.count(r.workload)) return "workload " + r.workload;
  if (!modes.empty() && !modes.count(r.mode) && !modes.count(mode)) return "mode " + r.mode;
  if (!procs.empty() && !procs.count(std::to_string(r.procs))) return "N=" + std::to_string(r.procs);
  // Repeats up to --max-repeats where --noise-target may have added some, else up to --repeats.
  const std::optional<long> repeats = sweep.max_repeats ? sweep.max_repeats : sweep.repeats;
  if (repeats && r.repeat > *repeats) return "repeat " + std::to_string(r.repeat) + " of " + std::to_string(*repeats);
  return "";
}

}  // namespace

void check_unique_run_ids(const fs::path& file, const std::vector<SummaryRecord>& rows) {
  std::set<std::string> seen;
  for (const SummaryRecord& r : rows)
    if (!seen.insert(r.run_id).second)
      throw ResultsError(file.string() + ": run " + r.run_id + " appears twice (a damaged or merged file)");
}

std::string tasks_short_of_summary(const std::vector<SummaryRecord>& rows, const std::vector<TaskSample>& tasks) {
  std::map<std::string, long> counted;
  for (const TaskSample& t : tasks) ++counted[t.run_id];
  int ok = 0, off = 0, over = 0;
  std::string first;
  for (const SummaryRecord& r : rows) {
    if (r.status != RunStatus::ok) continue;
    ++ok;
    const auto it = counted.find(r.run_id);
    const long n = it == counted.end() ? 0 : it->second;
    if (n == r.tasks_total) continue;
    over += n > r.tasks_total;
    if (off++ == 0) first = "run " + r.run_id + ": " + std::to_string(n) + " of " + std::to_string(r.tasks_total);
  }
  if (off == 0) return "";
  return "tasks.csv holds another number of tasks than summary.csv's tasks_total for " + std::to_string(off) + " of " +
         std::to_string(ok) + " ok runs (the first, " + first +
         (over == off ? "): rows repeated or added (a merged or edited file)"
          : over == 0 ? "): a file cut short or trimmed"
                      : "): rows missing for some runs and added for others (an edited file)") +
         "; the per-task figures and percentiles drawn from it use the tasks it holds";
}

void check_ok_runs_measured(const fs::path& file, const std::vector<SummaryRecord>& rows) {
  for (const SummaryRecord& r : rows) {
    if (r.status != RunStatus::ok) continue;
    for (const auto& [name, value, scale] : {std::tuple<const char*, double, double>{"makespan_s", r.makespan_s, 1.0},
                                             {"task_mean_ms", r.task_mean_ms, 1e-3},
                                             {"task_p50_ms", r.task_p50_ms, 1e-3},
                                             {"task_p99_ms", r.task_p99_ms, 1e-3}})
      if (!std::isnan(value) && !(value >= 0 && value * scale <= kLongestRunS))
        throw ResultsError(file.string() + ": run " + r.run_id + " is ok but its " + name + " is " + fmt_num(value) +
                           " (no run lasts longer than " + fmt_num(kLongestRunS) + " s): the file is damaged");
    if (!std::isnan(r.fg_overlap) && !(r.fg_overlap >= 0 && r.fg_overlap <= 1))
      throw ResultsError(file.string() + ": run " + r.run_id + " has an fg_overlap of " + fmt_num(r.fg_overlap) +
                         " (a share of the foreground's span: 0 to 1): the file is damaged");
    const double t = r.throughput_tasks_per_s;
    if (std::isfinite(t) && t > 0 && t <= kMostTasksPerSecond) continue;
    throw ResultsError(file.string() + ": run " + r.run_id + " is ok but its throughput_tasks_per_s is " +
                       (std::isnan(t) ? std::string("missing") : fmt_num(t)) +
                       (t > kMostTasksPerSecond ? " (beyond any rate a run measures)" : "") +
                       ": an ok run did tasks at a measured rate; the file is damaged");
  }
}

namespace {

/// Whether a run of `kind` is one a sweep of `scenario` records.
bool kind_of_scenario(const RunScenario& run, Scenario scenario) {
  switch (scenario) {
    case Scenario::sweep:
      return run == RunKind::plain;
    case Scenario::fault:
      return run.is_fault();
    case Scenario::interference:
      return run.is_interference();
    case Scenario::xray:
      return run.is_xray();
    case Scenario::regimes:
      return run.is_xray() || run == RunKind::regime_point;
  }
  return false;
}

}  // namespace

void check_rows_match_meta(const fs::path& file, const std::vector<SummaryRecord>& rows, const SweepMeta& meta) {
  const std::optional<Scenario> scenario = meta_scenario(meta);
  if (!scenario)
    throw ResultsError(file.parent_path().string() + "/meta.json: sweep.scenario '" +
                       meta.sweep->scenario.value_or("?").substr(0, 40) + "' is no scenario this bench_mps knows");
  for (const SummaryRecord& r : rows)
    if (!kind_of_scenario(r.scenario, *scenario))
      throw ResultsError(file.string() + ": run " + r.run_id + " is a '" +
                         (r.scenario == RunKind::plain ? std::string("plain") : r.scenario.name()) +
                         "' run, which a sweep of scenario '" + std::string(scenario_name(*scenario)) +
                         "' (meta.json's sweep.scenario) never records");
  if (scenario == Scenario::sweep)
    for (const SummaryRecord& r : rows)
      if (const std::string why = outside_plan(r, meta); !why.empty())
        throw ResultsError(file.string() + ": run " + r.run_id + " was never planned (" + why +
                           " is not in meta.json's sweep)");
  if (meta.runs_recorded) {
    const long recorded = *meta.runs_recorded;
    if (recorded != static_cast<long>(rows.size()))
      throw ResultsError(file.string() + ": " + std::to_string(rows.size()) +
                         " runs, but meta.json says the sweep recorded " + std::to_string(recorded) +
                         " (a file cut short or added to)");
  }
}

}  // namespace bench_mps::harness
