#pragma once
// Runs a whole sweep: preflight, results folder, one MPS daemon per MPS block, every planned run,
// durable rows after each, the final table. Returns the exit code.
#include "harness/sweep/wing.hpp"

#include "harness/plan/sweep_spec.hpp"

namespace bench_mps::harness {

/// Throws UsageError (exit 2) or EnvironmentError (exit 3) before anything is written.
int run_sweep(const SweepSpec& spec);

}  // namespace bench_mps::harness
