#pragma once
// CPU stand-ins for the regime workloads (`duty`, `xray`), chosen with bench_mps --cpu-stand-in, so
// the regimes and X-ray scenarios can be tested, and tried, on a machine without a GPU: the same
// parameters, the same task lines and the same facts (burst_ms, gpu_busy_share; slices, step stamps),
// with the "device" work done as busy time on the worker's own core and timed on CLOCK_MONOTONIC.
// A busy X-ray context then logs when the operating system's scheduler ran it.
#include "harness/workers/wing.hpp"

#include <memory>
#include <string>

#include "harness/workers/workload_kind.hpp"
#include "kernels/duty.hpp"
#include "kernels/workload.hpp"
#include "kernels/xray.hpp"

namespace bench_mps::harness {

std::unique_ptr<kernels::Workload> make_cpu_duty_workload(const kernels::DutyParams& params);
std::unique_ptr<kernels::Workload> make_cpu_xray_workload(const kernels::XrayParams& params);

/// The stand-in of GPU workload `kind`; throws std::invalid_argument where there is none.
std::unique_ptr<kernels::Workload> make_cpu_stand_in(WorkloadKind kind, const kernels::DutyParams& duty,
                                                     const kernels::XrayParams& xray);

}  // namespace bench_mps::harness
