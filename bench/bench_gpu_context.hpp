#pragma once
// The GPU and driver a micro-benchmark ran on, stamped into Google Benchmark's JSON context (its `context`
// object), so that a result file says where it was measured.
#include <benchmark/benchmark.h>

#include <string>

#include "kernels/device_context.hpp"

namespace bench_mps::bench {

/// Opens the device context and stamps it; throws kernels::cuda_error where it cannot be opened.
inline void stamp_gpu_context() {
  const kernels::DeviceContextInfo dev = kernels::open_device_context();
  benchmark::AddCustomContext("gpu", dev.name);
  benchmark::AddCustomContext("sm_count", std::to_string(dev.sm_count));
  benchmark::AddCustomContext("sm_clock_peak_khz", std::to_string(dev.clock_khz));
  benchmark::AddCustomContext("cuda_driver_version", std::to_string(dev.driver_version));
  benchmark::AddCustomContext("cuda_runtime_version", std::to_string(dev.runtime_version));
  benchmark::AddCustomContext("mps_enabled", dev.mps_enabled ? "true" : "false");
}

}  // namespace bench_mps::bench
