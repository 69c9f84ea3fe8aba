#include "harness/results/results_writer.hpp"
#include <stdexcept>

#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/results/results_schema.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

std::string num(double v) { return fmt_num(v, 7); }
std::string opt(const std::optional<unsigned>& v) { return v ? std::to_string(*v) : ""; }

std::vector<std::string> config_cells(const RunSpec& s) {
  return {s.run_id(), std::to_string(s.repeat), s.workload, s.params, s.mode.name,
          s.mode.mps ? std::to_string(s.mode.active_thread_pct ? s.mode.active_thread_pct : 100) : "",
          std::to_string(s.procs)};
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + csv_cell(cells[i]);
  return line + "\n";
}

ResultsWriter::ResultsWriter(const fs::path& dir) : dir_(dir) {
  append_durably(dir_ / "tasks.csv", csv_line(tasks_columns()), "");
  append_durably(dir_ / "runs.csv", csv_line(runs_columns()), "");
  append_durably(dir_ / "timeline.csv", csv_line(timeline_columns()), "");
  append_durably(dir_ / "summary.csv", csv_line(summary_columns()), "");
}

void ResultsWriter::append(const RunRecord& r) {
  const std::string id = r.spec.run_id();
  const auto config = config_cells(r.spec);

  std::string tasks;
  for (const TaskRow& t : r.tasks)
    tasks += csv_line({id, std::to_string(t.worker), std::to_string(t.task), fmt_num(t.start_ms, 9),
                       fmt_num(t.duration_ms, 7)});

  std::string runs;
  for (const WorkerRow& w : r.workers)
    runs += csv_line(concat(config, {std::to_string(w.worker), std::to_string(w.pid), w.status, w.reason,
                                     std::to_string(w.tasks), num(w.start_s), num(w.end_s), num(w.task_mean_ms),
                                     num(w.task_p50_ms), num(w.task_p99_ms), num(w.throughput_tasks_per_s),
                                     std::to_string(w.sm_count_seen), w.mps_enabled ? "1" : "0",
                                     std::to_string(w.mem_bytes), w.facts, w.role, num(w.slowdown_vs_baseline),
                                     num(w.post_fault_task_mean_ms)}));

  std::string timeline;
  for (const GpuSample& g : r.samples)
    timeline += csv_line({id, num(static_cast<double>(g.t_ns - r.go_ns) * 1e-9),
                          g.gpu_util_pct ? num(*g.gpu_util_pct / 100.0) : "",
                          g.mem_util_pct ? num(*g.mem_util_pct / 100.0) : "", opt(g.sm_clock_mhz), opt(g.mem_clock_mhz),
                          g.mem_used_bytes ? std::to_string(*g.mem_used_bytes) : "", g.power_w ? num(*g.power_w) : ""});

  const SummaryRow& s = r.summary;
  const std::string summary = csv_line(concat(
      config, {s.status, s.reason, std::to_string(s.workers_ok), std::to_string(s.tasks_total), num(s.makespan_s),
               num(s.throughput_tasks_per_s), num(s.task_mean_ms), num(s.task_p50_ms), num(s.task_p99_ms),
               num(s.slowdown_vs_alone), num(s.jain_fairness), num(s.gpu_util_mean), num(s.sm_clock_mean_mhz),
               num(s.power_mean_w), s.mem_used_max_bytes ? std::to_string(s.mem_used_max_bytes) : "",
               std::to_string(s.sm_count_seen), s.scenario, s.scenario == "fault" ? std::to_string(s.victims) : "",
               s.scenario == "fault" ? std::to_string(s.victims_survived) : "", num(s.victim_slowdown),
               num(s.victim_post_fault_slowdown), s.fault_error, s.mps_server_state, num(s.mps_recovery_s)}));

  append_durably(dir_ / "tasks.csv", csv_line(tasks_columns()), tasks);
  append_durably(dir_ / "runs.csv", csv_line(runs_columns()), runs);
  append_durably(dir_ / "timeline.csv", csv_line(timeline_columns()), timeline);
  append_durably(dir_ / "summary.csv", csv_line(summary_columns()), summary);
}


}  // namespace bench_mps::harness
