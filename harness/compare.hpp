#pragma once
// `bench_mps compare BASE NEW`: pairs the runs of two results folders by configuration and says, per
// pair, whether NEW is the SAME, FASTER, SLOWER than BASE, or UNSURE. See docs/COMPARE.md.
#include <string>

namespace CLI {
class App;
}

namespace bench_mps::harness {

struct CompareArgs {
  std::string base, next;
};

/// Registers the `compare` subcommand on `app`; returns it.
CLI::App* add_compare_command(CLI::App& app, CompareArgs& args);

/// Returns the exit code (1 with --fail-on-regression when a pair is SLOWER beyond the threshold).
int run_compare(const CompareArgs& args);

}  // namespace bench_mps::harness
