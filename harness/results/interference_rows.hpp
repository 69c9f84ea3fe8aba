#pragma once
// The interference scenario's runs (just measured, or read back from summary.csv: the same
// SummaryRecord), grouped per mode and N: the foreground alone, the background alone and both side by
// side. The sweep prints them, the report renders them.
#include "harness/results/wing.hpp"

#include <cmath>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// One mode and N over the repeats: medians of the ok side-by-side runs, beside the foreground's
/// own figures alone (its interference_fg runs in that mode).
struct InterferenceCell {
  std::string mode;
  int procs = 0, runs = 0, failed = 0;
  int not_side_by_side = 0;  ///< ok runs whose fg_overlap was under kMinCoRunCoverage: counted in runs, left out
  double alone_p50_ms = NAN, alone_p99_ms = NAN;
  double p50_ms = NAN, p95_ms = NAN, p99_ms = NAN, p99_vs_alone = NAN, throughput_vs_alone = NAN, bg_kept = NAN;
  double p99_vs_alone_min = NAN, p99_vs_alone_max = NAN;
  std::vector<double> p99_vs_alone_runs;  ///< each ok repeat's p99 over its own alone run (the verdict's samples)
};

/// A side-by-side run's note where the background jobs ran beside its foreground for only `overlap` of the
/// foreground's timed span: "not side by side: ... only 79.5 % of ...; left out"; `lengths` (may be "") says the two
/// sides' spans.
std::string not_side_by_side_note(double overlap, const std::string& lengths = "");
/// An overlap as a percent that never rounds up to the threshold: 0.7951 is "79.5 %", 0.8 "80.0 %".
std::string overlap_percent(double overlap);
/// What to do about runs not side by side, for the sweep's table and the report.
inline constexpr const char* kNotSideBySideHint =
    "make the shorter side's run longer (an exec program runs once, whatever --duration says; summary.csv's reason "
    "names both sides' lengths)";

/// Whether an ok side-by-side run ran its foreground beside every background job (fg_overlap of at least
/// kMinCoRunCoverage; a folder written before the column, whose overlap is unknown, counts).
bool ran_side_by_side(const SummaryRow& row);

/// Where a side-by-side row of `rows` lacks fg_overlap (a folder written before the column), its overlap from the run's
/// tasks in `dir`/tasks.csv (or its packed copy), read only where some row lacks it; returns how many ok side-by-side
/// rows still lack it (no tasks.csv): counted as side by side, unknown.
int fill_missing_overlap(const std::filesystem::path& dir, std::vector<SummaryRecord>& rows);

/// Cells of the scenario's runs in `rows` (interference, interference_fg; other rows are left out), in
/// order of the modes' first appearance, then N; a side-by-side run not run side by side is counted, not used.
std::vector<InterferenceCell> aggregate_interference_runs(const std::vector<SummaryRecord>& rows);

/// "mps:auto keeps the foreground's p99 latency at 1.4x alone (timeslice 47x) and the background's
/// throughput at 0.99": which mode protected the foreground best at N, and at what cost; "best" only where the
/// ~94 % interval of its repeats' ratios over the next best mode's (ratio_of_means) lies wholly below 1x, else it
/// says it cannot tell. Empty without cells.
std::string interference_verdict(const std::vector<InterferenceCell>& cells);

/// The sweep's closing table of the scenario.
void print_interference_table(std::ostream& out, const std::vector<InterferenceCell>& cells);

}  // namespace bench_mps::harness
