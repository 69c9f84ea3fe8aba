#include "harness/report/report_fault.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "harness/common/csv_table.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/results/fault_rows.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"

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
    // Counts, ratios and times, read as the schema reads them (never negative, NaN and inf refused).
    const auto count = [&at](const std::string& text, const char* name) {
      const std::string where = at + " " + name;
      return text.empty() ? 0 : static_cast<int>(Cell{text, where}.whole());
    };
    const auto amount = [&at](const std::string& text, const char* name) {
      const std::string where = at + " " + name;
      return Cell{text, where}.real();
    };
    s.procs = count(c[3], "procs");
    if (s.procs < 1) throw ResultsError(at + " procs: '" + c[3] + "' is not a positive integer");
    s.status = c[4];
    s.reason = c[5];
    s.victims = count(c[7], "victims");
    s.survived = count(c[8], "victims_survived");
    s.slowdown = amount(c[9], "victim_slowdown");
    s.post_fault_slowdown = amount(c[10], "victim_post_fault_slowdown");
    s.fault_error = c[11];
    s.recovery_s = amount(c[12], "mps_recovery_s");
    s.server_state = c[14];
    count(c[15], "repeat");
    rows.push_back(r);
  }
  return rows;
}

std::string range_of(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty()) return "-";
  return fmt_range(median(v), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
}

/// What the fault did to one surviving victim: its longest task against its typical one.
struct VictimFreeze {
  int worker = 0;
  double stall_start_s = NAN;  ///< the longest task's start, after GO
  double stall_s = NAN;        ///< the longest task minus the victim's median task
  double resumed_s = NAN;      ///< the longest task's end, after GO
  double typical_ms = NAN;     ///< the victim's median task
};

