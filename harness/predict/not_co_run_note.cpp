#include "harness/predict/not_co_run_note.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"

namespace bench_mps::harness {

double copy_cpu_share(const WorkerRecord& row) {
  if (row.status != RunStatus::ok) return NAN;
  const double user = row.fact("cpu_user_s"), sys = row.fact("cpu_system_s"), completion = row.fact("completion_s");
  return std::isfinite(user) && std::isfinite(sys) && completion > 0 ? (user + sys) / completion : NAN;
}

double steady_parting(const std::vector<double>& steady_s) {
  std::vector<double> steady;
  for (const double s : steady_s)
    if (std::isfinite(s) && s > 0) steady.push_back(s);
  if (steady.size() < 2) return NAN;
  return *std::max_element(steady.begin(), steady.end()) / *std::min_element(steady.begin(), steady.end());
}

RunParting run_parting(const std::vector<double>& steady_s, const std::vector<const WorkerRecord*>& copies) {
  std::vector<double> share;
  for (const WorkerRecord* w : copies)
    if (const double x = copy_cpu_share(*w); std::isfinite(x)) share.push_back(x);
  return {steady_parting(steady_s), share.empty() ? NAN : median(share)};
}

NotCoRunNote not_co_run_note(const std::vector<MeasuredUnit>& units, const std::vector<WorkerRecord>& rows) {
  std::map<std::pair<std::string, int>, const WorkerRecord*> row_of;
  for (const WorkerRecord& r : rows) row_of[{r.run_id, r.worker}] = &r;
  std::map<std::string, std::vector<const MeasuredUnit*>> runs;
  for (const MeasuredUnit& u : units)
    if (u.procs >= 2 && u.basis == UnitBasis::not_co_run) runs[u.run_id].push_back(&u);
  NotCoRunNote note;
  note.runs = static_cast<int>(runs.size());
  for (const auto& [run_id, copies] : runs) {
    std::vector<double> steady;
    std::vector<const WorkerRecord*> copy_rows;
    for (const MeasuredUnit* u : copies) {
      steady.push_back(u->steady_s);
      if (const auto r = row_of.find({run_id, u->worker}); r != row_of.end()) copy_rows.push_back(r->second);
    }
    const RunParting run = run_parting(steady, copy_rows);
    if (std::isfinite(run.parting)) note.parting.push_back(run.parting);
    if (std::isfinite(run.cpu_share)) note.cpu_share.push_back(run.cpu_share);
  }
  return note;
}

namespace {

/// "1.20x-2.00x", or "1.30x" where the least and the largest print alike (one run, say).
std::string range_words(const std::vector<double>& values, const std::string& suffix) {
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const std::string low = fmt_fixed(*lo, 2) + suffix, high = fmt_fixed(*hi, 2) + suffix;
  return low == high ? low : low + "-" + high;
}

}  // namespace

std::string not_co_run_line(const NotCoRunNote& note, const std::string& noun) {
  if (note.runs == 0) return "";
  std::string line = "not co-run (N >= 2): " + std::to_string(note.runs) + " " + noun + (note.runs == 1 ? "" : "s");
  if (!note.parting.empty()) {
    const std::string range = range_words(note.parting, "x");
    line += "; their copies' steady parts lay " + range + " apart" +
            (range.find('-') == std::string::npos ? "" : ", median " + fmt_fixed(median(note.parting), 2) + "x") +
            " (longest over shortest)";
  }
  if (note.cpu_share.empty())
    return line + "; their copies' CPU use is not in runs.csv (an exec sweep of before 2026-12-04)";
  line += "; the median copy of each kept its CPU busy for " + range_words(note.cpu_share, "") +
          " of its run (cpu_user_s + cpu_system_s over completion_s; spinning on the GPU counts as busy";
  if (note.cpu_share.size() < static_cast<std::size_t>(note.runs))
    line += "; " + std::to_string(note.runs - static_cast<int>(note.cpu_share.size())) + " without those facts";
  line += ")";
  const long waited =
      std::count_if(note.cpu_share.begin(), note.cpu_share.end(), [](double s) { return s < kCpuBoundShare; });
  if (waited == 0)
    return line + ": copies bound by their cores part as the cores' speeds do, which the host sets on a VM " +
           "(docs/SWEEP.md)";
  return line + ": in " + std::to_string(waited) + " of them the median copy kept it busy under " +
         fmt_fixed(kCpuBoundShare, 1) + " of its run, and waited (for the GPU, data or a clock) for the rest";
}

}  // namespace bench_mps::harness
