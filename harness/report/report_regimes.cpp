#include "harness/report/report_regimes.hpp"
#include "harness/common/json_text.hpp"

#include <algorithm>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/report/report_regimes_parts.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/summary_checks.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
using json = nlohmann::json;

bool is_regimes_folder(const SweepMeta& meta) {
  if (!meta.sweep) return false;
  const std::optional<Scenario> s = meta_scenario(meta);
  return s == Scenario::xray || s == Scenario::regimes;
}

Places placed_folders(const fs::path& dir, const std::vector<std::string>& add,
                      const std::vector<std::string>& forget) {
  Places out;
  const fs::path file = dir / "places.json";
  std::error_code ec;
  if (fs::exists(file, ec)) {
    json j;
    try {
      j = json::parse(read_input_file(file));
    } catch (const json::exception& e) {
      throw ResultsError(file.string() + ": " + json_value_problem(e));
    }
    if (!j.is_object() || !j.contains("folders") || !j["folders"].is_array())
      throw ResultsError(file.string() + ": expected {\"folders\": [...]}");
    for (const json& f : j["folders"]) {
      if (!f.is_string()) throw ResultsError(file.string() + ": a folder that is not a string");
      if (f.get<std::string>().empty()) throw ResultsError(file.string() + ": an empty folder name");
      if (std::find(out.remembered.begin(), out.remembered.end(), fs::path(f.get<std::string>())) !=
          out.remembered.end())
        throw ResultsError(file.string() + ": lists " + f.get<std::string>().substr(0, 80) + " twice");
      out.remembered.push_back(f.get<std::string>());
    }
  }
  for (const std::string& f : forget) {
    const auto at = std::find(out.remembered.begin(), out.remembered.end(), fs::path(f));
    if (at == out.remembered.end())
      throw UsageError("--forget-place " + f + ": " + file.string() + " does not remember it (it holds " +
                       std::to_string(out.remembered.size()) + " folder" + (out.remembered.size() == 1 ? "" : "s") +
                       ")");
    out.remembered.erase(at);
  }
  const auto is_results = [&dir, &ec](const fs::path& p) {
    const fs::path at = p.is_absolute() ? p : dir / p;
    return fs::is_regular_file(at / "summary.csv", ec) && fs::is_regular_file(at / "meta.json", ec);
  };
  for (const fs::path& p : out.remembered) {
    if (is_results(p)) {
      out.placed.push_back(p);
      continue;
    }
    out.warnings.push_back(file.string() + " remembers " + p.string() +
                           ", which is no longer a results folder: not placed (`bench_mps report " + dir.string() +
                           " --forget-place " + p.string() + "` drops it)");
  }
  for (const std::string& a : add) {
    fs::path p = fs::absolute(a, ec).lexically_normal();
    const fs::path rel = p.lexically_relative(fs::absolute(dir, ec).lexically_normal());
    if (!rel.empty()) p = rel;
    if (p == ".")  // placed on its own map, it would be remembered as "." and drawn twice
      throw UsageError("--place " + a +
                       ": the regimes folder itself, whose workloads are the map; give another "
                       "results folder");
    if (!is_results(p))
      throw UsageError("--place " + a + ": not a results folder (no summary.csv and meta.json in " +
                       (p.is_absolute() ? p : dir / p).string() + ")");
    if (std::find(out.remembered.begin(), out.remembered.end(), p) == out.remembered.end()) {
      out.remembered.push_back(p);
      out.placed.push_back(p);
    }
  }
  return out;
}

std::string places_json(const std::vector<fs::path>& folders) {
  json list = json::array();
  for (const fs::path& f : folders) list.push_back(f.generic_string());
  return json_text(json{{"folders", list}}, 2) + "\n";
}

RegimesReport render_regimes_report(const fs::path& dir, const SweepMeta& meta, const std::string& name,
                                    const std::vector<fs::path>& places, const std::vector<SeedRatio>& seeds) {
  RegimesInput in;
  in.dir = dir;
  in.meta = meta;
  in.name = name;
  in.rows = read_summary(dir / "summary.csv");
  check_rows_match_meta(dir / "summary.csv", in.rows, meta);
  for (TaskSample& t : read_tasks(dir / "tasks.csv"))
    if (t.run_id.find("-xray_busy") != std::string::npos) in.tasks.push_back(std::move(t));
  in.xray = aggregate_xray(in.rows);
  in.sched = scheduler_of(in.xray);
  in.evaluated = evaluate_cells(aggregate_regimes(in.rows), true, name, in.sched);
  for (const fs::path& p : places) {
    const fs::path at = p.is_absolute() ? p : dir / p;
    const std::vector<Evaluated> more =
        evaluate_cells(aggregate_regimes(read_summary(at / "summary.csv")), false, p.filename().string(), in.sched);
    in.evaluated.insert(in.evaluated.end(), more.begin(), more.end());
    in.places.emplace_back(p.generic_string(), read_sweep_meta(at));
    if (more.empty()) in.unplaced.push_back(p.generic_string());
  }
  const std::vector<Evaluated> seeded = seed_cells(seeds, in.sched);
  in.evaluated.insert(in.evaluated.end(), seeded.begin(), seeded.end());
  RegimesReport out;
  out.plan = regimes_plot_plan(in);
  out.markdown = regimes_markdown(in, out.plan);
  for (const std::string& p : in.unplaced)
    out.warnings.push_back("--place " + p + ": nothing of it is on the map: " + kUnplacedWhy);
  return out;
}

}  // namespace bench_mps::harness
