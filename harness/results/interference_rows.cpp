#include "harness/results/interference_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/packed_files.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/results/co_run.hpp"

namespace bench_mps::harness {
namespace {

std::string ratio(double x) { return std::isnan(x) ? "-" : fmt_fixed(x, 2) + "x"; }
std::string ms(double x) { return std::isnan(x) ? "-" : fmt_num(x, 3); }

/// Where a side-by-side row lacks fg_overlap, its overlap from the run's tasks.
void fill_overlap_from_tasks(std::vector<SummaryRecord>& rows, const std::vector<TaskSample>& tasks) {
  std::map<std::string, std::vector<TaskSpan>> spans;
  for (const TaskSample& t : tasks) spans[t.run_id].push_back({t.worker, t.start_ms, t.start_ms + t.duration_ms});
  for (SummaryRecord& r : rows)
    if (r.scenario == RunKind::interference && std::isnan(r.fg_overlap))
      if (const auto it = spans.find(r.run_id); it != spans.end()) r.fg_overlap = share_beside_all(it->second, 0);
}

}  // namespace

std::string overlap_percent(double overlap) {
  return std::isnan(overlap) ? "-" : fmt_fixed(std::floor(1000 * overlap) / 10, 1) + " %";
}

std::string not_side_by_side_note(double overlap, const std::string& lengths) {
  return "not side by side: every background job ran during only " + overlap_percent(overlap) +
         " of the foreground's timed span (" + (lengths.empty() ? "" : lengths + "; ") + "a side-by-side run needs " +
         fmt_fixed(100 * kMinCoRunCoverage, 0) + " %); left out";
}

int fill_missing_overlap(const std::filesystem::path& dir, std::vector<SummaryRecord>& rows) {
  const auto lacks = [](const SummaryRecord& r) {
    return r.scenario == RunKind::interference && r.status == RunStatus::ok && std::isnan(r.fg_overlap);
  };
  if (std::none_of(rows.begin(), rows.end(), lacks)) return 0;
  if (exists_or_packed(dir / "tasks.csv")) fill_overlap_from_tasks(rows, read_tasks(dir / "tasks.csv"));
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), lacks));
}

bool ran_side_by_side(const SummaryRow& row) {
  return std::isnan(row.fg_overlap) || row.fg_overlap >= kMinCoRunCoverage;
}

std::vector<InterferenceCell> aggregate_interference_runs(const std::vector<SummaryRecord>& rows) {
  std::vector<std::string> modes;
  std::map<std::string, std::vector<const SummaryRecord*>> alone;                  // by mode
  std::map<std::pair<std::string, int>, std::vector<const SummaryRecord*>> mixed;  // by mode, N
  for (const SummaryRecord& r : rows) {
    if (!r.scenario.is_interference()) continue;
    if (std::find(modes.begin(), modes.end(), r.mode) == modes.end()) modes.push_back(r.mode);
    if (r.scenario == RunKind::interference_fg && r.status == RunStatus::ok) alone[r.mode].push_back(&r);
    if (r.scenario == RunKind::interference) mixed[{r.mode, r.procs}].push_back(&r);
  }
  std::vector<InterferenceCell> cells;
  for (const std::string& mode : modes)
    for (const auto& [key, list] : mixed) {
      if (key.first != mode) continue;
      InterferenceCell c;
      c.mode = mode;
      c.procs = key.second;
      std::vector<double> p50, p95, p99, vs, tput, kept, a50, a99;
      for (const SummaryRecord* r : list) {
        ++c.runs;
        if (r->status != RunStatus::ok) {
          ++c.failed;
          continue;
        }
        if (!ran_side_by_side(*r)) {
          ++c.not_side_by_side;
          continue;
        }
        p50.push_back(r->fg_latency_p50_ms);
        p95.push_back(r->fg_latency_p95_ms);
        p99.push_back(r->fg_latency_p99_ms);
        vs.push_back(r->fg_p99_vs_alone);
        tput.push_back(r->fg_throughput_vs_alone);
        kept.push_back(r->bg_throughput_kept);
      }
      for (const SummaryRecord* r : alone[mode]) {
        a50.push_back(r->fg_latency_p50_ms);
        a99.push_back(r->fg_latency_p99_ms);
      }
      c.p50_ms = median_finite(p50);
      c.p95_ms = median_finite(p95);
      c.p99_ms = median_finite(p99);
      c.throughput_vs_alone = median_finite(tput);
      c.bg_kept = median_finite(kept);
      c.alone_p50_ms = median_finite(a50);
      c.alone_p99_ms = median_finite(a99);
      // The ratio shown beside "alone -> beside" is computed from those two medians, so the cells agree; the
      // per-repeat ratios (each repeat over its own alone run) give its range.
      c.p99_vs_alone = c.alone_p99_ms > 0 ? c.p99_ms / c.alone_p99_ms : NAN;
      vs.erase(std::remove_if(vs.begin(), vs.end(), [](double x) { return std::isnan(x); }), vs.end());
      c.p99_vs_alone_runs = vs;
      if (!vs.empty()) {
        c.p99_vs_alone_min = *std::min_element(vs.begin(), vs.end());
        c.p99_vs_alone_max = *std::max_element(vs.begin(), vs.end());
        // The point, a ratio of medians, may lie outside the per-repeat ratios (each written rounded; repeats
        // without a partner): the range reaches it, as the main tables' do (report_data's point_from_medians).
        if (std::isfinite(c.p99_vs_alone)) {
          c.p99_vs_alone_min = std::min(c.p99_vs_alone_min, c.p99_vs_alone);
          c.p99_vs_alone_max = std::max(c.p99_vs_alone_max, c.p99_vs_alone);
        }
      }
      cells.push_back(c);
    }
  return cells;
}

