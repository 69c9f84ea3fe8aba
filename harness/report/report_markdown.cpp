// Writes report.md for a results folder. Every number comes from ReportData; nothing is hard-coded
// except the seed articles' figures, which come from results/seeds.csv with their sources.
#include "harness/report/report_markdown.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/results/regime_rows.hpp"
#include "harness/workers/workload_kind.hpp"

namespace bench_mps::harness {
namespace {

/// The MPS mode the verdict speaks of: plain `mps` if measured, else the first other MPS mode.
std::string verdict_mps_mode(const ReportData& data) {
  std::string pick;
  for (const auto& m : data.modes) {
    if (m == kMpsMode) return m;
    if (m != kTimesliceMode && pick.empty()) pick = m;
  }
  return pick;
}

/// One clause of the verdict for one workload, or "" when nothing comparable was measured.
std::string verdict_clause(const ReportData& data, const std::string& series, const std::string& mps, bool first) {
  auto rel = [&](const std::string& mode, int n) {
    const ReportCell* c = data.find(series, mode, n);
    return c ? c->relative_throughput.median : NAN;
  };
  const std::string mps_name = mps.empty() ? "" : mode_label(mps);
  // Largest N > 1 where both modes have a throughput relative to N=1.
  for (auto it = data.procs.rbegin(); it != data.procs.rend(); ++it) {
    const int n = *it;
    if (n <= 1) break;
    const double ts = rel("timeslice", n), mp = mps.empty() ? NAN : rel(mps, n);
    if (std::isfinite(ts) && std::isfinite(mp)) {
      if (first)
        return std::to_string(n) + " processes time-sliced ran at " + fmt_times(ts) +
               " the throughput of one process in the same mode for " + series + " while " + mps_name + " reached " +
               fmt_times(mp);
      return "for " + series + " at N=" + std::to_string(n) + ", " + fmt_times(ts) + " time-sliced and " +
             fmt_times(mp) + " with " + mps_name;
    }
  }
  // No N=1 in one of the modes: MPS over time-slicing at the largest N with both.
  for (auto it = data.procs.rbegin(); it != data.procs.rend() && !mps.empty(); ++it) {
    const ReportCell* c = data.find(series, mps, *it);
    if (c && std::isfinite(c->speedup_vs_timeslice.median))
      return (first ? "" : "for " + series + ", ") + mps_name + " ran " + std::to_string(*it) +
             (*it == 1 ? " process at " : " processes at ") + fmt_times(c->speedup_vs_timeslice.median) +
             " the throughput of time-slicing" + (first ? " for " + series : "");
  }
  // One mode only: its scaling.
  for (auto it = data.procs.rbegin(); it != data.procs.rend(); ++it) {
    if (*it <= 1) break;
    for (const auto& m : data.modes) {
      const double r = rel(m, *it);
      if (std::isfinite(r))
        return std::to_string(*it) + " processes " + mode_label(m) + " ran at " + fmt_times(r) +
               " the throughput of one process in the same mode for " + series;
    }
  }
  return "";
}

std::string runs_phrase(const ReportData& data) {
  const int failed = static_cast<int>(data.failed.size());
  if (data.runs_total == 0) return "no runs recorded";
  if (failed == 0)
    return data.runs_total == 1 ? "its one run ok" : "all " + std::to_string(data.runs_total) + " runs ok";
  return std::to_string(failed) + " of " + std::to_string(data.runs_total) + " runs failed and are left out";
}

/// " The sweep ..." where meta.json says it did not run its whole plan; "" where it did (or failed runs only).
std::string unfinished_phrase(const SweepMeta& meta) {
  const std::optional<SweepStatus> status = sweep_status_of_name(meta.status.value_or(""));
  if (!status) return "";
  const std::string rest = ": these are the runs it finished, not its whole plan (`bench_mps --resume` runs the rest).";
  switch (*status) {
    case SweepStatus::interrupted:
      return " The sweep was interrupted" + rest;
    case SweepStatus::environment_error:
      return " The sweep stopped on an environment error (" + meta.stop_reason.value_or("see meta.json") + ")" + rest;
    case SweepStatus::running:
      return " meta.json still says running (the sweep was killed, or is still going)" + rest;
    case SweepStatus::complete:
    case SweepStatus::failed:
      break;
  }
  return "";
}

std::string results_table(const ReportData& data) {
  bool limited = false;
  for (const ReportCell& c : data.cells) limited |= is_limited_mps_mode(c.mode);
  std::vector<std::string> header{"workload",
                                  "mode",
                                  "N",
                                  "runs ok",
                                  "per-task ms",
                                  "p99 ms",
                                  "tasks/s",
                                  "per-task time vs one process time-sliced",
                                  "per-task time vs N=1, same mode",
                                  "throughput vs N=1, same mode",
                                  "throughput vs time-sliced, same N"};
  if (limited) header.push_back("per-task time vs unlimited MPS, same N");
  std::vector<bool> right(header.size(), true);
  right[0] = right[1] = false;
  MarkdownTable t(header, right);
  auto ratio = [](const Spread& s) {
    if (!std::isfinite(s.median)) return std::string("-");
    const std::string m = fmt_times(s.median), lo = fmt_times(s.min), hi = fmt_times(s.max);
    return lo == hi ? m : m + " (" + lo + "–" + hi + ")";
  };
  for (const ReportCell& c : data.cells) {
    std::vector<std::string> row{c.series,
                                 c.mode,
                                 std::to_string(c.procs),
                                 std::to_string(c.runs - c.failed) + "/" + std::to_string(c.runs),
                                 fmt_range(c.task_mean_ms.median, c.task_mean_ms.min, c.task_mean_ms.max),
                                 fmt_range(c.task_p99_ms.median, c.task_p99_ms.min, c.task_p99_ms.max),
                                 fmt_range(c.throughput.median, c.throughput.min, c.throughput.max),
                                 ratio(c.task_time_vs_timeslice_alone),
                                 ratio(c.relative_task_time),
                                 ratio(c.relative_throughput),
                                 c.mode == kTimesliceMode ? "" : ratio(c.speedup_vs_timeslice)};
    if (limited) row.push_back(is_limited_mps_mode(c.mode) ? ratio(c.task_time_vs_unlimited_mps) : "");
    t.add_row(row);
  }
  return t.str();
}

std::string fraction_cell(const Spread& s) {
  if (!std::isfinite(s.median)) return "-";
  return fmt_range(s.median, s.min, s.max);
}

/// How busy the GPU was, two ways: NVML's utilisation (the share of time any kernel ran) and, where the
/// GPU has them, GPM's SM activity, occupancy and DRAM bandwidth (how much of the GPU worked).
std::string gpu_activity_section(const ReportData& data, const std::optional<GpuMeta>& gpu_meta) {
  bool any_gpm = false;
  for (const ReportCell& c : data.cells) any_gpm |= std::isfinite(c.gpm_sm_util.median);
  const std::string gpm =
      !gpu_meta ? "no GPU in this run"
                : gpu_meta->gpm.value_or("not recorded (this folder was written before bench_mps read GPM)");
  std::string md =
      "NVML's utilisation is the share of time in which any kernel ran: a 4-block kernel on a 132-SM GPU reads "
      "as busy as one that fills it. GPM (NVML's GPU performance metrics, Hopper and newer) says how much of the "
      "GPU worked: *SM activity* is the share of SMs busy over the run, *occupancy* the resident warps over the "
      "SMs' maximum, *DRAM* the bandwidth used over the peak; all over the run's timed window. GPM here: " +
      gpm + ".\n\n";
  if (!any_gpm) return md;
  MarkdownTable t(
      {"workload", "mode", "N", "NVML utilisation", "GPM SM activity", "GPM occupancy", "GPM DRAM bandwidth"},
      {false, false, true, true, true, true, true});
  for (const ReportCell& c : data.cells)
    t.add_row({c.series, c.mode, std::to_string(c.procs), fraction_cell(c.gpu_util), fraction_cell(c.gpm_sm_util),
               fraction_cell(c.gpm_sm_occupancy), fraction_cell(c.gpm_dram_bw_util)});
  return md + t.str();
}

/// membw: the bandwidth all workers moved together, against the DRAM's peak and one process alone.
std::string memory_bandwidth_section(const ReportData& data) {
  bool any = false;
  for (const ReportCell& c : data.cells) any |= std::isfinite(c.dram_gbps.median);
  if (!any) return "";
  const bool peak = std::isfinite(data.dram_peak_gbps);
  std::string md = "The `membw` triad's bytes moved per second by all N workers together (tasks/s x bytes per task)";
  md += peak ? ", against the DRAM's peak of " + fmt_num(data.dram_peak_gbps, 4) +
                   " GB/s (memory clock x bus width x 2, as the workers read it). Ideal sharing keeps the sum at what "
                   "one process reaches alone: N processes share one DRAM, however the GPU schedules them.\n\n"
             : ".\n\n";
  MarkdownTable t({"mode", "N", "GB/s, all workers", "share of peak", "vs one process alone, same mode"},
                  {false, true, true, true, true});
  for (const ReportCell& c : data.cells) {
    if (!std::isfinite(c.dram_gbps.median)) continue;
    const ReportCell* alone = data.find(c.series, c.mode, 1);
    const double vs =
        alone && std::isfinite(alone->dram_gbps.median) ? c.dram_gbps.median / alone->dram_gbps.median : NAN;
    t.add_row({c.mode, std::to_string(c.procs), fmt_range(c.dram_gbps.median, c.dram_gbps.min, c.dram_gbps.max),
               peak ? fmt_fixed(c.dram_gbps.median / data.dram_peak_gbps, 2) : "-",
               std::isfinite(vs) ? fmt_times(vs) : "-"});
  }
  return md + t.str();
}

/// Where the sweep's wall time went (meta.json timing), or "" for folders written before it was kept.
std::string timing_section(const std::optional<nlohmann::json>& timing) {
  if (!timing || !timing->is_object()) return "";
  const nlohmann::json& t = *timing;
  auto num = [&t](const char* key) { return t.contains(key) && t[key].is_number() ? t[key].get<double>() : NAN; };
  const double wall = num("wall_s");
  if (!std::isfinite(wall)) return "";
  const double invocations = num("invocations");
  return "The sweep took " + fmt_fixed(wall, 1) + " s" +
         (invocations > 1 ? " over " + fmt_fixed(invocations, 0) + " invocations (a first run and its resumes)" : "") +
         ", of which " + fmt_fixed(num("timed_s"), 1) + " s (" + fmt_fixed(100 * num("timed_share"), 0) +
         "%) were inside the runs' timed windows (first task's start to "
         "last task's end). The harness's own: worker start-up (processes, contexts, warm-up) " +
         fmt_fixed(num("startup_s"), 1) + " s, settle pauses " + fmt_fixed(num("settle_s"), 1) +
         " s, waiting for workers to exit " + fmt_fixed(num("teardown_s"), 1) +
         " s (the rest of their exit overlaps the next set's start-up). Where meta.json's sweep.rounds_per_set is "
         "above 1, consecutive repeats of a configuration share one set of worker processes, each repeat released by "
         "its own start barrier; at 1 (the default of 2 repeats) each repeat has a set of its own.\n";
}

/// "GPU 37% busy alone" from the series' time-sliced N=1 runs, or "" where those are too short (< 2 s)
/// for NVML's utilisation, which averages over up to a second, to be read.
std::string busy_alone(const ReportData& data, const std::string& series) {
  const ReportCell* c = data.find(series, kTimesliceMode, 1);
  if (!c || !std::isfinite(c->gpu_util.median) || !(c->makespan_s.median >= 2.0)) return "";
  return "GPU " + fmt_fixed(100 * c->gpu_util.median, 0) + "% busy alone";
}

/// What a ReportCell::regime means beside the seeds; the regime itself where nothing more is known.
std::string regime_note(const std::string& regime) {
  static const std::map<std::string, std::string> notes{
      {"seed001", "seed 001's regime: fixed work, GPU idle between steps"},
      {"gpu-bound", "GPU-bound: a different regime"},
      {"spin", "busy kernel, seed 000's"},
  };
  const auto note = notes.find(regime);
  return note == notes.end() ? regime : note->second;
}

std::string series_header(const ReportData& data, const std::string& series) {
  const ReportCell* any = nullptr;
  for (const ReportCell& c : data.cells)
    if (c.series == series) any = &c;
  std::string note = any ? regime_note(any->regime) : "";
  const std::string busy = busy_alone(data, series);
  if (!busy.empty()) note += (note.empty() ? "" : "; ") + busy;
  return "ours: " + series + (note.empty() ? "" : " (" + note + ")");
}

/// Our figure for a seed row, on the seed's basis (one process alone, time-sliced): the N copies'
/// completion time where the seed timed completion and the series runs a fixed amount of work per
/// process, else the per-task time († where the seed timed completion).
std::string ours_on_seed_basis(const ReportCell& c, const SeedRatio& r) {
  const bool completion = r.metric == "completion_time";
  const Spread& s =
      completion && c.regime == "seed001" ? c.makespan_vs_timeslice_alone : c.task_time_vs_timeslice_alone;
  if (!std::isfinite(s.median)) return "-";
  std::string v = fmt_fixed(s.median, 2) + (completion && c.regime != "seed001" ? "†" : "");
  if (!r.workload_kind.empty() && c.regime == r.workload_kind) v = "**" + v + "**";
  return v;
}

std::string seeds_section(const ReportData& data, const std::vector<SeedRatio>& seeds) {
  std::vector<std::string> header{"source", "GPU", "their workload", "N", "mode", "theirs vs one process time-sliced"};
  std::vector<bool> right{false, false, false, true, false, true};
  for (const auto& s : data.series) {
    header.push_back(series_header(data, s));
    right.push_back(true);
  }
  MarkdownTable t(header, right);
  for (const SeedRatio& r : seeds) {
    std::vector<std::string> row{r.source_id,          r.gpu, r.their_workload, std::to_string(r.procs), r.mode,
                                 fmt_fixed(r.ratio, 2)};
    for (const auto& s : data.series) {
      const ReportCell* c = data.find(s, r.mode, r.procs);
      row.push_back(c ? ours_on_seed_basis(*c, r) : "-");
    }
    t.add_row(row);
  }
  std::string out =
      "Every ratio here is on the seeds' basis: the time at N over one process alone, time-sliced (their N=1 "
      "runs used no MPS). Where a seed timed completion (seed 001: N copies started together, until all had "
      "finished), ours is the same for series that give each process a fixed amount of work (exec; mlp's "
      "seed001 profile): the run's makespan over one copy's time-sliced. † marks per-task time instead, for a "
      "series that runs for a fixed time (a different measure). \"-\": we did not run that N and mode. Bold: our "
      "series in the seed's regime. Ideal: 1.00 under MPS while N copies fit on the GPU side by side; under "
      "time-slicing, N for work that keeps the GPU busy, less the more the GPU idles between steps.\n\n" +
      t.str() + "\nSources:\n\n";
  std::set<std::string> listed;
  for (const SeedRatio& r : seeds) {
    if (!listed.insert(r.source_id).second) continue;
    out += "- `" + r.source_id + "`: " + r.title + " (" + r.gpu + "; " + r.their_workload + "), " + r.reference + "\n";
  }
  return out;
}

/// A copy that reported at most one step (a program that prints its metric once, at the end) has
/// nearly its whole run before that step: its "start-up" is not one.
bool startup_is_whole_run(const ExecCell& c) { return std::isfinite(c.startup_s) && c.steps <= 1; }

/// The start-up cell: seconds and share of completion, marked where it is nearly the whole run.
std::string startup_cell(const ExecCell& c) {
  if (!std::isfinite(c.startup_s)) return "-";
  return fmt_fixed(c.startup_s, 2) + " (" + fmt_fixed(100 * c.startup_s / c.completion_s, 0) + "%)" +
         (startup_is_whole_run(c) ? " †" : "");
}

/// `value` over the anchor's median, and in brackets over its largest and smallest draw: "1.62x (1.41-1.88)";
/// the median alone where the anchor has one draw; "-" where either is missing.
std::string ratio_to_alone(double value, const Spread& anchor) {
  if (!std::isfinite(value) || !std::isfinite(anchor.median) || anchor.median <= 0) return "-";
  const std::string mid = fmt_times(value / anchor.median);
  if (anchor.count < 2 || anchor.min <= 0) return mid;
  return mid + " (" + fmt_fixed(value / anchor.max, 2) + "-" + fmt_fixed(value / anchor.min, 2) + ")";
}

/// Numbers in run order, "a, b, c" with `digits` decimals ("-" for a missing one).
std::string in_run_order(const std::vector<double>& values, int digits) {
  std::string out;
  for (double v : values) out += (out.empty() ? "" : ", ") + (std::isfinite(v) ? fmt_fixed(v, digits) : "-");
  return out;
}

/// "1.06-1.50 (+-17 %)": the spread of the alone runs around their median; "-" without two draws.
std::string alone_spread(const Spread& s, int digits) {
  if (s.count < 2 || !std::isfinite(s.median) || s.median <= 0) return "-";
  const double half = 100 * (s.max - s.min) / 2 / s.median;
  return fmt_fixed(s.min, digits) + "-" + fmt_fixed(s.max, digits) + " (+-" + fmt_fixed(half, 0) + " %)";
}

/// The exec alone runs of each mode: every draw in the order they ran, their median, spread and drift.
std::string exec_alone_table(const ReportData& data) {
  MarkdownTable t({"mode", "alone runs", "step ms, in run order", "median", "spread", "last / first",
                   "completion s, in run order", "median", "spread", "last / first"},
                  {false, true, false, true, false, true, false, true, false, true});
  for (const ExecAloneRuns& a : data.exec_alone) {
    const bool steps = std::isfinite(a.step.median);
    t.add_row({a.mode, std::to_string(a.run_ids.size()), steps ? in_run_order(a.step_ms, 3) : "-",
               steps ? fmt_fixed(a.step.median, 3) : "-", steps ? alone_spread(a.step, 3) : "-",
               std::isfinite(a.step_drift()) ? fmt_times(a.step_drift()) : "-", in_run_order(a.completion_s, 2),
               fmt_fixed(a.completion.median, 2), alone_spread(a.completion, 2),
               std::isfinite(a.completion_drift()) ? fmt_times(a.completion_drift()) : "-"});
  }
  return t.str();
}

/// The exec workload: completion, start-up and steps per mode and N, then what to distrust in them;
/// "" without exec runs.
std::string exec_section(const ReportData& data) {
  if (data.exec.empty()) return "";
  const ExecAloneRuns* alone = data.find_exec_alone(kTimesliceMode);
  const Spread none;
  MarkdownTable t({"mode", "N", "copies ok", "completion s", "start-up s", "steps", "step ms",
                   "step vs one copy time-sliced (alone runs' spread)", "completion vs one copy time-sliced"},
                  {false, true, true, true, true, true, true, true, true});
  for (const ExecCell& c : data.exec) {
    const bool steps = std::isfinite(c.step_ms);
    const std::string some =
        steps && c.copies_with_steps < c.copies
            ? " (" + std::to_string(c.copies_with_steps) + " of " + std::to_string(c.copies) + " copies)"
            : "";
    t.add_row({c.mode, std::to_string(c.procs), std::to_string(c.copies), fmt_fixed(c.completion_s, 2), startup_cell(c),
               steps ? fmt_fixed(c.steps, 0) : "-", steps ? fmt_fixed(c.step_ms, 3) + some : "-",
               steps ? ratio_to_alone(c.step_ms, alone ? alone->step : none) : "-",
               ratio_to_alone(c.completion_s, alone ? alone->completion : none)});
  }
  std::string notes;
  if (std::any_of(data.exec.begin(), data.exec.end(), startup_is_whole_run))
    notes +=
        "\n† One reported step per copy: a program that prints its metric once, at the end, spends nearly its "
        "whole run before that line, so this column measures the run, not its start-up.\n";
  for (const SlowFirstRun& slow : data.exec_slow_first)
    notes += "\n**First run slower than the rest**: " + describe_slow_first_run(slow) +
             ". Cold caches (files, CUDA's JIT, Python's bytecode) make a first run slow; more `--exec-warmups` "
             "(an untimed run of the command in each mode block before its timed ones) take that out.\n";
  const std::string alone_part =
      data.exec_alone.empty()
          ? ""
          : "\n**Alone runs.** One copy alone is not one number: each alone run below is a draw, in the order the "
            "sweep ran them (`--exec-alone-runs`: the repeats' own, then more after the largest N and in the "
            "middle of the ladder). The ratios above divide by the time-sliced draws' median; in brackets, by "
            "their largest and smallest draw. Last / first is the drift over the sweep (ideal: 1.00x).\n\n" +
                exec_alone_table(data);
  return "Each copy of the command ran once per run; completion is its start to its exit, start-up (imports, "
         "context creation, data set-up) the time before its first reported step, and its share of completion "
         "in brackets. Means over every copy of the ok runs. Step time against one copy alone time-sliced sees "
         "the sharing without the start-up; ideal: 1.00x under MPS.\n\n" +
         t.str() + notes + alone_part;
}

/// Seed 001 side by side on its own basis, for every series in its regime; "" if none or no seed 001 rows.
std::string seed001_section(const ReportData& data, const std::vector<SeedRatio>& seeds) {
  std::vector<std::string> ours;
  for (const auto& s : data.series)
    for (const ReportCell& c : data.cells)
      if (c.series == s && c.regime == "seed001") {
        ours.push_back(s);
        break;
      }
  std::map<int, std::map<std::string, const SeedRatio*>> theirs;  // N -> mode -> row
  for (const SeedRatio& r : seeds)
    if (r.workload_kind == "seed001" && r.metric == "completion_time") theirs[r.procs][r.mode] = &r;
  if (ours.empty() || theirs.empty()) return "";
  MarkdownTable t({"N", "", "time-sliced", "MPS", "time-sliced / MPS"}, {true, false, true, true, true});
  auto cell = [](double seconds, double ratio) {  // the seconds alone where there is no run alone to divide by
    if (!std::isfinite(seconds)) return std::string("-");
    return fmt_num(seconds, 3) + " s" + (std::isfinite(ratio) ? " (" + fmt_fixed(ratio, 2) + "x)" : std::string());
  };
  for (const auto& [n, modes] : theirs) {
    const SeedRatio* ts = modes.count(kTimesliceMode) ? modes.at(kTimesliceMode) : nullptr;
    const SeedRatio* mp = modes.count(kMpsMode) ? modes.at(kMpsMode) : nullptr;
    t.add_row({std::to_string(n), "seed 001 (" + (ts ? ts->gpu : mp->gpu) + ")", ts ? cell(ts->value, ts->ratio) : "-",
               mp ? cell(mp->value, mp->ratio) : "-", ts && mp ? fmt_fixed(ts->value / mp->value, 2) : "-"});
    for (const auto& s : ours) {
      const ReportCell* cts = data.find(s, kTimesliceMode, n);
      const ReportCell* cmp = data.find(s, kMpsMode, n);
      t.add_row({std::to_string(n), "ours: " + s,
                 cts ? cell(cts->makespan_s.median, cts->makespan_vs_timeslice_alone.median) : "-",
                 cmp ? cell(cmp->makespan_s.median, cmp->makespan_vs_timeslice_alone.median) : "-",
                 cts && cmp && cmp->makespan_s.median > 0 && std::isfinite(cts->makespan_s.median)
                     ? fmt_fixed(cts->makespan_s.median / cmp->makespan_s.median, 2)
                     : "-"});
    }
  }
  // How long one step of ours took alone, beside the seed's 85 ms: what time-slicing's cost per
  // synchronising step is weighed against (docs/SEED001.md).
  std::string steps_line;
  for (const auto& s : ours) {
    const ReportCell* alone = data.find(s, kTimesliceMode, 1);
    if (!alone || !std::isfinite(alone->task_mean_ms.median)) continue;
    double step_ms = NAN;
    const double steps = param_number(alone->params, "steps_per_task");
    if (parse_workload_kind(alone->workload) == WorkloadKind::mlp && std::isfinite(steps)) {
      step_ms = alone->task_mean_ms.median / steps;
    } else {
      for (const ExecCell& e : data.exec)
        if (e.mode == kTimesliceMode && e.procs == 1) step_ms = e.step_ms;
    }
    if (std::isfinite(step_ms)) steps_line += (steps_line.empty() ? "" : "; ") + s + ": " + fmt_num(step_ms, 3) + " ms";
  }
  if (!steps_line.empty())
    steps_line =
        "\n\nOne step alone, time-sliced: " + steps_line +
        "; seed 001's: 85 ms (80 s / 938 steps). In our measurements (docs/SEED001.md) time-slicing behaved as "
        "if every step that waits for the GPU paid for the other processes' turns, a cost that weighs more "
        "the shorter the step: a likely reason a short step loses far more than theirs at the same duty cycle.";
  return "Seed 001 timed N copies of PyTorch's MNIST training started together until the last had finished, "
         "against one copy alone (time-sliced). Ours is the same: each run's makespan (median over repeats) and, "
         "in brackets, its ratio to one copy alone time-sliced (the two medians); time-sliced / MPS divides the "
         "two makespans beside it (above 1: MPS finished sooner), as seed 001's row divides its two times. Ideal: MPS "
         "1.00x while the copies fit side by side; time-sliced between "
         "1x (a GPU idle most of the time) and Nx (a GPU kept busy). Their P100 ran an 85 ms step (80 s for "
         "938 steps); what sets ours apart is in docs/SEED001.md." +
         steps_line + "\n\n" + t.str();
}

}  // namespace

std::string results_verdict(const ReportData& data, const SweepMeta& meta) {
  const std::string mps = verdict_mps_mode(data);
  std::string clauses;
  for (const auto& s : data.series) {
    const std::string c = verdict_clause(data, s, mps, clauses.empty());
    if (!c.empty()) clauses += (clauses.empty() ? "" : "; ") + c;
  }
  if (clauses.empty()) clauses = "no configuration could be set against another";
  return "On " + gpu_and_driver(meta) + ", " + clauses + " (" + runs_phrase(data) + ")." + unfinished_phrase(meta);
}

std::string render_results_report(const ReportData& data, const SweepMeta& meta, const std::vector<SeedRatio>& seeds,
                                  const PlotPlan& plan, const std::string& folder_name) {
  std::string md = results_verdict(data, meta) + "\n\n# bench_mps report: " + folder_name + "\n\n";
  md +=
      "Rendered by `bench_mps report` from meta.json, summary.csv and tasks.csv; see docs/REPORT.md for "
      "how to read it. Statistics count only runs with status ok: " +
      runs_phrase(data) + ".\n\n" +
      (data.tasks_note.empty() ? std::string() : "**Note:** " + data.tasks_note + ".\n\n") + "## Machine\n\n" +
      machine_markdown(meta);
  md += "\n## Figures\n\n";
  for (const FigureInfo& f : plan.figures) md += "### " + f.title + "\n\n" + figure_markdown(f);
  for (const std::string& why : plan.not_drawn) md += "Not drawn: " + why + ".\n\n";
  md +=
      "## Per workload, mode and N\n\n"
      "Median over the ok repeats, (min–max) where they differ. Per-task ms is the mean task time of a run. "
      "Each ratio names its basis and divides the medians this table shows (so a ratio always agrees with the "
      "cells it is computed from); in brackets, the range of the same ratio taken per repeat, each run against "
      "its partner run of the same repeat (reaching the point where repeats added for the noise target, which "
      "have no partner, move the medians outside it): *vs one process time-sliced* divides by the time-sliced N=1 row "
      "(seed 000's basis, time per task; seed 001's, the completion of all N, has its own section below; ideal "
      "time-slicing gives N, ideal sharing 1, and an MPS mode's own cost shows at N=1); *vs N=1, same mode* by "
      "the same mode's N=1 row "
      "(ideal sharing: 1, so a limit's cost does not show there); *vs time-sliced, same N* by the time-sliced "
      "row at this N; *vs unlimited MPS* (active-thread limits only) by the unlimited `mps` row at this N "
      "(1 = the limit costs nothing).\n\n" +
      results_table(data);
  if (const std::string m = memory_bandwidth_section(data); !m.empty()) md += "\n## Memory bandwidth (membw)\n\n" + m;
  md += "\n## GPU activity\n\n" + gpu_activity_section(data, meta.gpu);
  if (const std::string t = timing_section(meta.timing); !t.empty()) md += "\n## Where the sweep's time went\n\n" + t;
  if (const std::string e = exec_section(data); !e.empty()) md += "\n## Your program (exec)\n\n" + e;
  md += "\n## Beside the seed articles\n\n" + seeds_section(data, seeds);
  if (const std::string s001 = seed001_section(data, seeds); !s001.empty())
    md += "\n### Seed 001 on its own basis\n\n" + s001;
  md += "\n## Failed runs\n\n";
  if (data.failed.empty()) md += "None.\n";
  for (const FailedRun& f : data.failed)
    md += "- `" + f.run_id + "`: " + to_string(f.status) + (f.reason.empty() ? "" : " (" + one_line(f.reason) + ")") +
          "\n";
  return md;
}

}  // namespace bench_mps::harness
