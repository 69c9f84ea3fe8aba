#pragma once
// `cpu`: a CPU-only stand-in for a GPU workload, so the whole harness (processes, barrier, MPS
// session, files) can be tested on machines without a GPU. A task busy-waits `task_us` on the CPU.
// It pretends to be an MPS client when $CUDA_MPS_PIPE_DIRECTORY/control exists (as the fake
// nvidia-cuda-mps-control in tests/fakes creates it), and can inject the faults the harness must
// survive, in one chosen worker.
#include "harness/workers/wing.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/workload.hpp"

namespace bench_mps::harness {

/// What the faulting worker does (--cpu-fault; the words are cpu_fault_names()).
enum class CpuFault {
  none,
  error,              ///< the task throws: an ERROR line
  crash,              ///< the process exits at once (_Exit(3))
  abort,              ///< the process dies of SIGSEGV
  hang,               ///< a task never returns
  hang_before_ready,  ///< "hang-before-ready": setup never returns
  exit_before_ready,  ///< "exit-before-ready": the process exits (7) in setup
};

struct CpuParams {
  double task_us = 2000;  ///< busy time of one task
  CpuFault fault = CpuFault::none;
  int fault_worker = 0;           ///< index of the worker that faults
  int fault_after_tasks = 2;      ///< tasks it completes before the fault
  double setup_ms_per_index = 0;  ///< worker i sleeps i x this in setup (staggered READY, for barrier tests)
  long mem_mib = 0;   ///< "device memory" it claims; more than $CUDA_MPS_PINNED_DEVICE_MEM_LIMIT allows fails
                      ///< in setup as cudaMalloc does under that MPS limit
  bool fill = false;  ///< a task fills the device: under an MPS thread percentage p it takes 100/p times as long,
                      ///< as a kernel with more blocks than the SMs it is given would; the worker sleeps
                      ///< through it (a host waiting for its device), so a busy CPU does not stretch it
};

/// Faults the cpu workload can inject, as --cpu-fault names them.
const std::vector<std::string>& cpu_fault_names();
/// The word of `fault`, e.g. "hang-before-ready".
std::string cpu_fault_name(CpuFault fault);
/// The fault a word names; nothing for any other word.
std::optional<CpuFault> parse_cpu_fault(std::string_view word);

std::unique_ptr<kernels::Workload> make_cpu_workload(const CpuParams& params, int worker_index);

/// Whether this process would be an MPS client, by the fake daemon's convention.
bool cpu_workload_sees_mps();

/// SMs of the pretend device the CPU stand-in reports outside MPS and at 100 %.
constexpr int kCpuStandInSms = 100;

/// The active thread percentage an MPS client would get, by the fake daemon's convention: the lower
/// of CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and the daemon's default ($CUDA_MPS_PIPE_DIRECTORY/default_pct),
/// 100 where the daemon ignores percentages ($CUDA_MPS_PIPE_DIRECTORY/ignore_thread_pct) or outside MPS.
double cpu_stand_in_thread_pct();

/// SMs the CPU stand-in reports as its context's: kCpuStandInSms scaled by cpu_stand_in_thread_pct(),
/// as the driver reports cudaDevAttrMultiProcessorCount under a percentage; 0 outside MPS (no device).
int cpu_stand_in_sms_seen();

/// Bytes CUDA_MPS_PINNED_DEVICE_MEM_LIMIT ("0=512M", "0=2G,1=1G", "1G") allows on device 0; 0 when unset.
/// Throws std::invalid_argument on a value it cannot read.
unsigned long long mps_pinned_mem_limit_bytes(const std::string& value);

}  // namespace bench_mps::harness
