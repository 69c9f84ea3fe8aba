// bench_mps: how much do processes sharing one GPU lose to time-slicing, and how much does MPS win
// back? See README.md for the commands and docs/RESULTS.md for what they write.
#include <CLI/CLI.hpp>
#include <iostream>

#include "harness/compare.hpp"
#include "harness/errors.hpp"
#include "harness/format.hpp"
#include "harness/report.hpp"
#include "harness/resume.hpp"
#include "harness/sweep.hpp"
#include "harness/sweep_cli.hpp"

using namespace bench_mps::harness;

int main(int argc, char** argv) {
  CLI::App app{"bench_mps: N processes sharing one GPU, time-sliced vs NVIDIA MPS.\n"
               "Example: bench_mps --procs 1,4,10"};
  SweepSpec spec;
  SweepCliValues raw;
  add_sweep_options(app, spec, raw);
  ReportArgs report;
  CLI::App* report_cmd = add_report_command(app, report);
  CompareArgs compare;
  CLI::App* compare_cmd = add_compare_command(app, compare);
  spec.argv.assign(argv, argv + argc);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "bench_mps: error: " << one_line(e.what()) << "\n";
    return kExitUsage;
  }

  try {
    if (report_cmd->parsed()) return run_report(report);
    if (compare_cmd->parsed()) return run_compare(compare);
    finalize_sweep_spec(spec, raw);
    if (spec.resume && !sweep_defined_on_command_line(app)) {
      // `--resume DIR` alone: the sweep is the one DIR/meta.json stored.
      SweepSpec stored = stored_sweep(spec.out_dir);
      stored.out_dir = spec.out_dir;
      stored.resume = true;
      stored.worker_exe = spec.worker_exe;
      spec = stored;
    }
    return run_sweep(spec);
  } catch (const UsageError& e) {
    std::cerr << "bench_mps: error: " << one_line(e.what()) << "\n";
    return kExitUsage;
  } catch (const EnvironmentError& e) {
    std::cerr << "bench_mps: " << one_line(e.what()) << "\n";
    return kExitEnvironment;
  } catch (const std::exception& e) {
    std::cerr << "bench_mps: failed: " << one_line(e.what()) << "\n";
    return kExitFailed;
  }
}
