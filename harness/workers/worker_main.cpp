// bench_worker: runs one workload instance for the harness and speaks the line protocol of
// worker_protocol.hpp on stdin/stdout. Every failure ends in an ERROR line and a non-zero exit code.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>

#include "harness/common/cli_checks.hpp"
#include "harness/workers/cpu_workload.hpp"
#include "harness/workers/exec_workload.hpp"
#include "harness/workers/worker_protocol.hpp"
#include "harness/workers/workload_config.hpp"
#include "kernels/device_context.hpp"
#include "kernels/fault.hpp"
#include "kernels/mlp.hpp"
#include "kernels/spin.hpp"

namespace bench_mps::harness {
namespace {

struct WorkerOptions {
  std::string workload;
  int worker_index = 0;
  long tasks = 0;
  double duration_s = 0;
  int warmup = 2;
  WorkloadConfig config;
};

void say(const std::string& line) {
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

std::unique_ptr<kernels::Workload> make_workload(const WorkerOptions& o) {
  if (o.workload == "spin") return kernels::make_spin_workload(o.config.spin);
  if (o.workload == "mlp") return kernels::make_mlp_workload(o.config.mlp);
  if (o.workload == "cpu") return make_cpu_workload(o.config.cpu, o.worker_index);
  if (o.workload == "exec")
    return make_exec_workload(o.config.exec, o.worker_index, [](long pgid) { say(format_spawned(pgid)); });
  if (o.workload == "fault") return kernels::make_fault_workload({o.config.spin, o.config.fault_delay_ms});
  throw std::invalid_argument("unknown workload '" + o.workload + "'");
}

/// Task lines are buffered and flushed at most every 50 ms, so reporting stays off the timed path.
class TaskReporter {
 public:
  void add(const TaskRecord& t) {
    pending_ += format_task(t);
    pending_ += '\n';
    if (t.end_ns - last_flush_ns_ > 50'000'000) flush(t.end_ns);
  }
  void flush(std::int64_t now_ns) {
    std::fputs(pending_.c_str(), stdout);
    std::fflush(stdout);
    pending_.clear();
    last_flush_ns_ = now_ns;
  }

 private:
  std::string pending_;
  std::int64_t last_flush_ns_ = 0;
};


int run(const WorkerOptions& o, TaskReporter& reporter) {
  auto workload = make_workload(o);
  ReadyInfo ready;
  ready.pid = static_cast<long>(getpid());
  if (workload_needs_gpu(o.workload)) {
    const kernels::DeviceContextInfo dev = kernels::open_device_context();
    ready.sm_count_seen = dev.sm_count;
    ready.mps_enabled = dev.mps_enabled;
    ready.device = dev.name;
    ready.cuda_runtime_version = dev.runtime_version;
    ready.cuda_driver_version = dev.driver_version;
    ready.clock_khz = dev.clock_khz;
  } else if (o.workload == "exec") {
    ready.device = "exec";  // no context of its own: the harness proves MPS from the server's clients
  } else {
    ready.mps_enabled = cpu_workload_sees_mps();
    ready.device = "cpu";
  }
  workload->setup();
  for (int i = 0; i < o.warmup; ++i) workload->run_task();
  ready.mem_bytes = workload->device_bytes();
  say(format_ready(ready));

  std::string go;
  if (!std::getline(std::cin, go)) throw std::runtime_error("stdin closed before GO (harness gone?)");
  if (go != "GO") throw std::runtime_error("expected GO from the harness, got '" + go + "'");

  workload->begin_timed();
  const std::int64_t t0 = monotonic_ns();
  const std::int64_t deadline = o.duration_s > 0 ? t0 + static_cast<std::int64_t>(o.duration_s * 1e9) : 0;
  long done = 0;
  std::int64_t now = t0;
  while (o.duration_s > 0 ? now < deadline : done < o.tasks) {
    const std::int64_t start = monotonic_ns();
    workload->run_task();
    now = monotonic_ns();
    const auto [own_start, own_end] = workload->last_task_span();
    reporter.add(own_end > 0 ? TaskRecord{own_start, own_end} : TaskRecord{start, now});
    ++done;
  }
  reporter.flush(now);

  nlohmann::json summary{{"tasks", done}, {"elapsed_s", static_cast<double>(now - t0) * 1e-9}};
  for (const auto& [name, value] : workload->facts()) summary["facts"][name] = value;
  say(format_done(summary));
  return 0;
}

}  // namespace
}  // namespace bench_mps::harness

int main(int argc, char** argv) {
  using namespace bench_mps::harness;
  std::setvbuf(stdout, nullptr, _IOFBF, 1 << 16);
  WorkerOptions o;
  CLI::App app{"bench_worker: one workload instance driven by bench_mps (see worker_protocol.hpp)"};
  app.add_option("--workload", o.workload, "workload name")->required()->check(CLI::IsMember(worker_workload_names()));
  app.add_option("--worker-index", o.worker_index, "index of this worker in its run")->check(whole_in(0, 1000000));
  auto* tasks = app.add_option("--tasks", o.tasks, "timed tasks to run")->check(whole_in(1, 1000000000000LL));
  auto* duration = app.add_option("--duration-s", o.duration_s, "run tasks for this long instead")
                       ->check(finite_in(1e-9, 1e7));
  tasks->excludes(duration);
  app.add_option("--warmup", o.warmup, "untimed tasks before READY")->check(whole_in(0, 1000000));
  add_workload_options(app, o.config);
  try {
    app.parse(argc, argv);
    if (!*tasks && !*duration) throw CLI::ValidationError("one of --tasks or --duration-s is required");
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    say(format_error(std::string("bad arguments: ") + e.what()));
    return 2;
  }
  TaskReporter reporter;
  try {
    return run(o, reporter);
  } catch (const std::exception& e) {
    reporter.flush(monotonic_ns());  // the tasks that finished before the failure are still reported
    say(format_error(e.what()));
    std::fprintf(stderr, "bench_worker[%d]: %s\n", o.worker_index, e.what());
    return 1;
  }
}
