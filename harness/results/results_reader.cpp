#include "harness/results/results_reader.hpp"

#include <cmath>

#include <array>
#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <limits>

#include "harness/common/files.hpp"
#include "harness/common/format.hpp"

#include "harness/results/interference_rows.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/summary_checks.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

std::string RunConfig::config_key() const {
  return workload + "|" + params + "|" + mode + "|" + std::to_string(active_thread_pct) + "|" + std::to_string(procs);
}

namespace {

/// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string without_json_prefix(std::string what) {
  if (what.rfind("[json.exception.", 0) == 0) {
    const auto end = what.find("] ");
    if (end != std::string::npos) what = what.substr(end + 2);
  }
  return one_line(what);
}

}  // namespace

std::string json_value_problem(const std::exception& error) {
  const std::string what = error.what();
  if (what.rfind("[json.exception.parse_error", 0) == 0) return "not valid JSON (" + without_json_prefix(what) + ")";
  if (what.rfind("[json.exception.out_of_range.406]", 0) == 0)  // a number past a double's range
    return "a number out of range (" + without_json_prefix(what) + ")";
  if (what.rfind("[json.exception.out_of_range.403]", 0) == 0)  // at() of a key the object lacks
    return "a key it needs is missing (" + without_json_prefix(what) + ")";
  return "a value has the wrong type: " + without_json_prefix(what);
}

namespace {

/// The first value of meta.json a report would print as nonsense (a negative duration, -1 SMs, a status no sweep
/// writes), or "": what each reader trusts, checked once where the file is read.
std::string meta_value_problem(const nlohmann::json& meta) {
  const auto shown = [](const nlohmann::json& v) {
    const std::string text = v.dump();
    return text.size() > 40 ? text.substr(0, 40) + "..." : text;
  };
  const auto at = [&meta](const char* section, const char* key) -> const nlohmann::json* {
    const auto s = meta.find(section);
    if (s == meta.end() || !s->is_object()) return nullptr;
    const auto v = s->find(key);
    return v == s->end() || v->is_null() ? nullptr : &*v;
  };
  const auto positive = [](const nlohmann::json& v) { return v.is_number() && v.get<double>() > 0; };
  if (const auto st = meta.find("status"); st != meta.end() && !st->is_null()) {
    if (!st->is_string() || !sweep_status_of_name(st->get<std::string>()))
      return "status is " + shown(*st) + ", none a sweep writes (complete, failed, interrupted, ...)";
  }
  if (const auto t = meta.find("timing"); t != meta.end() && !t->is_null()) {
    if (!t->is_object()) return "timing is " + shown(*t) + ", not an object";
    for (const auto& [key, v] : t->items())
      if (key.size() > 2 && key.compare(key.size() - 2, 2, "_s") == 0 &&
          !(v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0))
        return "timing." + key + " is " + shown(v) + ", not a duration (seconds, 0 or more)";
  }
  for (const char* key : {"sm_count", "memory_total_bytes"})
    if (const nlohmann::json* v = at("gpu", key); v && !positive(*v))
      return std::string("gpu.") + key + " is " + shown(*v) + ", not a count above 0";
  if (const nlohmann::json* v = at("gpu", "name"); v && (!v->is_string() || v->get<std::string>().empty()))
    return "gpu.name is " + shown(*v) + ", not a GPU's name";
  if (const nlohmann::json* v = at("sweep", "repeats"); v && !(v->is_number_integer() && v->get<long>() >= 1))
    return "sweep.repeats is " + shown(*v) + ", not a whole number of 1 or more";
  if (const nlohmann::json* v = at("sweep", "procs"))
    for (const auto& n : *v)
      if (!(n.is_number_integer() && n.get<long>() >= 1))
        return "sweep.procs holds " + shown(n) + ", not a number of processes";
  if (const nlohmann::json* v = at("sweep", "tasks_per_worker")) {
    if (!v->is_object()) return "sweep.tasks_per_worker is " + shown(*v) + ", not an object (tasks per workload)";
    for (const auto& [workload, n] : v->items())
      if (!(n.is_number() && n.get<double>() >= 0))
        return "sweep.tasks_per_worker." + workload + " is " + shown(n) + ", not a count";
  }
  return "";
}

/// Where a folder without meta.json is another verb's, what it is and where its sweeps are ("" where not known): an
/// advise folder (its sweeps under sweeps/), or a folder of results folders (the first one named).
std::string not_a_sweep_hint(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_regular_file(dir / "advice.json", ec))
    return " (an advise folder, not one sweep: its sweeps are " + (dir / "sweeps" / "<name>").string() + ")";
  std::vector<fs::path> below;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (fs::is_regular_file(it->path() / "meta.json", ec) || fs::is_regular_file(it->path() / "advice.json", ec))
      below.push_back(it->path());
  if (below.empty()) return "";
  std::sort(below.begin(), below.end());
  return " (it holds " + std::to_string(below.size()) + " results folder" + (below.size() == 1 ? "" : "s") +
         " below it, such as " + below.front().string() + ": name one)";
}

}  // namespace

