#include "harness/sweep/noise_target.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/worker_sets.hpp"
#include "harness/workers/workload_config.hpp"

namespace bench_mps::harness {
namespace {

std::string config_name(const RunSpec& r) { return r.workload + " " + r.mode.name + " N=" + std::to_string(r.procs); }

}  // namespace

std::vector<ConfigNoise> config_noise(const std::vector<SummaryRecord>& rows, const std::vector<ModeBlock>& plan,
                                      double target) {
  std::map<std::string, RunSpec> planned;  // config_key -> its first planned run
  for (const ModeBlock& block : plan)
    for (const RunSpec& run : block.runs()) planned.emplace(run_config(run).config_key(), run);
  std::map<std::string, std::size_t> at;
  std::vector<ConfigNoise> out;
  std::vector<std::vector<const SummaryRecord*>> ok_runs;
  for (const SummaryRecord& r : rows) {
    if (r.scenario != RunKind::plain || runs_user_program(r.workload)) continue;
    const std::string key = r.config_key();
    auto it = at.find(key);
    if (it == at.end()) {
      const auto spec = planned.find(key);
      if (spec == planned.end()) continue;  // not this sweep's (resume has checked it is the same sweep)
      it = at.emplace(key, out.size()).first;
      out.push_back({spec->second, 0, 0, NAN, false, 0});
      ok_runs.emplace_back();
    }
    ConfigNoise& c = out[it->second];
    c.last_repeat = std::max(c.last_repeat, r.repeat);
    if (r.status != RunStatus::ok || !std::isfinite(r.throughput_tasks_per_s)) continue;
    ++c.repeats;
    ok_runs[it->second].push_back(&r);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].noise = configuration_noise(ok_runs[i], [](const SummaryRecord& r) { return r.throughput_tasks_per_s; });
    out[i].met = std::isfinite(out[i].noise) && out[i].noise <= target;
    double startup = 0;
    std::vector<double> rounds;
    for (const SummaryRecord* r : ok_runs[i]) {
      if (std::isfinite(r->startup_s)) startup = std::max(startup, r->startup_s);
      if (std::isfinite(r->makespan_s)) rounds.push_back(r->makespan_s);
    }
    out[i].set_seconds = startup + (rounds.empty() ? 0.0 : median(rounds));
  }
  return out;
}

std::vector<ModeBlock> plan_extra_repeats(const std::vector<ConfigNoise>& noise, const SweepSpec& spec, int& next_index,
                                          double seconds_left, bool* left_out_for_time) {
  std::vector<ModeBlock> blocks;
  double planned_s = 0;
  for (const Mode& mode : spec.modes) {
    ModeBlock block{mode, 0, {}};
    for (const ConfigNoise& c : noise) {
      if (c.met || c.config.mode.name != mode.name || c.repeats < 2 || c.last_repeat >= spec.max_repeats) continue;
      const double cost = c.set_seconds + (block.sets.empty() && mode.mps ? kMpsBlockSeconds : 0.0);
      if (planned_s + cost > seconds_left) {
        if (left_out_for_time) *left_out_for_time = true;
        continue;
      }
      planned_s += cost;
      RunSpec run = c.config;
      run.repeat = c.last_repeat + 1;
      run.index = next_index++;
      block.sets.push_back(WorkerSetPlan{{run}});
    }
    if (!block.sets.empty()) {
      block.group = block.sets.front().runs.front().repeat;
      blocks.push_back(block);
    }
  }
  return blocks;
}

double planned_seconds(const std::vector<ModeBlock>& blocks, const std::vector<ConfigNoise>& noise) {
  double s = 0;
  for (const ModeBlock& b : blocks) {
    if (b.mode.mps && !b.sets.empty()) s += kMpsBlockSeconds;
    for (const WorkerSetPlan& set : b.sets)
      for (const RunSpec& run : set.runs)
        for (const ConfigNoise& c : noise)
          if (run_config(c.config).config_key() == run_config(run).config_key()) s += c.set_seconds;
  }
  return s;
}

nlohmann::json noise_json(const std::vector<ConfigNoise>& noise, const SweepSpec& spec, int added_runs, double added_s,
                          bool time_capped) {
  nlohmann::json configs = nlohmann::json::array();
  for (const ConfigNoise& c : noise)
    configs.push_back({{"workload", c.config.workload},
                       {"params", c.config.params},
                       {"mode", c.config.mode.name},
                       {"procs", c.config.procs},
                       {"repeats_ok", c.repeats},
                       {"noise", std::isfinite(c.noise) ? nlohmann::json(c.noise) : nlohmann::json()},
                       {"target_met", c.met}});
  return {{"target_pct", spec.noise_target_pct},
          {"max_repeats", spec.max_repeats},
          {"time_cap_s", spec.noise_time_cap_s},
          {"added_runs", added_runs},
          {"added_s", added_s},
          {"time_capped", time_capped},
          {"statistic",
           "width of the ~94% Student-t confidence interval of the mean of the worker sets' means of "
           "throughput_tasks_per_s, over that mean (harness/results/worker_sets; compare's noise)"},
          {"configs", configs}};
}

std::string noise_misses(const std::vector<ConfigNoise>& noise, const SweepSpec& spec, bool time_capped) {
  std::string out;
  for (const ConfigNoise& c : noise) {
    if (c.met) continue;
    const std::string why = !std::isfinite(c.noise) ? "fewer than two ok repeats"
                            : c.last_repeat >= spec.max_repeats
                                ? "--max-repeats " + std::to_string(spec.max_repeats) + " reached"
                            : time_capped ? "--noise-time-cap reached"
                                          : "stopped";
    out += "noise: " + config_name(c.config) + " " +
           (std::isfinite(c.noise) ? fmt_fixed(100 * c.noise, 2) + "%" : std::string("unknown")) + " > " +
           fmt_num(spec.noise_target_pct) + "% after " + std::to_string(c.repeats) + " ok repeats (" + why + ")\n";
  }
  return out;
}

}  // namespace bench_mps::harness
