#pragma once
// The one interface every workload implements. A worker process creates one workload, calls setup()
// once, warms up with a few run_task() calls, then times run_task() calls. No CUDA types appear here,
// so host-only code (the harness, the CPU stand-in worker) can use it too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bench_mps::kernels {

/// Named numbers a workload reports after its run (final loss, calibrated cycles, ...).
using WorkloadFacts = std::vector<std::pair<std::string, double>>;

class Workload {
 public:
  virtual ~Workload() = default;
  /// Allocates and initialises everything on the current device. Throws on any failure.
  virtual void setup() = 0;
  /// Called once when the timed phase starts (after warm-up and the start barrier).
  virtual void begin_timed() {}
  /// Runs one task and returns once it has finished on the device. Throws on any failure.
  virtual void run_task() = 0;
  /// Device memory this workload allocated, in bytes.
  virtual std::size_t device_bytes() const = 0;
  /// Start and end (CLOCK_MONOTONIC ns) of the last task where the workload timed it more exactly
  /// than the worker's loop around run_task() can (exec: the command's start and exit); {0, 0} if not.
  virtual std::pair<std::int64_t, std::int64_t> last_task_span() const { return {0, 0}; }
  /// Facts worth recording once the run ends.
  virtual WorkloadFacts facts() const { return {}; }
};

}  // namespace bench_mps::kernels
