#pragma once
// What a sweep prints: one progress line per run as it is recorded (its scenario's figures through its
// hooks), and the closing tables chosen by --scenario when the sweep ends.
#include "harness/sweep/wing.hpp"

#include <filesystem>
#include <ostream>
#include <vector>

#include "harness/plan/scenario.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/run_record.hpp"

namespace bench_mps::harness {

/// "[done/total] <run id>: <status>  <its scenario's figures>  [seconds]" on stderr.
void print_progress(const RunRecord& r, int done, int total, double seconds);
/// The progress figures of a workload's run: per-task time, throughput, and its burst and busy share.
void plain_progress(std::ostream& out, const RunScenario& scenario, const SummaryRow& s);

/// What the closing tables are made from; a row may add to meta.json (the X-ray's medians).
struct ClosingInput {
  const std::vector<SummaryRecord>& records;  ///< every run recorded (a resumed sweep's earlier ones too)
  const std::filesystem::path& out;           ///< the results folder (its summary.csv)
  SweepMeta& meta;
};
/// Prints a sweep's closing tables; true where it changed `meta` (to be saved).
using ClosingTables = bool (*)(std::ostream&, ClosingInput&);
/// The closing tables of a sweep of `scenario` (one row per --scenario).
ClosingTables closing_tables(Scenario scenario);

}  // namespace bench_mps::harness
