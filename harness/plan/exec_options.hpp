#pragma once
// The sweep options that do not apply to exec: the user's program runs once per worker and run, from
// a fresh process, so --tasks, --duration, --rounds and --warmup have nothing to count for it (exec
// has no in-process warm-up; its warm-up is an untimed run of the command itself, --exec-warmups).
// Given for a sweep of exec alone they are refused (exit 2); beside other workloads they apply to
// those, and one line on screen says they do not apply to exec.
#include "harness/plan/wing.hpp"

#include <string>
#include <vector>

#include "harness/plan/sweep_spec.hpp"

namespace bench_mps::harness {

/// Whether `text` is a start gate point --exec-gate takes: steady, off, first-kernel or wait:K (K >= 1).
bool is_exec_gate(const std::string& text);

/// Whether a workload of `spec` runs the user's program (exec).
bool has_exec(const SweepSpec& spec);

/// Throws UsageError where the environment asks the start gate of `spec`'s exec copies for what it does not do
/// (BENCH_MPS_GATE_CALLBACKS none of detach, unsubscribe, keep); nothing where no copy is gated.
void check_gate_environment(const SweepSpec& spec);

/// Throws UsageError naming the first such option given when every workload of `spec` is exec.
void check_exec_only_options(const SweepSpec& spec);

/// For a sweep of exec beside other workloads: a line naming the options given that exec ignores.
std::vector<std::string> exec_option_notes(const SweepSpec& spec);

}  // namespace bench_mps::harness
