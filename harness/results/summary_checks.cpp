#include "harness/results/summary_checks.hpp"

#include "harness/results/meta.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "harness/plan/device_options.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// meta.json's list at `pointer` as strings ("" for entries that are not), or nothing when absent.
std::set<std::string> listed(const nlohmann::json& meta, const char* pointer, const char* key = nullptr) {
  std::set<std::string> out;
  try {
    const nlohmann::json::json_pointer p(pointer);
    if (!meta.contains(p) || !meta.at(p).is_array()) return out;
    for (const auto& v : meta.at(p)) {
      const nlohmann::json& item = key && v.is_object() && v.contains(key) ? v.at(key) : v;
      out.insert(item.is_string() ? item.get<std::string>() : item.dump());
    }
  } catch (const nlohmann::json::exception&) {  // a parent that is not an object: nothing listed, nothing checked
    out.clear();
  }
  return out;
}

/// Why `r` lies outside the plan meta.json describes; "" when it lies inside.
std::string outside_plan(const SummaryRecord& r, const nlohmann::json& meta) {
  const std::set<std::string> workloads = listed(meta, "/sweep/workloads"), procs = listed(meta, "/sweep/procs"),
                              modes = listed(meta, "/mps/modes", "name");
  const std::string mode = r.mode.rfind(kExternalModePrefix, 0) == 0 ? r.mode.substr(std::string(kExternalModePrefix).size()) : r.mode;
  if (!workloads.empty() && !workloads.count(r.workload)) return "workload " + r.workload;
  if (!modes.empty() && !modes.count(r.mode) && !modes.count(mode)) return "mode " + r.mode;
  if (!procs.empty() && !procs.count(std::to_string(r.procs))) return "N=" + std::to_string(r.procs);
  // Repeats up to --max-repeats where --noise-target may have added some, else up to --repeats.
  const nlohmann::json::json_pointer max_repeats("/sweep/max_repeats"), planned("/sweep/repeats");
  const nlohmann::json::json_pointer repeats =
      meta.contains(max_repeats) && meta.at(max_repeats).is_number_integer() ? max_repeats : planned;
  if (meta.contains(repeats) && meta.at(repeats).is_number_integer() && r.repeat > meta.at(repeats).get<long>())
    return "repeat " + std::to_string(r.repeat) + " of " + std::to_string(meta.at(repeats).get<long>());
  return "";
}

}  // namespace

void check_unique_run_ids(const fs::path& file, const std::vector<SummaryRecord>& rows) {
  std::set<std::string> seen;
  for (const SummaryRecord& r : rows)
    if (!seen.insert(r.run_id).second)
      throw ResultsError(file.string() + ": run " + r.run_id + " appears twice (a damaged or merged file)");
}

void check_rows_match_meta(const fs::path& file, const std::vector<SummaryRecord>& rows, const nlohmann::json& meta) {
  if (meta_scenario(meta) == Scenario::sweep)
    for (const SummaryRecord& r : rows)
      if (const std::string why = outside_plan(r, meta); !why.empty())
        throw ResultsError(file.string() + ": run " + r.run_id + " was never planned (" + why +
                           " is not in meta.json's sweep)");
  if (meta.contains("runs_recorded") && meta["runs_recorded"].is_number_integer()) {
    const long recorded = meta["runs_recorded"].get<long>();
    if (recorded != static_cast<long>(rows.size()))
      throw ResultsError(file.string() + ": " + std::to_string(rows.size()) + " runs, but meta.json says the sweep recorded " +
                         std::to_string(recorded) + " (a file cut short or added to)");
  }
}

}  // namespace bench_mps::harness
