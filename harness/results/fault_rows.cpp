#include "harness/results/fault_rows.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace bench_mps::harness {

std::vector<FaultCell> aggregate_fault_runs(const std::vector<SummaryRecord>& rows) {
  std::vector<std::string> modes;
  std::map<std::tuple<std::string, std::string, int>, FaultCell> by_key;  // mode, workload, N
  for (const SummaryRecord& r : rows) {
    if (r.scenario != RunKind::fault) continue;
    if (std::find(modes.begin(), modes.end(), r.mode) == modes.end()) modes.push_back(r.mode);
    FaultCell& c = by_key[{r.mode, r.workload, r.procs}];
    c.workload = r.workload;
    c.mode = r.mode;
    c.procs = r.procs;
    ++c.runs;
    if (r.status != RunStatus::ok) {
      ++c.failed;
      continue;
    }
    c.victims += r.victims;
    c.survived += r.victims_survived;
    if (!std::isnan(r.victim_slowdown)) c.slowdown.push_back(r.victim_slowdown);
    if (!std::isnan(r.victim_post_fault_slowdown)) c.post_fault_slowdown.push_back(r.victim_post_fault_slowdown);
    if (!std::isnan(r.mps_recovery_s)) c.recovery_s.push_back(r.mps_recovery_s);
    const std::string prefix = "victim error: ";
    if (c.victim_error.empty() && r.reason.rfind(prefix, 0) == 0) c.victim_error = r.reason.substr(prefix.size());
    if (c.server_state.empty()) c.server_state = r.mps_server_state;
  }
  std::vector<FaultCell> cells;
  for (const std::string& mode : modes)
    for (const auto& [key, cell] : by_key)
      if (std::get<0>(key) == mode) cells.push_back(cell);
  return cells;
}

}  // namespace bench_mps::harness
