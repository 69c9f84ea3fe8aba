#pragma once
// Which CPU cores the workers and the harness run on. Each worker gets a core of its own; the harness
// (all its threads, and the MPS daemons and tools it starts, which inherit its affinity) keeps to the
// cores no worker uses, so it never preempts a worker that is launching kernels or spin-waiting.
#include "harness/sweep/wing.hpp"

#include <string>
#include <vector>

#include "harness/common/parallel.hpp"  // allowed_cpus

namespace bench_mps::harness {

struct CpuPlan {
  std::vector<int> workers;  ///< worker i runs on workers[i % size]; empty: workers are not pinned
  std::vector<int> harness;  ///< the harness's cores; empty: left as they were
};

/// Splits `allowed` for up to `max_procs` workers: the first CPU always stays with the harness, the
/// next min(max_procs, n - 1) go to the workers, any left over also to the harness. Fewer than two
/// CPUs: no plan.
CpuPlan plan_cpus(const std::vector<int>& allowed, int max_procs);

/// Splits `allowed` into `parts` disjoint runs of consecutive entries, as equal as can be (the first
/// ones one longer): the cores of concurrent sweeps (--gpus). Fewer cores than parts: empty (they share).
std::vector<std::vector<int>> split_cpus(const std::vector<int>& allowed, int parts);

/// Throws UsageError naming `option` and the first of `cpus` this process may not run on; `given_as` (how the
/// cores were given, e.g. a stored sweep's --cpus) goes before it and `then` (how to go on) after it.
void check_cpus_allowed(const std::vector<int>& cpus, const std::string& option, const std::string& given_as = {},
                        const std::string& then = {});

/// Restricts every thread of this process to `cpus` (threads started later inherit it). Returns an
/// empty string, or why it failed.
std::string confine_process(const std::vector<int>& cpus);

}  // namespace bench_mps::harness
