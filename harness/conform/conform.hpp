#pragma once
// `bench_mps conform`: does each MPS lever hold on this driver and GPU? Runs each lever's child
// sweeps (harness/tools/child_sweeps) within one time budget, judges them (harness/conform/levers)
// and writes conform.json / .csv / .md (harness/results/conform_rows). See docs/CONFORM.md.
#include "harness/conform/wing.hpp"

#include <string>
#include <vector>

#include "harness/conform/conform_spec.hpp"

namespace bench_mps::harness {

/// Returns the exit code: 0 every row PASS or SKIP, 1 a row FAIL or ERROR, 128+N stopped by signal N.
/// Throws UsageError (exit 2) or EnvironmentError (exit 3) before anything is written.
/// The options every child sweep of conform gets (after its own): one repeat, no settle, and `device` where
/// one is named.
std::vector<std::string> conform_common_args(const std::string& device);

int run_conform(const ConformSpec& spec);

}  // namespace bench_mps::harness
