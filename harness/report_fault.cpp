#include "harness/report_fault.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "harness/csv_table.hpp"
#include "harness/format.hpp"
#include "harness/markdown_table.hpp"
#include "harness/report_meta.hpp"
#include "harness/stats.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

struct FaultRow {
  std::string run_id, workload, mode, status, reason, fault_error, server, params;
  int repeat = 0, procs = 0, victims = 0, survived = 0;
  double slowdown = 0, post = 0, recovery = 0;
};

std::vector<FaultRow> read_fault_rows(const fs::path& file) {
  static constexpr std::array<const char*, 15> cols{"run_id", "repeat", "workload", "mode", "procs", "status", "reason",
                                                    "scenario", "victims", "victims_survived", "victim_slowdown",
                                                    "victim_post_fault_slowdown", "fault_error", "mps_recovery_s",
                                                    "params"};
  static constexpr std::array<const char*, 2> server_cols{"run_id", "mps_server_state"};
  std::map<std::string, std::string> servers;
  for (const auto& c : read_csv_columns(file, server_cols)) servers[c[0]] = c[1];
  std::vector<FaultRow> rows;
  std::size_t line = 1;
  for (const auto& c : read_csv_columns(file, cols)) {
    const std::string at = file.string() + " line " + std::to_string(++line);
    if (c[7] != "fault") continue;
    FaultRow r;
    r.run_id = c[0];
    r.repeat = static_cast<int>(parse_cell_long(c[1], at + " repeat"));
    r.workload = c[2];
    r.mode = c[3];
    r.procs = static_cast<int>(parse_cell_long(c[4], at + " procs"));
    r.status = c[5];
    r.reason = c[6];
    r.victims = c[8].empty() ? 0 : static_cast<int>(parse_cell_long(c[8], at + " victims"));
    r.survived = c[9].empty() ? 0 : static_cast<int>(parse_cell_long(c[9], at + " victims_survived"));
    r.slowdown = parse_cell_double(c[10], at + " victim_slowdown");
    r.post = parse_cell_double(c[11], at + " victim_post_fault_slowdown");
    r.fault_error = c[12];
    r.recovery = parse_cell_double(c[13], at + " mps_recovery_s");
    r.server = servers[r.run_id];
    r.params = c[14];
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
  struct Cell {
    int victims = 0, survived = 0, runs = 0, failed = 0;
    std::vector<double> slowdown, post, recovery;
    std::string victim_error, server;
  };
  std::map<std::tuple<std::string, std::string, int>, Cell> cells;  // workload, mode, N
  std::vector<std::string> modes;
  for (const FaultRow& r : rows) {
    if (std::find(modes.begin(), modes.end(), r.mode) == modes.end()) modes.push_back(r.mode);
    Cell& c = cells[{r.workload, r.mode, r.procs}];
    ++c.runs;
    if (r.status != "ok") {
      ++c.failed;
      continue;
    }
    c.victims += r.victims;
    c.survived += r.survived;
    c.slowdown.push_back(r.slowdown);
    c.post.push_back(r.post);
    c.recovery.push_back(r.recovery);
    if (c.victim_error.empty() && r.reason.rfind("victim error: ", 0) == 0) c.victim_error = error_kind(r.reason.substr(14));
    if (c.server.empty()) c.server = r.server;
  }

  std::ostringstream md;
  // Verdict: the first line, measured on this folder.
  md << "On " << gpu_and_driver(meta) << ", when one of N processes made an illegal memory access";
  std::string sep = ": ";
  for (const auto& [key, c] : cells) {
    const auto& [workload, mode, n] = key;
    md << sep << mode << " (N=" << n << ", " << workload << ") " << c.survived << "/" << c.victims << " victims survived";
    if (c.survived) md << " but took " << fmt_times(median(c.slowdown)) << " their time without the faulter (median)";
    if (!c.victim_error.empty() && c.survived < c.victims) md << ", the others died with " << c.victim_error;
    if (!c.recovery.empty() && !std::isnan(median(c.recovery)))
      md << ", and a new MPS client ran again " << fmt_sig(median(c.recovery), 2) << " s after the fault";
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
  for (const std::string& mode : modes)
    for (const auto& [key, c] : cells) {
      if (std::get<1>(key) != mode) continue;
      table.add_row({std::get<0>(key), mode, std::to_string(std::get<2>(key)),
                     std::to_string(c.survived) + "/" + std::to_string(c.victims) +
                         (c.failed ? " (" + std::to_string(c.failed) + " runs failed)" : ""),
                     range_of(c.slowdown), range_of(c.post), range_of(c.recovery), c.server.empty() ? "-" : c.server,
                     c.victim_error.empty() ? "-" : c.victim_error});
    }
  md << "## Victims of a faulting neighbour\n\n" << table.str() << "\n"
     << "*victim slowdown*: a surviving victim's mean task time over its whole run divided by the victims' mean "
     << "task time without the faulter; *after the fault*: the same for the tasks that started after the faulting "
     << "process had died.\n\n";

  MarkdownTable runs({"run", "status", "survived", "slowdown", "after the fault", "MPS recovery (s)", "faulting worker"},
                     {false, false, true, true, true, true, false});
  for (const FaultRow& r : rows)
    runs.add_row({r.run_id, r.status, std::to_string(r.survived) + "/" + std::to_string(r.victims), fmt_times(r.slowdown),
                  fmt_times(r.post), fmt_sig(r.recovery, 3), error_kind(r.fault_error)});
  md << "## Every fault run\n\n" << runs.str();
  return md.str();
}

}  // namespace bench_mps::harness
