#include "harness/report.hpp"

#include <CLI/CLI.hpp>

#include "harness/errors.hpp"

namespace bench_mps::harness {

CLI::App* add_report_command(CLI::App& app, ReportArgs& args) {
  auto* cmd = app.add_subcommand("report", "render report.md and plots/ for a results folder");
  cmd->add_option("dir", args.dir, "results folder")->required();
  return cmd;
}

int run_report(const ReportArgs&) { throw UsageError("report: not implemented yet"); }

}  // namespace bench_mps::harness
