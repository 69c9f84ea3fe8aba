#include "harness/report/report_fault.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "harness/common/csv_table.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/results/fault_rows.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// A fault run of summary.csv: what the tables need, plus its id and parameters.
struct FaultRow {
  std::string run_id, params;
  FaultRunSummary summary;
};

std::vector<FaultRow> read_fault_rows(const fs::path& file) {
  static constexpr std::array<const char*, 16> cols{
      "run_id", "workload", "mode", "procs", "status", "reason", "scenario", "victims", "victims_survived",
      "victim_slowdown", "victim_post_fault_slowdown", "fault_error", "mps_recovery_s", "params", "mps_server_state",
      "repeat"};
  std::vector<FaultRow> rows;
  std::size_t line = 1;
  for (const auto& c : read_csv_columns(file, cols)) {
    const std::string at = file.string() + " line " + std::to_string(++line);
    if (c[6] != "fault") continue;
    FaultRow r;
    r.run_id = c[0];
    r.params = c[13];
    FaultRunSummary& s = r.summary;
    s.workload = c[1];
    s.mode = c[2];
    s.procs = static_cast<int>(parse_cell_long(c[3], at + " procs"));
    s.status = c[4];
    s.reason = c[5];
    s.victims = c[7].empty() ? 0 : static_cast<int>(parse_cell_long(c[7], at + " victims"));
    s.survived = c[8].empty() ? 0 : static_cast<int>(parse_cell_long(c[8], at + " victims_survived"));
    s.slowdown = parse_cell_double(c[9], at + " victim_slowdown");
    s.post_fault_slowdown = parse_cell_double(c[10], at + " victim_post_fault_slowdown");
    s.fault_error = c[11];
    s.recovery_s = parse_cell_double(c[12], at + " mps_recovery_s");
    s.server_state = c[14];
    parse_cell_long(c[15], at + " repeat");
    rows.push_back(r);
  }
  return rows;
}

std::string range_of(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty()) return "-";
  return fmt_range(median(v), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
}

/// The part of a CUDA error message after the call site: "cudaErrorIllegalAddress: an illegal ...".
std::string error_kind(const std::string& reason) {
  const auto pos = reason.find("cudaError");
  return pos == std::string::npos ? reason : reason.substr(pos);
}

}  // namespace

bool is_fault_folder(const nlohmann::json& meta) {
  return meta.contains("sweep") && meta["sweep"].value("scenario", std::string("sweep")) == "fault";
}

std::string render_fault_report(const fs::path& dir, const nlohmann::json& meta, const std::string& name) {
  const std::vector<FaultRow> rows = read_fault_rows(dir / "summary.csv");
  std::vector<FaultRunSummary> runs;
  for (const FaultRow& r : rows) runs.push_back(r.summary);
  const std::vector<FaultCell> cells = aggregate_fault_runs(runs);

  std::ostringstream md;
  // Verdict: the first line, measured on this folder.
  md << "On " << gpu_and_driver(meta) << ", when one of N processes made an illegal memory access";
  std::string sep = ": ";
  for (const FaultCell& c : cells) {
    md << sep << c.mode << " (N=" << c.procs << ", " << c.workload << ") " << c.survived << "/" << c.victims
       << " victims survived";
    if (c.survived) md << " but took " << fmt_times(median(c.slowdown)) << " their time without the faulter (median)";
    if (!c.victim_error.empty() && c.survived < c.victims) md << ", the others died with " << error_kind(c.victim_error);
    if (!c.recovery_s.empty())
      md << ", and a new MPS client ran again " << fmt_sig(median(c.recovery_s), 2) << " s after the fault";
    sep = "; ";
  }
  std::string delay = "some time";
  if (!rows.empty())
    for (const std::string& kv : split(rows.front().params, ';'))
      if (kv.rfind("fault_delay_ms=", 0) == 0) delay = kv.substr(15) + " ms";
  md << ".\n\n# bench_mps fault-isolation report: " << name << "\n\n"
     << "One worker of N spins like its N-1 victims, then makes an illegal memory access " << delay
     << " after the start barrier; each fault run is paired with a baseline run of the victims alone. Medians over "
     << "repeats, min-max in parentheses. See docs/RESULTS.md for the columns.\n\n";
  md << "## Machine\n\n" << machine_markdown(meta) << "\n";

  MarkdownTable table({"workload", "mode", "N", "victims survived", "victim slowdown", "after the fault",
                       "MPS recovery (s)", "MPS server after the fault", "victims' error"},
                      {false, false, true, true, true, true, true, false, false});
  for (const FaultCell& c : cells)
    table.add_row({c.workload, c.mode, std::to_string(c.procs),
                   std::to_string(c.survived) + "/" + std::to_string(c.victims) +
                       (c.failed ? " (" + std::to_string(c.failed) + " runs failed)" : ""),
                   range_of(c.slowdown), range_of(c.post_fault_slowdown), range_of(c.recovery_s),
                   c.server_state.empty() ? "-" : c.server_state,
                   c.victim_error.empty() ? "-" : error_kind(c.victim_error)});
  md << "## Victims of a faulting neighbour\n\n" << table.str() << "\n"
     << "*victim slowdown*: a surviving victim's mean task time over its whole run divided by the victims' mean "
     << "task time without the faulter; *after the fault*: the same for the tasks that started after the faulting "
     << "process had died.\n\n";

  MarkdownTable run_table({"run", "status", "survived", "slowdown", "after the fault", "MPS recovery (s)", "faulting worker"},
                     {false, false, true, true, true, true, false});
  for (const FaultRow& row : rows) {
    const FaultRunSummary& r = row.summary;
    run_table.add_row({row.run_id, r.status, std::to_string(r.survived) + "/" + std::to_string(r.victims),
                       fmt_times(r.slowdown), fmt_times(r.post_fault_slowdown), fmt_sig(r.recovery_s, 3),
                       error_kind(r.fault_error)});
  }
  md << "## Every fault run\n\n" << run_table.str();
  return md.str();
}

}  // namespace bench_mps::harness
