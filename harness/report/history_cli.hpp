#pragma once
// `bench_mps history DIR...`: results folders (or one folder of folders) ordered by driver version, then date;
// per configuration a series of its worker-set means, the changes that persisted (history.hpp), history.md,
// .csv, .json and a figure per workload. See docs/COMPARE.md "history".
#include "harness/report/wing.hpp"

#include <string>
#include <vector>

#include "harness/compare/compare_runs.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace bench_mps::harness {

struct HistoryArgs {
  std::vector<std::string> dirs;
  std::string metric = "throughput";
  double threshold_pct = kDefaultThresholdPct;
  double alpha = 0.05;
  bool allow_different_testbeds = false;
  bool fail_on_regression = false;
  bool fail_on_insufficient = false;
  std::string out_dir;          ///< empty: nothing written, the Markdown (or --format) on stdout
  std::string format = "text";  ///< text, json, bencher, github-benchmark, markdown
};

CLI::App* add_history_command(CLI::App& app, HistoryArgs& args);

/// The exit code: 1 with --fail-on-regression where a series changed for the worse, with
/// --fail-on-insufficient where a series' newest point is INSUFFICIENT; bad input throws (exit 2) before
/// anything is written.
int run_history(const HistoryArgs& args);

}  // namespace bench_mps::harness
