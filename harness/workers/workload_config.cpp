#include "harness/workers/workload_config.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>

#include "harness/common/cli_checks.hpp"
#include "harness/common/format.hpp"

namespace bench_mps::harness {

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names{"spin", "mlp", "membw", "filler", "mlp-infer", "duty", "exec", "cpu"};
  return names;
}

const std::vector<std::string>& worker_workload_names() {
  static const std::vector<std::string> names = [] {
    auto n = workload_names();
    n.push_back("fault");
    n.push_back("xray");  // the X-ray's probes: only through --scenario xray / regimes
    return n;
  }();
  return names;
}

bool is_known_workload(const std::string& name) {
  const auto& names = workload_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// exec runs whatever the user gives it, a CPU-only program included (as the tests do).
bool workload_needs_gpu(const std::string& name) { return name != "cpu" && name != "exec"; }

bool workload_allows_rounds(const std::string& name, const WorkloadConfig& config) {
  if (name == "exec" || name == "fault") return false;
  return !(name == "mlp" && config.mlp.profile == kernels::MlpProfile::seed001);
}

void resolve_duty_host_us(WorkloadConfig& config) {
  config.duty.host_us = kernels::duty_host_us(config.duty.burst_us, config.duty_pct);
}

int default_warmup_tasks(const std::string& workload, const WorkloadConfig& config) {
  if (workload == "exec") return 0;
  if (workload == "duty") return 1;  // a step can be 0.2 s (a 10 ms burst at 5%)
  if (workload == "mlp" && config.mlp.profile == kernels::MlpProfile::seed001) return 0;
  return 2;
}

const std::map<std::string, kernels::MlpProfile>& mlp_profile_names() {
  static const std::map<std::string, kernels::MlpProfile> names{{"gpu-bound", kernels::MlpProfile::gpu_bound},
                                                                {"seed001", kernels::MlpProfile::seed001}};
  return names;
}

std::string mlp_profile_name(kernels::MlpProfile profile) {
  return profile == kernels::MlpProfile::seed001 ? "seed001" : "gpu-bound";
}

const std::map<std::string, kernels::MlpLaunch>& mlp_launch_names() {
  static const std::map<std::string, kernels::MlpLaunch> names{{"graph", kernels::MlpLaunch::graph},
                                                               {"eager", kernels::MlpLaunch::eager}};
  return names;
}

std::string mlp_launch_name(kernels::MlpLaunch launch) {
  return launch == kernels::MlpLaunch::graph ? "graph" : "eager";
}

void add_workload_options(CLI::App& app, WorkloadConfig& c) {
  const std::string spin = "spin workload";
  app.add_option("--spin-blocks", c.spin.blocks, "thread blocks per spin launch")
      ->check(whole_in(1, 1000000))->group(spin)->capture_default_str();
  app.add_option("--spin-threads", c.spin.threads, "threads per block")
      ->check(whole_in(1, 1024))->group(spin)->capture_default_str();
  app.add_option("--spin-us", c.spin.launch_us, "busy time of one launch, microseconds")
      ->check(finite_in(0.1, 1e7))->group(spin)->capture_default_str();
  app.add_option("--spin-launches", c.spin.launches, "launches per task")
      ->check(whole_in(1, 10000000))->group(spin)->capture_default_str();

  const std::string mlp = "mlp workload";
  // First, so that its defaults apply before any --mlp-* option given explicitly (CLI11 runs option
  // callbacks in the order the options were added).
  app.add_option_function<std::string>(
         "--mlp-profile",
         [&c](const std::string& v) {
           if (mlp_profile_names().at(v) == kernels::MlpProfile::seed001) c.mlp = kernels::seed001_defaults(c.mlp);
         },
         "gpu-bound: dataset on the device, each step one CUDA graph (GPU ~95% busy); seed001: the seed "
         "article's PyTorch MNIST loop at the seed's point (batch assembled on the host, eager launches, loss read "
         "every step, a task is one epoch of 938 steps; 49 hidden layers of 512: a ~2.2 ms burst of small kernels "
         "in an 8.5 ms step, ~26% busy alone; docs/SEED001.md)")
      ->check(CLI::IsMember(mlp_profile_names()))->group(mlp)->default_str("gpu-bound");
  app.add_option("--mlp-host-us", c.mlp.host_us,
                 "seed001: host work per step besides assembling the batch, microseconds (default 6280 for seed001)")
      ->check(finite_in(0.0, 1e7))->group(mlp);
  app.add_option("--mlp-layers", c.mlp.layers, "layer sizes, input first, classes last")
      ->delimiter(',')->check(whole_in(1, 65536))->group(mlp)->capture_default_str();
  app.add_option("--mlp-batch", c.mlp.batch, "samples per step")
      ->check(whole_in(1, 65536))->group(mlp)->capture_default_str();
  app.add_option("--mlp-lr", c.mlp.learning_rate, "SGD learning rate")
      ->check(finite_in(1e-9, 10.0))->group(mlp)->capture_default_str();
  app.add_option("--mlp-momentum", c.mlp.momentum, "SGD momentum")
      ->check(finite_in(0.0, 0.999999))->group(mlp)->capture_default_str();
  app.add_option("--mlp-dataset", c.mlp.dataset_size, "synthetic samples")
      ->check(whole_in(1, 10000000))->group(mlp)->capture_default_str();
  app.add_option("--mlp-seed", c.mlp.seed, "seed of data and initial weights")
      ->check(whole_in(0, 1000000000000000000LL))
      ->group(mlp)
      ->capture_default_str();
  app.add_flag("--mlp-read-loss", c.mlp.read_loss, "copy the loss to the host after every step")->group(mlp);
  app.add_option("--mlp-steps-per-task", c.mlp.steps_per_task, "training steps in one timed task")
      ->check(whole_in(1, 1000000))->group(mlp)->capture_default_str();
  app.add_option_function<std::string>(
         "--mlp-launch", [&c](const std::string& v) { c.mlp.launch = mlp_launch_names().at(v); },
         "graph: replay each step as one CUDA graph; eager: launch kernel by kernel (CPU-bound, noisier)")
      ->check(CLI::IsMember(mlp_launch_names()))->group(mlp)->default_str("graph");

  app.add_option("--mlp-extra-us", c.mlp.extra_us,
                 "gpu-bound: an extra busy kernel of this many microseconds in every step (a slower step, as a "
                 "regression would make it: what compare can see)")
      ->check(finite_in(0.0, 1e6))->group(mlp)->capture_default_str();

  const std::string membw = "membw workload";
  app.add_option("--membw-mib", c.membw.mib, "size of each of the triad's three arrays, MiB")
      ->check(whole_in(1, 1 << 20))->group(membw)->capture_default_str();
  app.add_option("--membw-iters", c.membw.iters, "triads per task")
      ->check(whole_in(1, 1000000))->group(membw)->capture_default_str();
  app.add_option("--membw-blocks", c.membw.blocks, "thread blocks per triad (0: 4 per SM)")
      ->check(whole_in(0, 10000000))->group(membw)->capture_default_str();

  const std::string filler = "filler workload";
  app.add_option("--filler-target", c.filler.target_pct, "percent of the time the filler keeps the GPU busy")
      ->check(finite_in(1.0, 100.0))->group(filler)->capture_default_str();
  app.add_option("--filler-kernel-us", c.filler.kernel_us, "busy time of one filler kernel, microseconds")
      ->check(finite_in(10.0, 1e7))->group(filler)->capture_default_str();
  app.add_option("--filler-blocks", c.filler.blocks, "thread blocks per filler kernel (0: one per SM)")
      ->check(whole_in(0, 10000000))->group(filler)->capture_default_str();
  app.add_flag("--filler-yield", c.filler.yield,
               "step aside (--filler-yield-ms) when a kernel runs 1.5x slower than alone: another job is on the GPU")
      ->group(filler);
  app.add_option("--filler-yield-ms", c.filler.yield_ms, "how long the filler steps aside")
      ->check(finite_in(0.0, 3.6e6))->group(filler)->capture_default_str();

  const std::string infer = "mlp-infer workload (open-loop inference requests; the network is --mlp-layers)";
  app.add_option("--infer-rate", c.infer.rate_per_s, "requests per second, arriving at fixed intervals")
      ->check(finite_in(0.1, 1e6))->group(infer)->capture_default_str();
  app.add_option("--infer-batch", c.infer.batch, "samples per request")
      ->check(whole_in(1, 65536))->group(infer)->capture_default_str();

  const std::string duty = "duty workload (a regime point: host work, then a burst of fixed GPU work, per step)";
  app.add_option("--duty-burst-us", c.duty.burst_us, "GPU work per step, microseconds alone")
      ->check(finite_in(1.0, 1e7))->group(duty)->capture_default_str();
  app.add_option("--duty-pct", c.duty_pct, "share of a step alone on the GPU, percent (sets the host work per step)")
      ->check(finite_in(0.1, 100.0))->group(duty)->capture_default_str();
  app.add_option("--duty-kernels", c.duty.kernels, "kernels the burst is split into")
      ->check(whole_in(1, 100000))->group(duty)->capture_default_str();
  app.add_option("--duty-blocks", c.duty.blocks, "thread blocks per kernel (how much of the GPU one kernel fills)")
      ->check(whole_in(1, 1000000))->group(duty)->capture_default_str();
  app.add_option("--duty-threads", c.duty.threads, "threads per block")
      ->check(whole_in(1, 1024))->group(duty)->capture_default_str();
  app.add_option("--duty-steps", c.duty.steps_per_task, "steps in one timed task")
      ->check(whole_in(1, 10000000))->group(duty)->capture_default_str();
  app.add_option("--duty-host-us", c.duty.host_us)->check(finite_in(0.0, 1e9))->group("");  // bench_mps -> bench_worker

  const std::string xray = "X-ray probes (--scenario xray, regimes)";
  app.add_option("--xray-busy-ms", c.xray.busy_ms, "how long each always-busy context logs when it runs")
      ->check(finite_in(1.0, 60000.0))->group(xray)->capture_default_str();
  app.add_option("--xray-gap-us", c.xray.gap_us, "a pause longer than this in a busy context's clock reads ends its slice")
      ->check(finite_in(0.1, 1e6))->group(xray)->capture_default_str();
  app.add_option("--xray-step-us", c.xray.step_us, "the GPU work of one short synchronising step, microseconds")
      ->check(finite_in(1.0, 1e6))->group(xray)->capture_default_str();
  app.add_option("--xray-role", c.xray.role)->check(CLI::IsMember({"busy", "step"}))->group("");  // set per worker

  const std::string exec = "exec workload (your own program)";
  app.add_option("--command", c.exec.command,
                 "exec: the shell command each worker runs once after the start barrier, e.g. 'python3 train.py'")
      ->group(exec);
  app.add_option("--exec-metric", c.exec.metric,
                 "exec: regular expression with one capture group reading a per-step time in ms from the "
                 "command's stdout, e.g. 'step_ms=([0-9.]+)' (at most 256 bytes, no back-references; a line is "
                 "matched on its first and last 256 bytes)")
      ->group(exec);
  app.add_option("--exec-log-cap", c.exec.log_cap_bytes, "exec: bytes of each copy's stdout and of its stderr kept")
      ->check(whole_in(0, 1LL << 34))->group(exec)->capture_default_str();
  app.add_option("--exec-log-dir", c.exec.log_dir)->group("");     // set by bench_mps per run
  app.add_option("--exec-timeout", c.exec.timeout_s)->group("");   // set by bench_mps from --timeout

  app.add_option("--fault-delay-ms", c.fault_delay_ms, "fault scenario: ms after the start barrier the faulting worker faults")
      ->check(finite_in(0.0, 3.6e6))->group("fault scenario")->capture_default_str();

  // The CPU stand-in exists for tests; its options stay out of --help.
  app.add_option("--cpu-task-us", c.cpu.task_us)->check(finite_in(0.0, 1e9))->group("");
  app.add_option("--cpu-fault", c.cpu.fault)->check(CLI::IsMember(cpu_fault_names()))->group("");
  app.add_option("--cpu-fault-worker", c.cpu.fault_worker)->check(whole_in(0, 1000000))->group("");
  app.add_option("--cpu-fault-after", c.cpu.fault_after_tasks)->check(whole_in(0, 1000000000))->group("");
  app.add_option("--cpu-setup-ms", c.cpu.setup_ms_per_index)->check(finite_in(0.0, 1e6))->group("");
  app.add_option("--cpu-mem-mib", c.cpu.mem_mib)->check(whole_in(0, 1 << 30))->group("");
  app.add_flag("--cpu-fill", c.cpu.fill)->group("");
}

namespace {

std::string join_ints(const std::vector<int>& v, char sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? std::string(1, sep) : "") + std::to_string(v[i]);
  return out;
}

}  // namespace

