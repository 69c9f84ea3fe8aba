#pragma once
// `bench_mps conform`'s options, help text (examples, verdicts, exit codes) and their checks.
#include "harness/conform/wing.hpp"

#include "harness/conform/conform_spec.hpp"

namespace CLI {
class App;
}

namespace bench_mps::harness {

/// Adds the `conform` subcommand to `app`, bound to `spec`.
CLI::App* add_conform_command(CLI::App& app, ConformSpec& spec);

}  // namespace bench_mps::harness
