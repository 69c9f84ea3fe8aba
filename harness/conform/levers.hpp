#pragma once
// The levers conform checks: each an id, what it checks, the expectation it is held to (with its
// tolerance), and a check that runs its child sweeps and judges what they recorded. A check returns
// its verdict and evidence; conform turns an exception inside it into an ERROR row.
#include "harness/conform/wing.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/common/stats.hpp"
#include "harness/tools/child_sweeps.hpp"
#include "harness/gpu/nvml.hpp"
#include "harness/results/conform_rows.hpp"

namespace bench_mps::harness {

/// What every check may read: how it measures and what it measures on.
struct ConformSetup {
  bool cpu_stand_in = false;
  bool set_exclusive = false;
  std::optional<GpuStaticInfo> gpu;  ///< empty without NVML (CPU stand-ins)
};

/// A check's finding.
struct Judgement {
  ConformVerdict verdict = ConformVerdict::error;
  std::string evidence;
  std::string reason;
};

struct Lever {
  std::string id;
  std::string lever;        ///< what is checked, in words
  std::string expectation;  ///< what PASS needs, with its tolerance
  std::function<Judgement(const ConformSetup&, ChildSweeps&)> check;
};

/// Every lever, in the order the table lists them.
const std::vector<Lever>& conform_levers();

// The checks, by theme (lever_sharing.cpp, lever_limits.cpp, lever_fault.cpp, lever_probes.cpp).
Judgement check_proof(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_thread_pct(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_uneven_split(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_per_client_pct(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_mem_limit(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_priority(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_client_ceiling(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_fault(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_sm_partitions(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_control_v3(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_multi_user(const ConformSetup& setup, ChildSweeps& sweeps);
Judgement check_exclusive(const ConformSetup& setup, ChildSweeps& sweeps);

// Shared by the checks.
/// The workload args of a plain client: spin, or the cpu stand-in.
std::vector<std::string> plain_workload_args(const ConformSetup& setup);
/// A kernel that fills the GPU several waves over (spin, 16 blocks of 1024 threads per SM of a 132-SM
/// GPU), so its time grows as its SMs shrink; or the cpu stand-in's --cpu-fill task.
std::vector<std::string> fill_workload_args(const ConformSetup& setup);
/// The Judgement of a sweep that left nothing to judge: ERROR with its exit code and last line.
Judgement sweep_error(const SweepOutcome& outcome);
/// PASS when `ok`, FAIL otherwise, with `evidence`.
Judgement judged(bool ok, std::string evidence);
/// A criterion "ratio at most `limit`" decided from its interval: PASS where the whole interval lies at or
/// below it, FAIL where it lies above, INCONCLUSIVE (the interval in the evidence) where it crosses it or
/// there is none.
Judgement decided(const RatioInterval& r, double limit, std::string evidence);
/// SKIP with `reason`.
Judgement skipped(std::string reason);

}  // namespace bench_mps::harness
