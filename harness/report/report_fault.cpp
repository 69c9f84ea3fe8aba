#include "harness/report/report_fault.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <tuple>
#include <vector>

#include "harness/common/csv_table.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/packed_files.hpp"
#include "harness/common/stats.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/results/fault_rows.hpp"
#include "harness/results/regime_rows.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/summary_checks.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/workers/workload_kind.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The fault runs of summary.csv (their baselines left out), every row checked against meta.json's scenario.
std::vector<SummaryRecord> read_fault_rows(const fs::path& file, const SweepMeta& meta) {
  std::vector<SummaryRecord> rows = read_summary(file);
  check_rows_match_meta(file, rows, meta);
  for (const SummaryRecord& r : rows) {  // counts and times no fault run can have: a damaged file
    if (r.scenario != RunKind::fault) continue;
    if (r.victims > r.procs - 1 || r.victims_survived > r.victims)
      throw ResultsError(file.string() + ": run " + r.run_id + " has victims_survived " +
                         std::to_string(r.victims_survived) + " of victims " + std::to_string(r.victims) +
                         ", of N=" + std::to_string(r.procs) +
                         " (at most N-1 victims, at most all of them surviving): the file is damaged");
    if (std::isfinite(r.mps_recovery_s) && r.mps_recovery_s > kLongestRunS)
      throw ResultsError(file.string() + ": run " + r.run_id + " has mps_recovery_s " + fmt_num(r.mps_recovery_s) +
                         " (longer than any run lasts): the file is damaged");
  }
  rows.erase(
      std::remove_if(rows.begin(), rows.end(), [](const SummaryRecord& r) { return r.scenario != RunKind::fault; }),
      rows.end());
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

/// One fault run's victims (every worker but the last, which faults), from tasks.csv; a victim whose tasks all ended
/// before the faulter's last one (it faults in the next) was not running at the fault, and froze at nothing.
std::vector<VictimFreeze> victim_freezes(const std::vector<TaskSample>& tasks, const std::string& run_id, int procs) {
  std::map<int, std::vector<const TaskSample*>> by_worker;
  double faulter_last_end_ms = -INFINITY;
  for (const TaskSample& t : tasks) {
    if (t.run_id != run_id) continue;
    if (t.worker < procs - 1) by_worker[t.worker].push_back(&t);
    if (t.worker == procs - 1) faulter_last_end_ms = std::max(faulter_last_end_ms, t.start_ms + t.duration_ms);
  }
  std::vector<VictimFreeze> out;
  for (const auto& [worker, list] : by_worker) {
    const double last_end_ms = std::accumulate(list.begin(), list.end(), -INFINITY, [](double m, const TaskSample* t) {
      return std::max(m, t->start_ms + t->duration_ms);
    });
    if (last_end_ms <= faulter_last_end_ms) continue;
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

bool is_fault_folder(const SweepMeta& meta) { return meta_scenario(meta) == Scenario::fault; }

namespace {

/// Per mode and N: each surviving victim's stall, and per run how far apart the victims resumed.
struct Freezes {
  std::map<std::pair<std::string, int>, std::vector<double>> stalls, resume_spread_ms;
  std::map<std::string, std::vector<VictimFreeze>> by_run;  // by run_id, surviving victims only
};

Freezes measure_freezes(const fs::path& dir, const std::vector<SummaryRecord>& rows) {
  const std::vector<TaskSample> tasks =
      exists_or_packed(dir / "tasks.csv") ? read_tasks(dir / "tasks.csv") : std::vector<TaskSample>{};
  Freezes out;
  for (const SummaryRecord& row : rows) {
    if (row.status != RunStatus::ok || row.victims_survived == 0) continue;
    std::vector<VictimFreeze> f = victim_freezes(tasks, row.run_id, row.procs);
    if (f.empty()) continue;
    const auto key = std::make_pair(row.mode, row.procs);
    double first = INFINITY, last = -INFINITY;
    for (const VictimFreeze& v : f) {
      out.stalls[key].push_back(v.stall_s);
      first = std::min(first, v.resumed_s);
      last = std::max(last, v.resumed_s);
    }
    out.resume_spread_ms[key].push_back((last - first) * 1000);
    out.by_run[row.run_id] = std::move(f);
  }
  return out;
}

/// Every cell ran CPU stand-ins: their "fault" is an injected error, no GPU's.
bool stand_ins_only(const std::vector<FaultCell>& cells) {
  return !cells.empty() && std::all_of(cells.begin(), cells.end(), [](const FaultCell& c) {
    return parse_workload_kind(c.workload) == WorkloadKind::cpu;
  });
}

/// The report's first line: what the fault did in each mode and N, measured on this folder.
std::string fault_verdict(const SweepMeta& meta, const std::vector<SummaryRecord>& rows,
                          const std::vector<FaultCell>& cells, Freezes& fz) {
  std::ostringstream md;
  md << "On " << gpu_and_driver(meta) << ", when one of N processes "
     << (stand_ins_only(cells) ? "failed (the CPU stand-in's injected error: no GPU fault)"
                               : "made an illegal memory access");
  std::string sep = ": ";
  for (const FaultCell& c : cells) {
    if (c.victims == 0) {  // no run of the cell told of its victims: said so, never "0/0 survived"
      md << sep << c.mode << " (N=" << c.procs << ", " << c.workload << ") ";
      if (c.failed == 0)  // every victim ended before the fault (fault_scenario.cpp)
        md << "no victim was running at the fault (each ended before it: give them more --tasks)";
      else
        md << "no run measured its victims (" << c.failed << " of " << c.runs << " run" << (c.runs == 1 ? "" : "s")
           << " failed)";
      sep = "; ";
      continue;
    }
    md << sep << c.mode << " (N=" << c.procs << ", " << c.workload << ") " << c.survived << "/" << c.victims
       << " victims survived";
    const auto key = std::make_pair(c.mode, c.procs);
    if (c.survived && fz.stalls.count(key)) {
      const std::vector<double>& st = fz.stalls[key];
      md << ": each froze at the fault for " << fmt_sig(median(st), 3) << " s (median over victims and repeats; "
         << fmt_sig(*std::min_element(st.begin(), st.end()), 3) << "-"
         << fmt_sig(*std::max_element(st.begin(), st.end()), 3) << " s), all resumed within "
         << fmt_sig(*std::max_element(fz.resume_spread_ms[key].begin(), fz.resume_spread_ms[key].end()), 2)
         << " ms of each other, then ran at " << fmt_times(median(c.post_fault_slowdown))
         << " their time without the faulter";
    } else if (c.survived) {
      md << " and took " << fmt_times(median(c.slowdown))
         << " their time without the faulter (median; tasks.csv missing)";
    }
    if (!c.victim_error.empty() && c.survived < c.victims)
      md << (c.survived ? ", the others died with " : ": all died with ") << error_kind(c.victim_error);
    if (!c.recovery_s.empty())
      md << ", and a new MPS client ran again " << fmt_sig(median(c.recovery_s), 2) << " s after the fault";
    int frozen_runs = 0;
    for (const SummaryRecord& row : rows)
      frozen_runs += row.status == RunStatus::timeout && row.mode == c.mode && row.procs == c.procs;
    if (frozen_runs)
      md << " (in " << frozen_runs << " more run" << (frozen_runs > 1 ? "s" : "")
         << " the victims were still frozen when the run's " << meta_text(shown_of(meta.sweep), "/run_timeout_s")
         << " s timeout stopped them)";
    sep = "; ";
  }
  return md.str();
}

/// "Victims of a faulting neighbour": one row per workload, mode and N.
std::string victims_section(const std::vector<FaultCell>& cells) {
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
  return "## Victims of a faulting neighbour\n\n" + table.str() + "\n" +
         "*victim slowdown*: a surviving victim's mean task time over its whole run divided by the victims' mean "
         "task time without the faulter. It is 1 + freeze / run length, so it grows with `--tasks`: read the freeze "
         "below instead. *after the fault*: the same for the tasks that started after the faulting process had "
         "died.\n\n";
}

/// "The freeze": per mode and N, then per surviving victim; empty without tasks.csv.
std::string freeze_section(Freezes& fz) {
  if (fz.by_run.empty()) return "";
  std::ostringstream md;
  MarkdownTable freeze_table({"mode", "N", "victim stall (s)", "victims resumed within (ms)", "runs"},
                             {false, true, true, true, true});
  for (const auto& [key, st] : fz.stalls)
    freeze_table.add_row({key.first, std::to_string(key.second), range_of(st), range_of(fz.resume_spread_ms[key]),
                          std::to_string(fz.resume_spread_ms[key].size())});
  md << "## The freeze\n\n"
     << "Each surviving victim's longest task, less its median task, is its *stall*: the time the fault held it. "
        "Medians over victims and repeats, min-max in parentheses; *resumed within*: per run, the first to the "
        "last victim's end of that longest task.\n\n"
     << freeze_table.str() << "\n";
  MarkdownTable per_victim(
      {"run", "victim", "stall starts (s after GO)", "stall (s)", "resumed (s after GO)", "typical task (ms)"},
      {false, true, true, true, true, true});
  for (const auto& [run_id, list] : fz.by_run)
    for (const VictimFreeze& v : list)
      per_victim.add_row({run_id, std::to_string(v.worker), fmt_sig(v.stall_start_s, 4), fmt_sig(v.stall_s, 4),
                          fmt_sig(v.resumed_s, 6), fmt_sig(v.typical_ms, 4)});
  md << "### Every surviving victim\n\n" << per_victim.str() << "\n";
  return md.str();
}

/// Every fault run, then the driver's messages (Xid) per run where the folder records them (a column
/// added later: a folder without it says so).
std::string runs_section(const fs::path& dir, const std::vector<SummaryRecord>& rows) {
  std::ostringstream md;
  // Victims that never came back: the run's timeout ended them while they were still frozen.
  std::string frozen;
  for (const SummaryRecord& row : rows)
    if (row.status == RunStatus::timeout && row.mode == kTimesliceMode)
      frozen += (frozen.empty() ? "" : ", ") + std::string("`") + row.run_id + "`";
  if (!frozen.empty())
    md << "Not in the table: " << frozen
       << ": its victims were still frozen when the run's timeout (meta.json sweep.run_timeout_s) stopped them, so "
          "their stall was at least that long (status `timeout`, below).\n\n";
  MarkdownTable run_table(
      {"run", "status", "survived", "slowdown", "after the fault", "MPS recovery (s)", "faulting worker"},
      {false, false, true, true, true, true, false});
  for (const SummaryRecord& r : rows)
    run_table.add_row({r.run_id, to_string(r.status),
                       std::to_string(r.victims_survived) + "/" + std::to_string(r.victims),
                       fmt_times(r.victim_slowdown), fmt_times(r.victim_post_fault_slowdown),
                       fmt_sig(r.mps_recovery_s, 3), error_kind(r.fault_error)});
  md << "## Every fault run\n\n" << run_table.str() << "\n## Driver messages (Xid)\n\n";
  if (rows.empty() ||
      read_whole_file(dir / "summary.csv").substr(0, 4096).find("driver_messages") == std::string::npos) {
    md << "Not recorded: this folder was written before bench_mps read the kernel log.\n";
    return md.str();
  }
  MarkdownTable xid({"run", "kernel log during the run"});
  for (const SummaryRecord& row : rows)
    xid.add_row({row.run_id, row.driver_messages.empty() ? "-" : row.driver_messages});
  md << xid.str();
  return md.str();
}

}  // namespace

std::string render_fault_report(const fs::path& dir, const SweepMeta& meta, const std::string& name) {
  const std::vector<SummaryRecord> rows = read_fault_rows(dir / "summary.csv", meta);
  const std::vector<FaultCell> cells = aggregate_fault_runs(rows);
  Freezes freezes = measure_freezes(dir, rows);
  std::string delay = "some time";
  if (!rows.empty())
    if (const std::optional<std::string> ms = param_text(rows.front().params, "fault_delay_ms")) delay = *ms + " ms";
  std::ostringstream md;
  md << fault_verdict(meta, rows, cells, freezes) << ".\n\n# bench_mps fault-isolation report: " << name << "\n\n"
     << "One worker of N spins like its N-1 victims, then "
     << (stand_ins_only(cells) ? "fails with an injected error (a CPU stand-in: no GPU fault) "
                               : "makes an illegal memory access ")
     << delay
     << " after the start barrier; each fault run is paired with a baseline run of the victims alone. Medians over "
     << "repeats, min-max in parentheses. See docs/RESULTS.md for the columns.\n\n";
  md << "## Machine\n\n" << machine_markdown(meta) << "\n";
  md << victims_section(cells) << freeze_section(freezes) << runs_section(dir, rows);
  return md.str();
}

}  // namespace bench_mps::harness