std::string workload_params_string(const std::string& name, const WorkloadConfig& c) {
  std::ostringstream s;
  if (name == "spin") {
    s << "blocks=" << c.spin.blocks << ";threads=" << c.spin.threads << ";launch_us=" << fmt_num(c.spin.launch_us)
      << ";launches=" << c.spin.launches;
  } else if (name == "mlp") {
    s << "profile=" << mlp_profile_name(c.mlp.profile) << ";layers=" << join_ints(c.mlp.layers, '-') << ";batch=" << c.mlp.batch << ";lr=" << fmt_num(c.mlp.learning_rate)
      << ";momentum=" << fmt_num(c.mlp.momentum) << ";dataset=" << c.mlp.dataset_size << ";seed=" << c.mlp.seed
      << ";read_loss=" << (c.mlp.read_loss ? 1 : 0) << ";launch=" << mlp_launch_name(c.mlp.launch)
      << ";steps_per_task=" << c.mlp.steps_per_task;
    if (c.mlp.profile == kernels::MlpProfile::seed001) s << ";host_us=" << fmt_num(c.mlp.host_us);
    if (c.mlp.extra_us > 0) s << ";extra_us=" << fmt_num(c.mlp.extra_us);
  } else if (name == "membw") {
    s << "mib=" << c.membw.mib << ";iters=" << c.membw.iters << ";blocks=" << c.membw.blocks
      << ";threads=" << c.membw.threads;
  } else if (name == "filler") {
    s << "target_pct=" << fmt_num(c.filler.target_pct) << ";kernel_us=" << fmt_num(c.filler.kernel_us)
      << ";blocks=" << c.filler.blocks << ";threads=" << c.filler.threads << ";yield=" << (c.filler.yield ? 1 : 0);
    if (c.filler.yield) s << ";yield_ms=" << fmt_num(c.filler.yield_ms);
  } else if (name == "mlp-infer") {
    s << "layers=" << join_ints(c.mlp.layers, '-') << ";batch=" << c.infer.batch << ";rate=" << fmt_num(c.infer.rate_per_s)
      << ";dataset=" << c.mlp.dataset_size << ";seed=" << c.mlp.seed << ";launch=" << mlp_launch_name(c.mlp.launch);
  } else if (name == "duty") {
    s << "burst_us=" << fmt_num(c.duty.burst_us) << ";host_us=" << fmt_num(c.duty.host_us) << ";kernels=" << c.duty.kernels
      << ";blocks=" << c.duty.blocks << ";threads=" << c.duty.threads << ";steps_per_task=" << c.duty.steps_per_task;
  } else if (name == "xray") {
    s << "busy_ms=" << fmt_num(c.xray.busy_ms) << ";gap_us=" << fmt_num(c.xray.gap_us) << ";step_us=" << fmt_num(c.xray.step_us);
  } else if (name == "exec") {
    if (!c.exec.metric.empty()) s << "metric=" << c.exec.metric << ";";
    s << "command=" << c.exec.command;  // last: a command may hold ';' or '='
  } else if (name == "cpu") {
    s << "task_us=" << fmt_num(c.cpu.task_us);
    if (c.cpu.fault != "none")
      s << ";fault=" << c.cpu.fault << ";fault_worker=" << c.cpu.fault_worker << ";fault_after=" << c.cpu.fault_after_tasks;
    if (c.cpu.fill) s << ";fill=1";
  }
  return s.str();
}

