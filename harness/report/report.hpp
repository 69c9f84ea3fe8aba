#pragma once
// `bench_mps report DIR`: renders DIR/report.md and DIR/plots/*.png from a results folder, with
// the seed articles' figures (results/seeds.csv) beside ours, or from a comparison folder written by
// `bench_mps compare --out`; for a folder of many results folders, the fleet report (report_fleet.hpp).
// See docs/REPORT.md.
#include "harness/report/wing.hpp"

#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace bench_mps::harness {

struct ReportArgs {
  std::string dir;                 ///< a results folder, or a folder written by `bench_mps compare --out`
  std::string seeds;               ///< seeds.csv; empty: $BENCH_MPS_SEEDS, else results/seeds.csv of the source tree
  std::vector<std::string> place;  ///< regimes: results folders whose workloads go on the map (--place)
  std::vector<std::string> forget_place;  ///< regimes: folders to drop from DIR/places.json (--forget-place)
  // A folder of many results folders (the fleet report, harness/report/report_fleet.hpp):
  double threshold_pct = -1;  ///< --threshold; < 0: compare's default
  std::string metric = "throughput";
  const CLI::Option* fleet_options[2] = {nullptr, nullptr};  ///< --threshold, --metric: given only for a fleet
};

/// Registers the `report` subcommand on `app`; returns it.
CLI::App* add_report_command(CLI::App& app, ReportArgs& args);

/// Returns the exit code; throws ResultsError/UsageError (exit 2) for a folder it cannot use,
/// EnvironmentError (exit 3) without matplotlib or the plotting script; writes nothing then.
int run_report(const ReportArgs& args);

}  // namespace bench_mps::harness
