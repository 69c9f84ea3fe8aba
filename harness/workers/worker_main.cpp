// bench_worker: runs one workload instance (or, in the in-process modes, N of them) for the harness
// and speaks the line protocol of worker_protocol.hpp on stdin/stdout: READY once, then one timed
// round per GO, until the harness closes stdin. Every failure ends in an ERROR line and a non-zero
// exit code.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>

#include "harness/common/cli_checks.hpp"
#include "harness/workers/cpu_standins.hpp"
#include "harness/workers/cpu_workload.hpp"
#include "harness/workers/exec_workload.hpp"
#include "harness/workers/instance_runner.hpp"
#include "harness/workers/worker_protocol.hpp"
#include "harness/workers/workload_config.hpp"
#include "kernels/device_context.hpp"
#include "kernels/duty.hpp"
#include "kernels/fault.hpp"
#include "kernels/filler.hpp"
#include "kernels/green_contexts.hpp"
#include "kernels/membw.hpp"
#include "kernels/mlp.hpp"
#include "kernels/mlp_infer.hpp"
#include "kernels/sm_probe.hpp"
#include "kernels/spin.hpp"
#include "kernels/xray.hpp"

namespace bench_mps::harness {
namespace {

struct WorkerOptions {
  WorkloadKind workload = WorkloadKind::spin;
  std::optional<WorkloadKind> fg_workload;  ///< interference, in-process: instance 0 runs this one
  int worker_index = 0;
  long tasks = 0;
  double duration_s = 0;
  long max_tasks = 0;  ///< with --duration-s: stop after this many tasks too
  int warmup = 2;
  int instances = 1;
  InstanceLayout layout = InstanceLayout::single;  ///< --layout single | threads | streams
  bool green = false;                              ///< threads whose streams belong to green contexts
  int green_sms = 0;                               ///< SMs per green context (0: an equal share)
  bool cpu_stand_in = false;  ///< duty, xray: their CPU stand-ins (harness/workers/cpu_standins.hpp)
  WorkloadConfig config;
};

std::mutex stdout_mutex;  // instance threads report tasks while the main thread may speak

void say(const std::string& line) {
  std::lock_guard<std::mutex> lock(stdout_mutex);
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

std::unique_ptr<kernels::Workload> make_workload(WorkloadKind kind, const WorkerOptions& o) {
  const WorkloadConfig& c = o.config;
  // cpu runs on the CPU already: --cpu-stand-in (given the whole sweep, --workloads cpu,duty) leaves it as it is
  if (o.cpu_stand_in && kind != WorkloadKind::cpu) return make_cpu_stand_in(kind, c.duty, c.xray);
  switch (kind) {
    case WorkloadKind::spin:
      return kernels::make_spin_workload(c.spin);
    case WorkloadKind::mlp:
      return kernels::make_mlp_workload(c.mlp);
    case WorkloadKind::membw:
      return kernels::make_membw_workload(c.membw);
    case WorkloadKind::filler:
      return kernels::make_filler_workload(c.filler);
    case WorkloadKind::mlp_infer:
      return kernels::make_mlp_infer_workload(c.mlp, c.infer);
    case WorkloadKind::cpu:
      return make_cpu_workload(c.cpu, o.worker_index);
    case WorkloadKind::exec:
      return make_exec_workload(c.exec, o.worker_index, [](long pgid) { say(format_spawned(pgid)); });
    case WorkloadKind::fault:
      return kernels::make_fault_workload({c.spin, c.fault_delay_ms});
    case WorkloadKind::duty:
      return kernels::make_duty_workload(c.duty);
    case WorkloadKind::xray:
      return kernels::make_xray_workload(c.xray);
  }
  throw std::invalid_argument("unknown workload '" + to_string(kind) + "'");
}

/// Task lines are buffered and flushed at most every 50 ms, so reporting stays off the timed path.
class TaskReporter {
 public:
  explicit TaskReporter(bool with_instance) : with_instance_(with_instance) {}
  void add(const TaskRecord& t) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ += format_task(t, with_instance_);
    pending_ += '\n';
    if (t.end_ns - last_flush_ns_ > 50'000'000) flush_locked(t.end_ns);
  }
  void flush(std::int64_t now_ns) {
    std::lock_guard<std::mutex> lock(mutex_);
    flush_locked(now_ns);
  }

 private:
  void flush_locked(std::int64_t now_ns) {
    {
      std::lock_guard<std::mutex> out(stdout_mutex);
      std::fputs(pending_.c_str(), stdout);
      std::fflush(stdout);
    }
    pending_.clear();
    last_flush_ns_ = now_ns;
  }

  bool with_instance_;
  std::mutex mutex_;
  std::string pending_;
  std::int64_t last_flush_ns_ = 0;
};

int run(const WorkerOptions& o, TaskReporter& reporter) {
  ReadyInfo ready;
  ready.pid = static_cast<long>(getpid());
  const bool gpu =
      !o.cpu_stand_in && (workload_needs_gpu(o.workload) || (o.fg_workload && workload_needs_gpu(*o.fg_workload)));
  if (gpu) {
    const kernels::DeviceContextInfo dev = kernels::open_device_context();
    ready.sm_count_seen = dev.sm_count;
    ready.mps_enabled = dev.mps_enabled;
    ready.device = dev.name;
    ready.cuda_runtime_version = dev.runtime_version;
    ready.cuda_driver_version = dev.driver_version;
    ready.clock_khz = dev.clock_khz;
  } else if (runs_user_program(o.workload)) {
    ready.device = "exec";  // no context of its own: the harness proves MPS from the server's clients
  } else {
    ready.mps_enabled = cpu_workload_sees_mps();
    ready.sm_count_seen = cpu_stand_in_sms_seen();
    ready.device = "cpu";
  }

  // Green contexts outlive the instances that run in them (declared first, destroyed last).
  std::unique_ptr<kernels::GreenContexts> green;
  InstanceHooks hooks;
  if (o.green) {
    green = std::make_unique<kernels::GreenContexts>(o.instances, o.green_sms);
    hooks.enter = [&green](int i) { return green->enter(i); };
  }
  if (gpu && o.layout != InstanceLayout::single)
    hooks.probe_sms = [](void* stream) { return kernels::count_sms_used(stream); };
  std::vector<WorkloadFactory> factories;
  for (int i = 0; i < o.instances; ++i) {
    const WorkloadKind kind = i == 0 && o.fg_workload ? *o.fg_workload : o.workload;
    factories.push_back([kind, &o] { return make_workload(kind, o); });
  }
  InstanceRunner runner(o.layout, std::move(factories), std::move(hooks));
  runner.prepare(o.warmup);
  ready.mem_bytes = runner.device_bytes();
  ready.instances = runner.instances();
  ready.instance_sms = runner.sms_seen();
  if (green && !ready.instance_sms.empty()) ready.sm_count_seen = green->sms(0);
  say(format_ready(ready));

  const RoundLength length{o.tasks, o.duration_s, o.max_tasks};
  for (std::string line; std::getline(std::cin, line);) {  // the harness closes stdin after the last round
    if (line != "GO") throw std::runtime_error("expected GO from the harness, got '" + line + "'");
    const std::int64_t t0 = monotonic_ns();
    try {
      runner.round(length, [&reporter](int instance, std::int64_t start, std::int64_t end) {
        reporter.add({start, end, instance});
      });
    } catch (...) {  // what the failed round learnt (exec's exit code) is said before its ERROR
      try {
        reporter.flush(monotonic_ns());
        say(format_facts(runner.instance_summaries().front()["facts"]));
      } catch (...) {  // no facts: the ERROR still comes
      }
      throw;
    }
    const std::int64_t now = monotonic_ns();
    reporter.flush(now);
    const nlohmann::json instances = runner.instance_summaries();
    nlohmann::json summary{{"tasks", 0}, {"elapsed_s", static_cast<double>(now - t0) * 1e-9}};
    long total = 0;
    for (const auto& in : instances) total += in["tasks"].get<long>();
    summary["tasks"] = total;
    summary["facts"] = instances.front()["facts"];
    if (runner.instances() > 1) summary["instances"] = instances;
    say(format_done(summary));
  }
  return 0;
}

}  // namespace
}  // namespace bench_mps::harness

