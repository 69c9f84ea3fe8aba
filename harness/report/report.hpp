#pragma once
// `bench_mps report DIR`: renders DIR/report.md and DIR/plots/*.png|svg from a results folder, with
// the seed articles' figures (results/seeds.csv) beside ours, or from a comparison folder written by
// `bench_mps compare --out`. See docs/REPORT.md.
#include "harness/report/wing.hpp"

#include <string>

namespace CLI {
class App;
}

namespace bench_mps::harness {

struct ReportArgs {
  std::string dir;    ///< a results folder, or a folder written by `bench_mps compare --out`
  std::string seeds;  ///< seeds.csv; empty: $BENCH_MPS_SEEDS, else results/seeds.csv of the source tree
};

/// Registers the `report` subcommand on `app`; returns it.
CLI::App* add_report_command(CLI::App& app, ReportArgs& args);

/// Returns the exit code; throws ResultsError/UsageError (exit 2) for a folder it cannot use,
/// EnvironmentError (exit 3) without matplotlib or the plotting script; writes nothing then.
int run_report(const ReportArgs& args);

}  // namespace bench_mps::harness