/// One fault run's victims (every worker but the last, which faults), from tasks.csv.
std::vector<VictimFreeze> victim_freezes(const std::vector<TaskSample>& tasks, const std::string& run_id, int procs) {
  std::map<int, std::vector<const TaskSample*>> by_worker;
  for (const TaskSample& t : tasks)
    if (t.run_id == run_id && t.worker < procs - 1) by_worker[t.worker].push_back(&t);
  std::vector<VictimFreeze> out;
  for (const auto& [worker, list] : by_worker) {
    std::vector<double> ms;
    for (const TaskSample* t : list) ms.push_back(t->duration_ms);
    const TaskSample* longest =
        *std::max_element(list.begin(), list.end(), [](auto* a, auto* b) { return a->duration_ms < b->duration_ms; });
    VictimFreeze f;
    f.worker = worker;
    f.typical_ms = median(ms);
    f.stall_start_s = longest->start_ms / 1000;
    f.stall_s = (longest->duration_ms - f.typical_ms) / 1000;
    f.resumed_s = (longest->start_ms + longest->duration_ms) / 1000;
    out.push_back(f);
  }
  return out;
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
  std::error_code ec;
  const std::vector<TaskSample> tasks =
      fs::exists(dir / "tasks.csv", ec) ? read_tasks(dir / "tasks.csv") : std::vector<TaskSample>{};
  // Per mode and N: each surviving victim's stall, and per run how far apart the victims resumed.
  std::map<std::pair<std::string, int>, std::vector<double>> stalls, resume_spread_ms;
  std::map<std::string, std::vector<VictimFreeze>> freezes;  // by run_id, surviving victims only
  for (const FaultRow& row : rows) {
    if (row.summary.status != "ok" || row.summary.survived == 0) continue;
    std::vector<VictimFreeze> f = victim_freezes(tasks, row.run_id, row.summary.procs);
    if (f.empty()) continue;
    const auto key = std::make_pair(row.summary.mode, row.summary.procs);
    double first = INFINITY, last = -INFINITY;
    for (const VictimFreeze& v : f) {
      stalls[key].push_back(v.stall_s);
      first = std::min(first, v.resumed_s);
      last = std::max(last, v.resumed_s);
    }
    resume_spread_ms[key].push_back((last - first) * 1000);
    freezes[row.run_id] = std::move(f);
  }

  // The driver's messages (Xid) per fault run, where the folder records them (a column added later).
  std::map<std::string, std::string> driver_messages;
  if (read_whole_file(dir / "summary.csv").substr(0, 4096).find("driver_messages") != std::string::npos) {
    static constexpr std::array<const char*, 3> cols{"run_id", "scenario", "driver_messages"};
    for (const auto& c : read_csv_columns(dir / "summary.csv", cols))
      if (c[1] == "fault") driver_messages[c[0]] = c[2];
  }

  std::ostringstream md;
  // Verdict: the first line, measured on this folder.
  md << "On " << gpu_and_driver(meta) << ", when one of N processes made an illegal memory access";
  std::string sep = ": ";
  for (const FaultCell& c : cells) {
    md << sep << c.mode << " (N=" << c.procs << ", " << c.workload << ") " << c.survived << "/" << c.victims
       << " victims survived";
    const auto key = std::make_pair(c.mode, c.procs);
    if (c.survived && stalls.count(key)) {
      const std::vector<double>& st = stalls[key];
      md << ": each froze at the fault for " << fmt_sig(median(st), 3) << " s (median over victims and repeats; "
         << fmt_sig(*std::min_element(st.begin(), st.end()), 3) << "-" << fmt_sig(*std::max_element(st.begin(), st.end()), 3)
         << " s), all resumed within " << fmt_sig(*std::max_element(resume_spread_ms[key].begin(), resume_spread_ms[key].end()), 2)
         << " ms of each other, then ran at " << fmt_times(median(c.post_fault_slowdown))
         << " their time without the faulter";
    } else if (c.survived) {
      md << " and took " << fmt_times(median(c.slowdown)) << " their time without the faulter (median; tasks.csv missing)";
    }
    if (!c.victim_error.empty() && c.survived < c.victims)
      md << (c.survived ? ", the others died with " : ": all died with ") << error_kind(c.victim_error);
    if (!c.recovery_s.empty())
      md << ", and a new MPS client ran again " << fmt_sig(median(c.recovery_s), 2) << " s after the fault";
    int frozen_runs = 0;
    for (const FaultRow& row : rows)
      frozen_runs += row.summary.status == "timeout" && row.summary.mode == c.mode && row.summary.procs == c.procs;
    if (frozen_runs)
      md << " (in " << frozen_runs << " more run" << (frozen_runs > 1 ? "s" : "")
         << " the victims were still frozen when the run's " << meta_text(meta, "/sweep/run_timeout_s")
         << " s timeout stopped them)";
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
     << "task time without the faulter. It is 1 + freeze / run length, so it grows with `--tasks`: read the freeze "
     << "below instead. *after the fault*: the same for the tasks that started after the faulting process had died.\n\n";
  if (!freezes.empty()) {
    MarkdownTable freeze_table({"mode", "N", "victim stall (s)", "victims resumed within (ms)", "runs"},
                               {false, true, true, true, true});
    for (const auto& [key, st] : stalls)
      freeze_table.add_row({key.first, std::to_string(key.second), range_of(st), range_of(resume_spread_ms[key]),
                            std::to_string(resume_spread_ms[key].size())});
    md << "## The freeze\n\n"
       << "Each surviving victim's longest task, less its median task, is its *stall*: the time the fault held it. "
          "Medians over victims and repeats, min-max in parentheses; *resumed within*: per run, the first to the "
          "last victim's end of that longest task.\n\n"
       << freeze_table.str() << "\n";
    MarkdownTable per_victim({"run", "victim", "stall starts (s after GO)", "stall (s)", "resumed (s after GO)",
                              "typical task (ms)"},
                             {false, true, true, true, true, true});
    for (const auto& [run_id, list] : freezes)
      for (const VictimFreeze& v : list)
        per_victim.add_row({run_id, std::to_string(v.worker), fmt_sig(v.stall_start_s, 4), fmt_sig(v.stall_s, 4),
                            fmt_sig(v.resumed_s, 6), fmt_sig(v.typical_ms, 4)});
    md << "### Every surviving victim\n\n" << per_victim.str() << "\n";
  }
  // Victims that never came back: the run's timeout ended them while they were still frozen.
  std::string frozen;
  for (const FaultRow& row : rows)
    if (row.summary.status == "timeout" && row.summary.mode == "timeslice")
      frozen += (frozen.empty() ? "" : ", ") + std::string("`") + row.run_id + "`";
  if (!frozen.empty())
    md << "Not in the table: " << frozen
       << ": its victims were still frozen when the run's timeout (meta.json sweep.run_timeout_s) stopped them, so "
          "their stall was at least that long (status `timeout`, below).\n\n";

  MarkdownTable run_table({"run", "status", "survived", "slowdown", "after the fault", "MPS recovery (s)", "faulting worker"},
                     {false, false, true, true, true, true, false});
  for (const FaultRow& row : rows) {
    const FaultRunSummary& r = row.summary;
    run_table.add_row({row.run_id, r.status, std::to_string(r.survived) + "/" + std::to_string(r.victims),
                       fmt_times(r.slowdown), fmt_times(r.post_fault_slowdown), fmt_sig(r.recovery_s, 3),
                       error_kind(r.fault_error)});
  }
  md << "## Every fault run\n\n" << run_table.str() << "\n## Driver messages (Xid)\n\n";
  if (driver_messages.empty()) {
    md << "Not recorded: this folder was written before bench_mps read the kernel log.\n";
  } else {
    MarkdownTable xid({"run", "kernel log during the run"});
    for (const FaultRow& row : rows) {
      const auto it = driver_messages.find(row.run_id);
      xid.add_row({row.run_id, it == driver_messages.end() || it->second.empty() ? "-" : it->second});
    }
    md << xid.str();
  }
  return md.str();
}

}  // namespace bench_mps::harness