int main(int argc, char** argv) {
  using namespace bench_mps::harness;
  std::setvbuf(stdout, nullptr, _IOFBF, 1 << 16);
  WorkerOptions o;
  CLI::App app{"bench_worker: workload instances driven by bench_mps (see worker_protocol.hpp)"};
  // The workload words meet WorkloadKind here only.
  const auto workload = [&o](const std::string& v) { o.workload = *parse_workload_kind(v); };
  const auto fg_workload = [&o](const std::string& v) { o.fg_workload = parse_workload_kind(v); };
  app.add_option_function<std::string>("--workload", workload, "workload name")
      ->required()
      ->check(CLI::IsMember(worker_workload_names()));
  app.add_option_function<std::string>("--fg-workload", fg_workload,
                                       "in-process interference: the workload of instance 0")
      ->check(CLI::IsMember(worker_workload_names()));
  app.add_option("--worker-index", o.worker_index, "index of this worker in its run")->check(whole_in(0, 1000000));
  auto* tasks = app.add_option("--tasks", o.tasks, "timed tasks per round")->check(whole_in(1, 1000000000000LL));
  auto* duration = app.add_option("--duration-s", o.duration_s, "run tasks for this long per round instead")
                       ->check(finite_in(1e-9, 1e7));
  tasks->excludes(duration);
  app.add_option("--max-tasks", o.max_tasks, "with --duration-s: also stop after this many tasks")
      ->check(whole_in(1, 1000000000000LL))
      ->needs(duration);
  app.add_option("--warmup", o.warmup, "untimed tasks before READY")->check(whole_in(0, 1000000));
  app.add_option("--instances", o.instances, "workload instances in this process")->check(whole_in(1, 1024));
  // The words meet the enum here only.
  const std::map<std::string, InstanceLayout> layouts{
      {"single", InstanceLayout::single}, {"threads", InstanceLayout::threads}, {"streams", InstanceLayout::streams}};
  app.add_option("--layout", o.layout, "how the instances share the process")
      ->transform(CLI::CheckedTransformer(layouts));
  app.add_flag("--green", o.green, "threads layout: each instance in a green context of its own");
  app.add_option("--green-sms", o.green_sms, "SMs per green context (0: an equal share)")->check(whole_in(0, 100000));
  app.add_flag("--cpu-stand-in", o.cpu_stand_in, "duty, xray: run the workload's CPU stand-in (no GPU)");
  add_workload_options(app, o.config);
  try {
    app.parse(argc, argv);
    if (!*tasks && !*duration) throw CLI::ValidationError("one of --tasks or --duration-s is required");
    if (o.instances > 1 && o.layout == InstanceLayout::single)
      throw CLI::ValidationError("--instances > 1 needs --layout threads or streams");
    if (o.green && o.layout != InstanceLayout::threads)
      throw CLI::ValidationError("--green runs on the threads layout");
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    say(format_error(std::string("bad arguments: ") + e.what()));
    return 2;
  }
  TaskReporter reporter(o.layout != InstanceLayout::single);
  try {
    return run(o, reporter);
  } catch (const std::exception& e) {
    reporter.flush(monotonic_ns());  // the tasks that finished before the failure are still reported
    const auto* failure = dynamic_cast<const StatusError*>(&e);
    const RunStatus status = failure ? failure->status() : RunStatus::error;
    say(format_error(e.what(), status));
    const std::string said = failure ? to_string(status) + ": " + e.what() : e.what();
    std::fprintf(stderr, "bench_worker[%d]: %s\n", o.worker_index, said.c_str());
    return 1;
  }
}