SweepMeta read_sweep_meta(const fs::path& dir) {
  const fs::path file = dir / "meta.json";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))  // the folder itself, named as it is: not its meta.json
    throw ResultsError(
        dir.string() + ": " +
        (fs::exists(dir, ec) ? "not a folder (a results folder holds meta.json)" : not_a_folder_why(dir)));
  if (!fs::is_regular_file(file, ec))
    throw ResultsError(file.string() + ": " + not_a_readable_file_why(file) + not_a_sweep_hint(dir));
  std::ifstream in(file);
  if (!in) throw ResultsError(file.string() + ": cannot be read");
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(file.string() + ": not valid JSON (" + without_json_prefix(e.what()) + ")");
  }
  if (!meta.is_object() || !meta.contains("schema_version"))
    throw ResultsError(file.string() + ": no schema_version: not a bench_mps results folder");
  if (!meta["schema_version"].is_number_integer())
    throw ResultsError(file.string() + ": schema_version is a " + std::string(meta["schema_version"].type_name()) +
                       " (" + meta["schema_version"].dump().substr(0, 40) + "), not a whole number");
  const int version = meta["schema_version"].get<int>();
  if (version != kResultsSchemaVersion)
    throw ResultsError(file.string() + ": schema version " + std::to_string(version) + ", this bench_mps reads " +
                       std::to_string(kResultsSchemaVersion));
  // The sections every command reads: each an object (gpu may be null: a CPU-only run), argv a list.
  for (const char* section : {"sweep", "gpu", "mps", "tool", "host", "cpus"}) {
    if (!meta.contains(section) || meta[section].is_object() ||
        (meta[section].is_null() && std::string(section) == "gpu"))
      continue;
    throw ResultsError(file.string() + ": \"" + section + "\" is a " + meta[section].type_name() + ", not an object");
  }
  if (meta.contains("argv") && !meta["argv"].is_array())
    throw ResultsError(file.string() + ": \"argv\" is a " + std::string(meta["argv"].type_name()) + ", not a list");
  if (!meta.contains("gpu"))  // every sweep writes it: null for a CPU-only run
    throw ResultsError(file.string() + ": no \"gpu\" section (null for a CPU-only run): the file is damaged");
  if (const std::string misfit = meta_misfit(meta); !misfit.empty())
    throw ResultsError(file.string() + ": " + misfit + ": the file is damaged");
  if (const std::string problem = meta_value_problem(meta); !problem.empty())
    throw ResultsError(file.string() + ": " + problem + ": the file is damaged");
  return meta.get<SweepMeta>();
}

nlohmann::json read_meta(const fs::path& dir) { return read_sweep_meta(dir); }

std::vector<SummaryRecord> read_summary(const fs::path& file) {
  std::vector<SummaryRecord> rows = read_columns<kSummaryReadColumns>(file, summary_schema());
  check_unique_run_ids(file, rows);
  check_ok_runs_measured(file, rows);
  return rows;
}

std::vector<TaskSample> read_tasks(const fs::path& file) {
  return read_columns<kTasksReadColumns>(file, tasks_schema());
}

double WorkerRecord::fact(const std::string& key) const {
  for (const std::string& item : split(facts, ';')) {
    const auto eq = item.find('=');
    if (eq != std::string::npos && item.substr(0, eq) == key) {
      try {
        return parse_cell_double(item.substr(eq + 1), "facts " + key);
      } catch (const ResultsError&) {
        break;
      }
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::vector<WorkerRecord> read_runs(const fs::path& file) {
  return read_columns<kRunsReadColumns>(file, runs_schema());
}

ResultsFolder read_results_folder(const fs::path& dir) {
  require_readable_folder(dir);
  ResultsFolder f;
  f.dir = dir;
  f.meta = read_sweep_meta(dir);
  f.summary = read_summary(dir / "summary.csv");
  check_rows_match_meta(dir / "summary.csv", f.summary, f.meta);
  fill_missing_overlap(dir, f.summary);  // a folder written before fg_overlap: from its tasks.csv
  return f;
}

}  // namespace bench_mps::harness