std::vector<std::string> workload_worker_args(const std::string& name, const WorkloadConfig& c) {
  std::vector<std::string> a{"--workload", name};
  auto add = [&a](const char* flag, const std::string& value) {
    a.emplace_back(flag);
    a.push_back(value);
  };
  if (name == "spin" || name == "fault") {
    add("--spin-blocks", std::to_string(c.spin.blocks));
    add("--spin-threads", std::to_string(c.spin.threads));
    add("--spin-us", fmt_num(c.spin.launch_us));
    add("--spin-launches", std::to_string(c.spin.launches));
    if (name == "fault") add("--fault-delay-ms", fmt_num(c.fault_delay_ms));
  } else if (name == "mlp") {
    add("--mlp-layers", join_ints(c.mlp.layers, ','));
    add("--mlp-batch", std::to_string(c.mlp.batch));
    add("--mlp-lr", fmt_num(c.mlp.learning_rate));
    add("--mlp-momentum", fmt_num(c.mlp.momentum));
    add("--mlp-dataset", std::to_string(c.mlp.dataset_size));
    add("--mlp-seed", std::to_string(c.mlp.seed));
    if (c.mlp.read_loss) a.emplace_back("--mlp-read-loss");
    add("--mlp-launch", mlp_launch_name(c.mlp.launch));
    add("--mlp-steps-per-task", std::to_string(c.mlp.steps_per_task));
    add("--mlp-profile", mlp_profile_name(c.mlp.profile));
    add("--mlp-host-us", fmt_num(c.mlp.host_us));
    add("--mlp-extra-us", fmt_num(c.mlp.extra_us));
  } else if (name == "membw") {
    add("--membw-mib", std::to_string(c.membw.mib));
    add("--membw-iters", std::to_string(c.membw.iters));
    add("--membw-blocks", std::to_string(c.membw.blocks));
  } else if (name == "filler") {
    add("--filler-target", fmt_num(c.filler.target_pct));
    add("--filler-kernel-us", fmt_num(c.filler.kernel_us));
    add("--filler-blocks", std::to_string(c.filler.blocks));
    if (c.filler.yield) a.emplace_back("--filler-yield");
    add("--filler-yield-ms", fmt_num(c.filler.yield_ms));
  } else if (name == "mlp-infer") {
    add("--mlp-layers", join_ints(c.mlp.layers, ','));
    add("--mlp-dataset", std::to_string(c.mlp.dataset_size));
    add("--mlp-seed", std::to_string(c.mlp.seed));
    add("--mlp-launch", mlp_launch_name(c.mlp.launch));
    add("--infer-rate", fmt_num(c.infer.rate_per_s));
    add("--infer-batch", std::to_string(c.infer.batch));
  } else if (name == "duty") {
    add("--duty-burst-us", fmt_num(c.duty.burst_us, 12));
    add("--duty-host-us", fmt_num(c.duty.host_us, 12));
    add("--duty-kernels", std::to_string(c.duty.kernels));
    add("--duty-blocks", std::to_string(c.duty.blocks));
    add("--duty-threads", std::to_string(c.duty.threads));
    add("--duty-steps", std::to_string(c.duty.steps_per_task));
  } else if (name == "xray") {
    add("--xray-role", c.xray.role);
    add("--xray-busy-ms", fmt_num(c.xray.busy_ms, 12));
    add("--xray-gap-us", fmt_num(c.xray.gap_us, 12));
    add("--xray-step-us", fmt_num(c.xray.step_us, 12));
  } else if (name == "exec") {
    add("--command", c.exec.command);
    if (!c.exec.metric.empty()) add("--exec-metric", c.exec.metric);
    add("--exec-log-cap", std::to_string(c.exec.log_cap_bytes));
  } else if (name == "cpu") {
    add("--cpu-task-us", fmt_num(c.cpu.task_us));
    add("--cpu-fault", c.cpu.fault);
    add("--cpu-fault-worker", std::to_string(c.cpu.fault_worker));
    add("--cpu-fault-after", std::to_string(c.cpu.fault_after_tasks));
    add("--cpu-setup-ms", fmt_num(c.cpu.setup_ms_per_index));
    add("--cpu-mem-mib", std::to_string(c.cpu.mem_mib));
    if (c.cpu.fill) a.emplace_back("--cpu-fill");
  }
  return a;
}

}  // namespace bench_mps::harness
