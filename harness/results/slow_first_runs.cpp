#include "harness/results/slow_first_runs.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/workers/workload_config.hpp"

namespace bench_mps::harness {

std::vector<SlowFirstRun> find_slow_first_runs(const std::vector<SummaryRecord>& rows) {
  std::vector<std::string> modes;  // first-seen order
  std::map<std::pair<std::string, int>, std::vector<const SummaryRecord*>> configs;
  for (const SummaryRecord& r : rows) {
    if (!runs_user_program(r.workload) || r.scenario != RunKind::plain || r.status != RunStatus::ok) continue;
    if (std::find(modes.begin(), modes.end(), r.mode) == modes.end()) modes.push_back(r.mode);
    configs[{r.mode, r.procs}].push_back(&r);
  }
  std::vector<SlowFirstRun> slow;
  for (const std::string& mode : modes) {
    for (auto& [key, runs] : configs) {
      if (key.first != mode || runs.size() < 3) continue;
      std::sort(runs.begin(), runs.end(),
                [](const SummaryRecord* a, const SummaryRecord* b) { return a->repeat < b->repeat; });
      std::vector<double> others;
      for (std::size_t i = 1; i < runs.size(); ++i) others.push_back(runs[i]->task_mean_ms * 1e-3);
      const double first_s = runs.front()->task_mean_ms * 1e-3, others_median_s = median(others);
      if (first_s > kSlowFirstRunRatio * others_median_s)
        slow.push_back(
            {mode, key.second, runs.front()->repeat, static_cast<int>(others.size()), first_s, others_median_s});
    }
  }
  return slow;
}

std::string describe_slow_first_run(const SlowFirstRun& s) {
  return "exec " + s.mode + " N=" + std::to_string(s.procs) + ": its first repeat (r" + std::to_string(s.first_repeat) +
         ") took " + fmt_fixed(s.first_s, 2) + " s, " + fmt_fixed(s.first_s / s.others_median_s, 2) +
         "x the median of the other " + std::to_string(s.others) + " (" + fmt_fixed(s.others_median_s, 2) + " s)";
}

nlohmann::json slow_first_run_json(const SlowFirstRun& s) {
  return {{"mode", s.mode},
          {"procs", s.procs},
          {"first_repeat", s.first_repeat},
          {"others", s.others},
          {"first_s", s.first_s},
          {"others_median_s", s.others_median_s},
          {"ratio", s.first_s / s.others_median_s}};
}

}  // namespace bench_mps::harness
