#pragma once
// A finished pool's raw lines reduced to the rows of one run (results/run_record.hpp).
#include "harness/sweep/wing.hpp"

#include <string>
#include <vector>

#include "harness/gpu/nvml.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/results/run_record.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {

/// Reduces a pool result; `alone_task_mean_ms` <= 0 (unknown) leaves slowdown_vs_alone NaN.
/// `util_samples` (the driver's own, may be empty) give the utilisation over the timed window.
RunRecord make_run_record(const RunSpec& spec, const PoolResult& pool, std::vector<GpuSample> samples,
                          double alone_task_mean_ms, std::vector<UtilSample> util_samples = {});

/// The number a worker's DONE reported under facts[`key`]; NaN where absent.
double done_fact(const nlohmann::json& done, const std::string& key);

/// NVML's longest utilisation sampling period (its documentation: 1/6 s to 1 s by product): a polled
/// reading taken less than this after the first task began may still cover time before it.
inline constexpr double kNvmlLongestUtilPeriod_s = 1.0;

}  // namespace bench_mps::harness
