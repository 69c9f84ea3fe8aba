#pragma once
// A finished pool's raw lines reduced to the rows of one run (results/run_record.hpp).
#include "harness/sweep/wing.hpp"

#include <vector>

#include "harness/gpu/nvml.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/results/run_record.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {

/// Reduces a pool result; `alone_task_mean_ms` <= 0 (unknown) leaves slowdown_vs_alone NaN.
RunRecord make_run_record(const RunSpec& spec, const PoolResult& pool, std::vector<GpuSample> samples,
                          double alone_task_mean_ms);

}  // namespace bench_mps::harness
