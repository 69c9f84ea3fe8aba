#pragma once
// How one run's workers are started: their command lines (the workload's arguments, the length, the
// in-process layout, each scenario's roles through its hooks), their environment (the MPS client
// variables per worker, what a user's command may want to know) and their cores.
#include "harness/sweep/wing.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

#include "harness/plan/sweep_spec.hpp"
#include "harness/sweep/preflight.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {

class MpsSession;

/// An exec worker kills its command itself at --timeout (and reports it); the pool's own limit, a little
/// later, is the backstop for a worker that cannot.
inline constexpr double kExecTimeoutMargin_s = 10;

/// "0=512M": CUDA_MPS_PINNED_DEVICE_MEM_LIMIT for the client's device (ordinal 0 of what it sees).
std::string pinned_limit_value(std::uint64_t bytes);
/// The workers of run `run`: processes (timeslice, mps) or one process with N instances (in-process).
int worker_processes(const RunSpec& run);
/// exec as the run's workload or as its background: its copies log, and get a margin on --timeout.
bool has_user_program(const RunSpec& run);

/// The launch of `run`'s workers; `session` null when time-sliced; exec's logs under `out_dir`/exec/<run>.
WorkerLaunch make_launch(const SweepSpec& spec, const RunSpec& run, const Environment& env, MpsSession* session,
                         const std::filesystem::path& out_dir);
/// The pool's limits for `run`: --ready-timeout, and --timeout (exec's with its margin).
PoolLimits run_limits(const SweepSpec& spec, const RunSpec& run);

}  // namespace bench_mps::harness
