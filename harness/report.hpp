#pragma once
// `bench_mps report DIR`: renders DIR/report.md and DIR/plots/*.png|svg from a results folder, with
// the seed articles' figures (results/seeds.csv) beside ours. See docs/REPORT.md.
#include <string>

namespace CLI {
class App;
}

namespace bench_mps::harness {

struct ReportArgs {
  std::string dir;
};

/// Registers the `report` subcommand on `app`; returns it.
CLI::App* add_report_command(CLI::App& app, ReportArgs& args);

/// Returns the exit code; throws ResultsError/UsageError (exit 2) for a folder it cannot use.
int run_report(const ReportArgs& args);

}  // namespace bench_mps::harness
