#pragma once
// The workload instances one bench_worker runs, and how they share the process:
// - single:  one instance on the main thread (the process modes: timeslice, mps);
// - threads: N instances, each on a host thread of its own with a stream of its own (seed 004's
//            "one process, many threads"; the `green` mode is threads whose streams belong to green
//            contexts, see kernels/green_contexts.hpp);
// - streams: N instances on N streams, fed by one host thread that starts each instance's next
//            piece of work as soon as its last one finishes (seed 003's Hyper-Q).
// Every instance is set up and warmed up once (prepare), then runs one timed round per GO from the
// harness. Instances of one round start together and each runs the same length (a task count, or
// seconds from the round's start). No CUDA here: contexts and streams come through the hooks.
#include "harness/workers/wing.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/workload.hpp"

namespace bench_mps::harness {

enum class InstanceLayout { single, threads, streams };

struct RoundLength {
  long tasks = 0;         ///< > 0: tasks per instance
  double duration_s = 0;  ///< otherwise: seconds per instance, from the round's start
  long max_tasks = 0;     ///< with duration_s: > 0 stops an instance after this many tasks too
};

/// Receives every finished task; called from the instances' threads (it must be thread-safe).
using TaskSink = std::function<void(int instance, std::int64_t start_ns, std::int64_t end_ns)>;

using WorkloadFactory = std::function<std::unique_ptr<kernels::Workload>()>;

struct InstanceHooks {
  /// In the instance's own thread, before its workload exists: makes its context current and returns
  /// the stream it must run on (a green context's), or nullptr to let the workload make its own.
  std::function<void*(int instance)> enter;
  /// Counts the SMs the instance's kernels can use, on its stream (nullptr: not counted).
  std::function<int(void* stream)> probe_sms;
};

class InstanceRunner {
 public:
  /// One factory per instance (the interference scenario gives instance 0 another workload).
  InstanceRunner(InstanceLayout layout, std::vector<WorkloadFactory> factories, InstanceHooks hooks = {});
  ~InstanceRunner();
  InstanceRunner(const InstanceRunner&) = delete;
  InstanceRunner& operator=(const InstanceRunner&) = delete;

  /// Creates and sets up every instance, then runs `warmup` untimed tasks on each. Throws the first
  /// instance's failure.
  void prepare(int warmup);
  /// One timed round; throws the first instance's failure (the others stop at their next task).
  void round(const RoundLength& length, const TaskSink& sink);

  int instances() const;
  std::size_t device_bytes() const;
  /// SMs each instance's probe counted (empty if not probed).
  std::vector<int> sms_seen() const;
  /// Task lines of the last round and facts, per instance: [{"tasks": n, "facts": {...}}, ...].
  nlohmann::json instance_summaries() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bench_mps::harness
