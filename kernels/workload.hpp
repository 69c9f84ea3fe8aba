#pragma once
// The one interface every workload implements. A worker process creates one workload (or, in the
// in-process modes, one per instance), calls setup() once, warms up with a few run_task() calls,
// then times run_task() calls. No CUDA types appear here, so host-only code (the harness, the CPU
// stand-in worker, the in-process runners) can use it too.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench_mps::kernels {

/// Named numbers a workload reports after its run (final loss, calibrated cycles, ...).
using WorkloadFacts = std::vector<std::pair<std::string, double>>;

class Workload {
 public:
  virtual ~Workload() = default;
  /// Run all device work on `stream` (a cudaStream_t, e.g. one of a green context) instead of a
  /// stream of the workload's own. Called before setup(); false where the workload cannot.
  virtual bool place_on_stream(void* stream) {
    (void)stream;
    return false;
  }
  /// Allocates and initialises everything on the current device. Throws on any failure.
  virtual void setup() = 0;
  /// Called when a timed phase starts (after warm-up and each start barrier).
  virtual void begin_timed() {}
  /// Runs one task and returns once it has finished on the device. Throws on any failure.
  virtual void run_task() = 0;
  /// Device memory this workload allocated, in bytes.
  virtual std::size_t device_bytes() const = 0;
  /// Start and end (CLOCK_MONOTONIC ns) of the last task where the workload timed it more exactly
  /// than the worker's loop around run_task() can (exec: the command's start and exit; mlp-infer:
  /// the request's arrival and its completion); {0, 0} if not.
  virtual std::pair<std::int64_t, std::int64_t> last_task_span() const { return {0, 0}; }
  /// Where one task is several spans of its own (the X-ray's busy probe: each interval its context
  /// ran), those spans (CLOCK_MONOTONIC ns), each reported as a task of its own; empty if not.
  virtual std::vector<std::pair<std::int64_t, std::int64_t>> last_task_spans() const { return {}; }
  /// Facts worth recording once the run ends.
  virtual WorkloadFacts facts() const { return {}; }

  // Asynchronous tasks, for the `streams` mode (one host thread feeding N instances, each on its
  // own stream): start_task() enqueues a task's first piece of device work and returns at once;
  // poll_task() returns true once the whole task has finished, enqueueing its next piece (an mlp
  // step, say) whenever the previous one is done. A task run this way does the same device work
  // as run_task().
  virtual bool supports_async() const { return false; }
  virtual void start_task() { throw std::logic_error("this workload cannot run asynchronously"); }
  virtual bool poll_task() { throw std::logic_error("this workload cannot run asynchronously"); }
};

}  // namespace bench_mps::kernels
