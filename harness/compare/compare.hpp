#pragma once
// `bench_mps compare BASE NEW`: pairs the runs of two results folders by configuration and says, per
// pair, whether NEW is the SAME, FASTER, SLOWER than BASE, or UNSURE. See docs/COMPARE.md.
#include "harness/compare/wing.hpp"

#include <string>
#include <vector>

#include "harness/compare/compare_runs.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace bench_mps::harness {

struct CompareArgs {
  std::string base, next;
  std::string metric = "throughput";            ///< throughput | p50 | p99
  double threshold_pct = kDefaultThresholdPct;  ///< --threshold, percent
  double alpha = 0.05;
  bool fail_on_regression = false;
  bool fail_on_insufficient = false;  ///< exit 1 where a configuration was not measured enough to say
  bool allow_different_gpu = false;
  bool ignore_params = false;
  std::string md_file, csv_file, out_dir;  ///< empty: not written
  std::string format = "text";             ///< what stdout carries: text, json, bencher, github-benchmark, markdown
  /// The options that only apply to results folders (--metric, --threshold, --alpha, --ignore-params), as
  /// registered: given on two conform folders they are refused, not ignored.
  std::vector<const CLI::Option*> results_only;
};

/// Registers the `compare` subcommand on `app`; returns it.
CLI::App* add_compare_command(CLI::App& app, CompareArgs& args);

/// Returns the exit code (1 with --fail-on-regression when a pair is SLOWER beyond the threshold, 1 with
/// --fail-on-insufficient when a pair is INSUFFICIENT).
/// Bad options or input folders throw UsageError/ResultsError (exit 2) before anything is written.
int run_compare(const CompareArgs& args);

}  // namespace bench_mps::harness
