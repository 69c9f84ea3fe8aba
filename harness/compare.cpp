#include "harness/compare.hpp"

#include <CLI/CLI.hpp>

#include "harness/errors.hpp"

namespace bench_mps::harness {

CLI::App* add_compare_command(CLI::App& app, CompareArgs& args) {
  auto* cmd = app.add_subcommand("compare", "compare two results folders (driver upgrade, other GPU)");
  cmd->add_option("base", args.base, "baseline results folder")->required();
  cmd->add_option("new", args.next, "new results folder")->required();
  return cmd;
}

int run_compare(const CompareArgs&) { throw UsageError("compare: not implemented yet"); }

}  // namespace bench_mps::harness