std::string interference_verdict(const std::vector<InterferenceCell>& cells) {
  std::string out;
  std::vector<int> ns;
  for (const auto& c : cells)
    if (std::find(ns.begin(), ns.end(), c.procs) == ns.end()) ns.push_back(c.procs);
  for (int n : ns) {
    const InterferenceCell* best = nullptr;
    const InterferenceCell* next = nullptr;  // the runner-up: "best" is decided against it
    const InterferenceCell* timeslice = nullptr;
    int measured = 0;
    std::string apart;  // modes whose side-by-side runs at N all ran apart: said, not weighed
    for (const auto& c : cells)
      if (c.procs == n && std::isnan(c.p99_vs_alone) && c.not_side_by_side > 0)
        apart += (apart.empty() ? "" : ", ") + c.mode;
    for (const auto& c : cells) {
      if (c.procs != n || std::isnan(c.p99_vs_alone)) continue;
      ++measured;
      if (!best || c.p99_vs_alone < best->p99_vs_alone) {
        next = best;
        best = &c;
      } else if (!next || c.p99_vs_alone < next->p99_vs_alone) {
        next = &c;
      }
      if (c.mode == kTimesliceMode) timeslice = &c;
    }
    if (!best) continue;
    // One mode measured at N protects nothing "best": it is said as measured, beside nothing. Two or more: best
    // only where its repeats' ratios lie below the runner-up's with the interval wholly under 1x.
    const RatioInterval over_next =
        next ? ratio_of_means(best->p99_vs_alone_runs, next->p99_vs_alone_runs) : RatioInterval{NAN, NAN, NAN};
    const bool decided = over_next.has_interval() && over_next.hi < 1;
    // A ratio of means of the repeats' own ratios (not of the medians the point before it divides): said as such.
    const std::string against =
        next ? " (the mean of its repeats' p99-over-alone ratios is " +
                   fmt_times_interval(over_next, " (no interval: under two repeats on a side)", ", ~94 %") + " " +
                   next->mode + "'s)"
             : std::string();
    out += (out.empty() ? "" : " ") + std::string("At N=") + std::to_string(n) + ", " + best->mode +
           (measured == 1 ? (apart.empty() ? std::string(" (the only mode measured there)")
                                           : " (the only mode with runs side by side there; " + apart +
                                                 ": not side by side, left out)") +
                                " keeps the foreground's p99 latency at "
            : decided ? " protects the foreground best: its p99 latency is "
                      : " had the lowest p99 latency over its own alone, but which mode protects the foreground "
                        "best cannot be "
                        "told from these repeats: its p99 latency is ") +
           ratio(best->p99_vs_alone) + " its own alone" + against;
    if (timeslice && timeslice != best) out += " (time-sliced: " + ratio(timeslice->p99_vs_alone) + ")";
    out += ", and the background keeps " +
           (std::isnan(best->bg_kept) ? std::string("-") : fmt_fixed(best->bg_kept, 2)) + " of its throughput alone";
    if (timeslice && timeslice != best && !std::isnan(timeslice->bg_kept))
      out += " (time-sliced: " + fmt_fixed(timeslice->bg_kept, 2) + ")";
    out += ".";
  }
  return out;
}

void print_interference_table(std::ostream& out, const std::vector<InterferenceCell>& cells) {
  if (cells.empty()) return;
  char line[512];
  std::snprintf(line, sizeof line, "%-16s %4s %14s %14s %14s %16s %16s\n", "mode", "N", "fg p50 ms", "fg p99 ms",
                "p99 vs alone", "fg tput vs alone", "background kept");
  out << "\ninterference (the foreground beside N-1 background jobs; medians over repeats; alone -> beside)\n" << line;
  for (const InterferenceCell& c : cells) {
    std::string failed = c.failed ? std::to_string(c.failed) + " run(s) failed" : "";
    if (c.not_side_by_side)
      failed += (failed.empty() ? "" : ", ") + std::to_string(c.not_side_by_side) + " not side by side";
    if (!failed.empty()) failed = "  (" + failed + ")";
    std::snprintf(line, sizeof line, "%-16s %4d %14s %14s %14s %16s %16s%s\n", c.mode.c_str(), c.procs,
                  (ms(c.alone_p50_ms) + " -> " + ms(c.p50_ms)).c_str(),
                  (ms(c.alone_p99_ms) + " -> " + ms(c.p99_ms)).c_str(), ratio(c.p99_vs_alone).c_str(),
                  ratio(c.throughput_vs_alone).c_str(), std::isnan(c.bg_kept) ? "-" : fmt_fixed(c.bg_kept, 2).c_str(),
                  failed.c_str());
    out << line;
  }
  if (const std::string v = interference_verdict(cells); !v.empty()) out << v << "\n";
  if (std::any_of(cells.begin(), cells.end(), [](const InterferenceCell& c) { return c.not_side_by_side > 0; }))
    out << "not side by side: a run in which every background job ran during less than "
        << fmt_fixed(100 * kMinCoRunCoverage, 0)
        << " % of the foreground's timed span (summary.csv's fg_overlap) is left out of its cell: "
        << kNotSideBySideHint << "\n";
}

}  // namespace bench_mps::harness
