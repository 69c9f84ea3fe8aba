#include "harness/results/results_reader.hpp"

#include <fstream>
#include <limits>

#include "harness/common/format.hpp"

#include "harness/results/results_schema.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

std::string SummaryRecord::config_key() const {
  return workload + "|" + params + "|" + mode + "|" + std::to_string(active_thread_pct) + "|" + std::to_string(procs);
}

nlohmann::json read_meta(const fs::path& dir) {
  const fs::path file = dir / "meta.json";
  std::ifstream in(file);
  if (!in) throw ResultsError(file.string() + ": no such file");
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(file.string() + ": not valid JSON (" + e.what() + ")");
  }
  if (!meta.is_object() || !meta.contains("schema_version") || !meta["schema_version"].is_number_integer())
    throw ResultsError(file.string() + ": no schema_version: not a bench_mps results folder");
  const int version = meta["schema_version"].get<int>();
  if (version != kResultsSchemaVersion)
    throw ResultsError(file.string() + ": schema version " + std::to_string(version) + ", this bench_mps reads " +
                       std::to_string(kResultsSchemaVersion));
  // The sections every command reads: each an object (gpu may be null: a CPU-only run), argv a list.
  for (const char* section : {"sweep", "gpu", "mps", "tool", "host", "cpus"}) {
    if (!meta.contains(section) || meta[section].is_object() || (meta[section].is_null() && std::string(section) == "gpu"))
      continue;
    throw ResultsError(file.string() + ": \"" + section + "\" is a " + meta[section].type_name() + ", not an object");
  }
  if (meta.contains("argv") && !meta["argv"].is_array())
    throw ResultsError(file.string() + ": \"argv\" is a " + std::string(meta["argv"].type_name()) + ", not a list");
  return meta;
}

std::vector<SummaryRecord> read_summary(const fs::path& file) {
  static constexpr std::array<const char*, 23> cols{
      "run_id", "repeat", "workload", "params", "mode", "active_thread_pct", "procs", "status", "reason",
      "workers_ok", "tasks_total", "makespan_s", "throughput_tasks_per_s", "task_mean_ms", "task_p50_ms",
      "task_p99_ms", "slowdown_vs_alone", "jain_fairness", "gpu_util_mean", "sm_clock_mean_mhz", "power_mean_w",
      "mem_used_max_bytes", "sm_count_seen"};
  std::vector<SummaryRecord> out;
  std::size_t line = 1;
  for (const auto& c : read_csv_columns(file, cols)) {
    const std::string at = file.string() + " line " + std::to_string(++line);
    auto num = [&](int i) {  // every metric of a run is a count, a time, a rate or a fraction: never negative
      const double v = parse_cell_double(c[i], at + " " + cols[i]);
      if (v < 0) throw ResultsError(at + " " + cols[i] + ": " + c[i] + " is negative");
      return v;
    };
    auto integer = [&](int i) { return parse_cell_long(c[i], at + " " + cols[i]); };
    SummaryRecord r;
    r.run_id = c[0];
    if (r.run_id.empty()) throw ResultsError(at + ": empty run_id");
    r.repeat = static_cast<int>(integer(1));
    r.workload = c[2];
    r.params = c[3];
    // Results written before mlp had profiles hold the gpu-bound step under the same parameters.
    if (r.workload == "mlp" && r.params.rfind("profile=", 0) != 0) r.params = "profile=gpu-bound;" + r.params;
    r.mode = c[4];
    r.active_thread_pct = c[5].empty() ? 0 : static_cast<int>(integer(5));
    r.procs = static_cast<int>(integer(6));
    if (r.procs <= 0 || r.repeat <= 0) throw ResultsError(at + ": procs and repeat must be positive");
    r.status = c[7];
    if (r.status.empty()) throw ResultsError(at + ": empty status");
    r.reason = c[8];
    r.workers_ok = integer(9);
    r.tasks_total = integer(10);
    r.makespan_s = num(11);
    r.throughput_tasks_per_s = num(12);
    r.task_mean_ms = num(13);
    r.task_p50_ms = num(14);
    r.task_p99_ms = num(15);
    r.slowdown_vs_alone = num(16);
    r.jain_fairness = num(17);
    r.gpu_util_mean = num(18);
    r.sm_clock_mean_mhz = num(19);
    r.power_mean_w = num(20);
    num(21);
    r.sm_count_seen = integer(22);
    out.push_back(r);
  }
  return out;
}

std::vector<TaskSample> read_tasks(const fs::path& file) {
  static constexpr std::array<const char*, 5> cols{"run_id", "worker", "task", "start_ms", "duration_ms"};
  std::vector<TaskSample> out;
  std::size_t line = 1;
  for (const auto& c : read_csv_columns(file, cols)) {
    const std::string at = file.string() + " line " + std::to_string(++line);
    TaskSample t;
    t.run_id = c[0];
    t.worker = static_cast<int>(parse_cell_long(c[1], at + " worker"));
    t.task = parse_cell_long(c[2], at + " task");
    t.start_ms = parse_cell_double(c[3], at + " start_ms", false);
    t.duration_ms = parse_cell_double(c[4], at + " duration_ms", false);
    out.push_back(t);
  }
  return out;
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
  static constexpr std::array<const char*, 14> cols{"run_id", "mode", "procs", "worker", "pid", "status", "reason",
                                                    "tasks", "task_mean_ms", "throughput_tasks_per_s",
                                                    "sm_count_seen", "mps_enabled", "facts", "workload"};
  std::vector<WorkerRecord> out;
  std::size_t line = 1;
  for (const auto& c : read_csv_columns(file, cols)) {
    const std::string at = file.string() + " line " + std::to_string(++line);
    WorkerRecord w;
    w.run_id = c[0];
    w.mode = c[1];
    w.procs = static_cast<int>(parse_cell_long(c[2], at + " procs"));
    w.worker = static_cast<int>(parse_cell_long(c[3], at + " worker"));
    w.pid = c[4].empty() ? 0 : parse_cell_long(c[4], at + " pid");
    w.status = c[5];
    w.reason = c[6];
    w.tasks = parse_cell_long(c[7], at + " tasks");
    w.task_mean_ms = parse_cell_double(c[8], at + " task_mean_ms");
    w.throughput_tasks_per_s = parse_cell_double(c[9], at + " throughput_tasks_per_s");
    w.sm_count_seen = parse_cell_long(c[10], at + " sm_count_seen");
    w.mps_enabled = parse_cell_long(c[11], at + " mps_enabled") != 0;
    w.facts = c[12];
    w.workload = c[13];
    out.push_back(w);
  }
  return out;
}

ResultsFolder read_results_folder(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ResultsError(dir.string() + ": not a folder");
  ResultsFolder f;
  f.dir = dir;
  f.meta = read_meta(dir);
  f.summary = read_summary(dir / "summary.csv");
  return f;
}

}  // namespace bench_mps::harness
