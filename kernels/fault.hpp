#pragma once
// `fault`: the misbehaving neighbour of the fault-isolation scenario. It runs spin tasks like its
// victims until `delay_ms` after the start barrier, then launches a kernel that writes to an invalid
// address; the next synchronisation fails with cudaErrorIllegalAddress and the worker exits with an
// ERROR. What to expect: time-sliced, only its own context dies; under MPS the fault is fatal to
// every client of the same server (NVIDIA documents MPS's limited error containment).
#include <memory>

#include "kernels/spin.hpp"
#include "kernels/workload.hpp"

namespace bench_mps::kernels {

struct FaultParams {
  SpinParams spin;        ///< what it runs until the fault
  double delay_ms = 250;  ///< after the start barrier
};

std::unique_ptr<Workload> make_fault_workload(const FaultParams& params);

}  // namespace bench_mps::kernels
