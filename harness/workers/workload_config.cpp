#include "harness/workers/workload_config.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "harness/common/cli_checks.hpp"
#include "harness/common/format.hpp"

namespace bench_mps::harness {

void resolve_duty_host_us(WorkloadConfig& config) {
  config.duty.host_us = kernels::duty_host_us(config.duty.burst_us, config.duty_pct);
}

const std::map<std::string, kernels::MlpProfile>& mlp_profile_names() {
  static const std::map<std::string, kernels::MlpProfile> names{{"gpu-bound", kernels::MlpProfile::gpu_bound},
                                                                {"seed001", kernels::MlpProfile::seed001}};
  return names;
}

std::string mlp_profile_name(kernels::MlpProfile profile) {
  return profile == kernels::MlpProfile::seed001 ? "seed001" : "gpu-bound";
}

const std::map<std::string, kernels::XrayRole>& xray_role_names() {
  static const std::map<std::string, kernels::XrayRole> names{
      {"busy", kernels::XrayRole::busy}, {"step", kernels::XrayRole::step}, {"gaps", kernels::XrayRole::gaps}};
  return names;
}

std::string xray_role_name(kernels::XrayRole role) {
  for (const auto& [name, r] : xray_role_names())
    if (r == role) return name;
  return "?";
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
      ->check(whole_in(1, 1000000))
      ->group(spin)
      ->capture_default_str();
  app.add_option("--spin-threads", c.spin.threads, "threads per block")
      ->check(whole_in(1, 1024))
      ->group(spin)
      ->capture_default_str();
  app.add_option("--spin-us", c.spin.launch_us, "busy time of one launch, microseconds")
      ->check(finite_in(0.1, 1e7))
      ->group(spin)
      ->capture_default_str();
  app.add_option("--spin-launches", c.spin.launches, "launches per task")
      ->check(whole_in(1, 10000000))
      ->group(spin)
      ->capture_default_str();

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
      ->check(CLI::IsMember(mlp_profile_names()))
      ->group(mlp)
      ->default_str("gpu-bound");
  app.add_option("--mlp-host-us", c.mlp.host_us,
                 "seed001: host work per step besides assembling the batch, microseconds (default 6280 for seed001)")
      ->check(finite_in(0.0, 1e7))
      ->group(mlp);
  app.add_option("--mlp-layers", c.mlp.layers, "layer sizes, input first, classes last")
      ->delimiter(',')
      ->check(whole_in(1, 65536))
      ->group(mlp)
      ->capture_default_str();
  app.add_option("--mlp-batch", c.mlp.batch, "samples per step")
      ->check(whole_in(1, 65536))
      ->group(mlp)
      ->capture_default_str();
  app.add_option("--mlp-lr", c.mlp.learning_rate, "SGD learning rate")
      ->check(finite_in(1e-9, 10.0))
      ->group(mlp)
      ->capture_default_str();
  app.add_option("--mlp-momentum", c.mlp.momentum, "SGD momentum")
      ->check(finite_in(0.0, 0.999999))
      ->group(mlp)
      ->capture_default_str();
  app.add_option("--mlp-dataset", c.mlp.dataset_size, "synthetic samples")
      ->check(whole_in(1, 10000000))
      ->group(mlp)
      ->capture_default_str();
  app.add_option("--mlp-seed", c.mlp.seed, "seed of data and initial weights")
      ->check(whole_in(0, 1000000000000000000LL))
      ->group(mlp)
      ->capture_default_str();
  app.add_flag("--mlp-read-loss", c.mlp.read_loss, "copy the loss to the host after every step")->group(mlp);
  app.add_option("--mlp-steps-per-task", c.mlp.steps_per_task, "training steps in one timed task")
      ->check(whole_in(1, 1000000))
      ->group(mlp)
      ->capture_default_str();
  app.add_option_function<std::string>(
         "--mlp-launch", [&c](const std::string& v) { c.mlp.launch = mlp_launch_names().at(v); },
         "graph: replay each step as one CUDA graph; eager: launch kernel by kernel (CPU-bound, noisier)")
      ->check(CLI::IsMember(mlp_launch_names()))
      ->group(mlp)
      ->default_str("graph");

  app.add_option("--mlp-extra-us", c.mlp.extra_us,
                 "gpu-bound: an extra busy kernel of this many microseconds in every step (a slower step, as a "
                 "regression would make it: what compare can see)")
      ->check(finite_in(0.0, 1e6))
      ->group(mlp)
      ->capture_default_str();

  const std::string membw = "membw workload";
  app.add_option("--membw-mib", c.membw.mib, "size of each of the triad's three arrays, MiB")
      ->check(whole_in(1, 1 << 20))
      ->group(membw)
      ->capture_default_str();
  app.add_option("--membw-iters", c.membw.iters, "triads per task")
      ->check(whole_in(1, 1000000))
      ->group(membw)
      ->capture_default_str();
  app.add_option("--membw-blocks", c.membw.blocks, "thread blocks per triad (0: 4 per SM)")
      ->check(whole_in(0, 10000000))
      ->group(membw)
      ->capture_default_str();

  const std::string filler = "filler workload";
  app.add_option("--filler-target", c.filler.target_pct, "percent of the time the filler keeps the GPU busy")
      ->check(finite_in(1.0, 100.0))
      ->group(filler)
      ->capture_default_str();
  app.add_option("--filler-kernel-us", c.filler.kernel_us, "busy time of one filler kernel, microseconds")
      ->check(finite_in(10.0, 1e7))
      ->group(filler)
      ->capture_default_str();
  app.add_option("--filler-blocks", c.filler.blocks, "thread blocks per filler kernel (0: one per SM)")
      ->check(whole_in(0, 10000000))
      ->group(filler)
      ->capture_default_str();
  app.add_flag("--filler-yield", c.filler.yield,
               "step aside (--filler-yield-ms) when a kernel runs 1.5x slower than alone: another job is on the GPU")
      ->group(filler);
  app.add_option("--filler-yield-ms", c.filler.yield_ms, "how long the filler steps aside")
      ->check(finite_in(0.0, 3.6e6))
      ->group(filler)
      ->capture_default_str();

  const std::string infer = "mlp-infer workload (open-loop inference requests; the network is --mlp-layers)";
  app.add_option("--infer-rate", c.infer.rate_per_s, "requests per second, arriving at fixed intervals")
      ->check(finite_in(0.1, 1e6))
      ->group(infer)
      ->capture_default_str();
  app.add_option("--infer-batch", c.infer.batch, "samples per request")
      ->check(whole_in(1, 65536))
      ->group(infer)
      ->capture_default_str();

  const std::string duty = "duty workload (a regime point: host work, then a burst of fixed GPU work, per step)";
  app.add_option("--duty-burst-us", c.duty.burst_us, "GPU work per step, microseconds alone")
      ->check(finite_in(1.0, 1e7))
      ->group(duty)
      ->capture_default_str();
  app.add_option("--duty-pct", c.duty_pct, "share of a step alone on the GPU, percent (sets the host work per step)")
      ->check(finite_in(0.1, 100.0))
      ->group(duty)
      ->capture_default_str();
  app.add_option("--duty-kernels", c.duty.kernels, "kernels the burst is split into")
      ->check(whole_in(1, 100000))
      ->group(duty)
      ->capture_default_str();
  app.add_option("--duty-blocks", c.duty.blocks, "thread blocks per kernel (how much of the GPU one kernel fills)")
      ->check(whole_in(1, 1000000))
      ->group(duty)
      ->capture_default_str();
  app.add_option("--duty-threads", c.duty.threads, "threads per block")
      ->check(whole_in(1, 1024))
      ->group(duty)
      ->capture_default_str();
  app.add_option("--duty-steps", c.duty.steps_per_task, "steps in one timed task")
      ->check(whole_in(1, 10000000))
      ->group(duty)
      ->capture_default_str();
  app.add_option("--duty-host-us", c.duty.host_us)
      ->check(finite_in(0.0, kMaxDutyHostUs))
      ->group("");  // bench_mps -> bench_worker

  const std::string xray = "X-ray probes (--scenario xray, regimes)";
  app.add_option("--xray-busy-ms", c.xray.busy_ms, "how long each always-busy context logs when it runs")
      ->check(finite_in(1.0, 60000.0))
      ->group(xray)
      ->capture_default_str();
  app.add_option("--xray-gap-us", c.xray.gap_us,
                 "a pause longer than this in a busy context's clock reads ends its slice")
      ->check(finite_in(0.1, 1e6))
      ->group(xray)
      ->capture_default_str();
  app.add_option("--xray-step-us", c.xray.step_us, "the GPU work of one short synchronising step, microseconds")
      ->check(finite_in(1.0, 1e6))
      ->group(xray)
      ->capture_default_str();
  app.add_option_function<std::string>("--xray-role",
                                       [&c](const std::string& v) { c.xray.role = xray_role_names().at(v); })
      ->check(CLI::IsMember(xray_role_names()))
      ->group("");  // set per worker

  const std::string exec = "exec workload (your own program)";
  app.add_option("--command", c.exec.command,
                 "exec: the shell command each worker runs once after the start barrier, e.g. 'python3 train.py'")
      ->group(exec);
  app.add_option("--exec-metric", c.exec.metric,
                 "exec: regular expression with one capture group reading a per-step time in ms from the "
                 "command's stdout, e.g. 'step_ms=([0-9.]+)' (at most 256 bytes, no back-references; a line is "
                 "matched on its first and last 256 bytes)")
      ->check(not_blank())
      ->group(exec);
  app.add_option_function<std::string>(
         "--exec-metric-kind", [&c](const std::string& v) { c.exec.metric_is_latency = v == "latency"; },
         "exec: what --exec-metric's number is: 'step' (the default: a step's time; throughput is 1000 over it) or "
         "'latency' (one line per request served, its latency, as a paced server prints; throughput is the lines' "
         "rate)")
      ->check(CLI::IsMember({"step", "latency"}))
      ->group(exec);
  app.add_option("--exec-check", c.exec.check,
                 "exec: regular expression with one capture group reading a value of the command's result from its "
                 "stdout, e.g. 'final loss ([0-9.]+)'; the last match is recorded (runs.csv facts check_value), "
                 "a number from 0 to 1e12 (advise --check-metric holds thread limits to it)")
      ->check(not_blank())
      ->group(exec);
  app.add_option("--exec-log-cap", c.exec.log_cap_bytes, "exec: bytes of each copy's stdout and of its stderr kept")
      ->check(whole_in(0, 1LL << 34))
      ->group(exec)
      ->capture_default_str();
  app.add_option("--exec-log-dir", c.exec.log_dir)->group("");    // set by bench_mps per run
  app.add_option("--exec-timeout", c.exec.timeout_s)->group("");  // set by bench_mps from --timeout

  app.add_option("--fault-delay-ms", c.fault_delay_ms,
                 "fault scenario: ms after the start barrier the faulting worker faults")
      ->check(finite_in(0.0, 3.6e6))
      ->group("fault scenario")
      ->capture_default_str();

  // The CPU stand-in exists for tests and for trying the flow without a GPU: in --help with the rest (CLI11 names a
  // hidden option in none of its errors).
  const std::string no_gpu = "without a GPU (CPU stand-ins: to try the flow; no GPU data)";
  app.add_option("--cpu-task-us", c.cpu.task_us,
                 "the cpu workload's task: this many microseconds of a busy host loop (--workloads cpu; at least "
                 "0.001: a task of no time has no rate)")
      ->check(finite_in(0.001, 1e9))
      ->group(no_gpu);
  app.add_option_function<std::string>(
         "--cpu-fault", [&c](const std::string& v) { c.cpu.fault = *parse_cpu_fault(v); },
         "cpu: a fault to inject in one worker (tests): none, error (reports an error), crash (exits 3 without a "
         "word), abort (dies of SIGSEGV, as a crashed GPU program does), hang, hang-before-ready, exit-before-ready; "
         "a worker of that index only (--cpu-fault-worker), in runs with that many workers")
      ->check(CLI::IsMember(cpu_fault_names()))
      ->group(no_gpu);
  app.add_option("--cpu-fault-worker", c.cpu.fault_worker, "cpu: the index of the worker that faults (default 0)")
      ->check(whole_in(0, 1000000))
      ->group(no_gpu);
  app.add_option("--cpu-fault-after", c.cpu.fault_after_tasks,
                 "cpu: the tasks it completes before the fault (default 2)")
      ->check(whole_in(0, 1000000000))
      ->group(no_gpu);
  app.add_option("--cpu-setup-ms", c.cpu.setup_ms_per_index,
                 "cpu: worker i sleeps i x this many ms in its set-up (READY staggered; tests of the barrier)")
      ->check(finite_in(0.0, 1e6))
      ->group(no_gpu);
  app.add_option("--cpu-mem-mib", c.cpu.mem_mib,
                 "cpu: the 'device memory' each worker claims; over CUDA_MPS_PINNED_DEVICE_MEM_LIMIT it fails in "
                 "set-up, as cudaMalloc does under that MPS limit")
      ->check(whole_in(0, 1 << 30))
      ->group(no_gpu);
  app.add_flag("--cpu-fill", c.cpu.fill,
               "cpu: a task fills the 'device': under an MPS thread percentage p it takes 100/p times as long")
      ->group(no_gpu);
}

namespace {

std::string join_ints(const std::vector<int>& v, char sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? std::string(1, sep) : "") + std::to_string(v[i]);
  return out;
}

using AddArg = std::function<void(const char*, const std::string&)>;

void spin_params(const WorkloadConfig& c, std::ostringstream& s) {
  s << "blocks=" << c.spin.blocks << ";threads=" << c.spin.threads << ";launch_us=" << fmt_num(c.spin.launch_us)
    << ";launches=" << c.spin.launches;
}

void spin_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
  add("--spin-blocks", std::to_string(c.spin.blocks));
  add("--spin-threads", std::to_string(c.spin.threads));
  add("--spin-us", fmt_num(c.spin.launch_us));
  add("--spin-launches", std::to_string(c.spin.launches));
}

void mlp_params(const WorkloadConfig& c, std::ostringstream& s) {
  s << "profile=" << mlp_profile_name(c.mlp.profile) << ";layers=" << join_ints(c.mlp.layers, '-')
    << ";batch=" << c.mlp.batch << ";lr=" << fmt_num(c.mlp.learning_rate) << ";momentum=" << fmt_num(c.mlp.momentum)
    << ";dataset=" << c.mlp.dataset_size << ";seed=" << c.mlp.seed << ";read_loss=" << (c.mlp.read_loss ? 1 : 0)
    << ";launch=" << mlp_launch_name(c.mlp.launch) << ";steps_per_task=" << c.mlp.steps_per_task;
  if (c.mlp.profile == kernels::MlpProfile::seed001) s << ";host_us=" << fmt_num(c.mlp.host_us);
  if (c.mlp.extra_us > 0) s << ";extra_us=" << fmt_num(c.mlp.extra_us);
}

void mlp_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
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
}

void membw_params(const WorkloadConfig& c, std::ostringstream& s) {
  s << "mib=" << c.membw.mib << ";iters=" << c.membw.iters << ";blocks=" << c.membw.blocks
    << ";threads=" << c.membw.threads;
}

void membw_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
  add("--membw-mib", std::to_string(c.membw.mib));
  add("--membw-iters", std::to_string(c.membw.iters));
  add("--membw-blocks", std::to_string(c.membw.blocks));
}

void filler_params(const WorkloadConfig& c, std::ostringstream& s) {
  s << "target_pct=" << fmt_num(c.filler.target_pct) << ";kernel_us=" << fmt_num(c.filler.kernel_us)
    << ";blocks=" << c.filler.blocks << ";threads=" << c.filler.threads << ";yield=" << (c.filler.yield ? 1 : 0);
  if (c.filler.yield) s << ";yield_ms=" << fmt_num(c.filler.yield_ms);
}

void filler_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
  add("--filler-target", fmt_num(c.filler.target_pct));
  add("--filler-kernel-us", fmt_num(c.filler.kernel_us));
  add("--filler-blocks", std::to_string(c.filler.blocks));
  if (c.filler.yield) a.emplace_back("--filler-yield");
  add("--filler-yield-ms", fmt_num(c.filler.yield_ms));
}

void mlp_infer_params(const WorkloadConfig& c, std::ostringstream& s) {
  s << "layers=" << join_ints(c.mlp.layers, '-') << ";batch=" << c.infer.batch
    << ";rate=" << fmt_num(c.infer.rate_per_s) << ";dataset=" << c.mlp.dataset_size << ";seed=" << c.mlp.seed
    << ";launch=" << mlp_launch_name(c.mlp.launch);
}

void mlp_infer_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
  add("--mlp-layers", join_ints(c.mlp.layers, ','));
  add("--mlp-dataset", std::to_string(c.mlp.dataset_size));
  add("--mlp-seed", std::to_string(c.mlp.seed));
  add("--mlp-launch", mlp_launch_name(c.mlp.launch));
  add("--infer-rate", fmt_num(c.infer.rate_per_s));
  add("--infer-batch", std::to_string(c.infer.batch));
}

void duty_params(const WorkloadConfig& c, std::ostringstream& s) {
  s << "burst_us=" << fmt_num(c.duty.burst_us) << ";host_us=" << fmt_num(c.duty.host_us)
    << ";kernels=" << c.duty.kernels << ";blocks=" << c.duty.blocks << ";threads=" << c.duty.threads
    << ";steps_per_task=" << c.duty.steps_per_task;
}

void duty_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
  add("--duty-burst-us", fmt_num(c.duty.burst_us, 12));
  add("--duty-host-us", fmt_num(c.duty.host_us, 12));
  add("--duty-kernels", std::to_string(c.duty.kernels));
  add("--duty-blocks", std::to_string(c.duty.blocks));
  add("--duty-threads", std::to_string(c.duty.threads));
  add("--duty-steps", std::to_string(c.duty.steps_per_task));
}

void xray_params(const WorkloadConfig& c, std::ostringstream& s) {
  s << "busy_ms=" << fmt_num(c.xray.busy_ms) << ";gap_us=" << fmt_num(c.xray.gap_us)
    << ";step_us=" << fmt_num(c.xray.step_us);
}

void xray_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
  add("--xray-role", xray_role_name(c.xray.role));
  add("--xray-busy-ms", fmt_num(c.xray.busy_ms, 12));
  add("--xray-gap-us", fmt_num(c.xray.gap_us, 12));
  add("--xray-step-us", fmt_num(c.xray.step_us, 12));
}

void exec_params(const WorkloadConfig& c, std::ostringstream& s) {
  if (!c.exec.metric.empty()) s << "metric=" << c.exec.metric << ";";
  if (c.exec.metric_is_latency) s << "metric_kind=latency;";
  if (!c.exec.check.empty()) s << "check=" << c.exec.check << ";";
  s << "command=" << c.exec.command;  // last: a command may hold ';' or '='
}

void exec_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
  add("--command", c.exec.command);
  if (!c.exec.metric.empty()) add("--exec-metric", c.exec.metric);
  if (c.exec.metric_is_latency) add("--exec-metric-kind", "latency");
  if (!c.exec.check.empty()) add("--exec-check", c.exec.check);
  add("--exec-log-cap", std::to_string(c.exec.log_cap_bytes));
}

void cpu_params(const WorkloadConfig& c, std::ostringstream& s) {
  s << "task_us=" << fmt_num(c.cpu.task_us);
  if (c.cpu.fault != CpuFault::none)
    s << ";fault=" << cpu_fault_name(c.cpu.fault) << ";fault_worker=" << c.cpu.fault_worker
      << ";fault_after=" << c.cpu.fault_after_tasks;
  if (c.cpu.fill) s << ";fill=1";
}

void cpu_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
  add("--cpu-task-us", fmt_num(c.cpu.task_us));
  add("--cpu-fault", cpu_fault_name(c.cpu.fault));
  add("--cpu-fault-worker", std::to_string(c.cpu.fault_worker));
  add("--cpu-fault-after", std::to_string(c.cpu.fault_after_tasks));
  add("--cpu-setup-ms", fmt_num(c.cpu.setup_ms_per_index));
  add("--cpu-mem-mib", std::to_string(c.cpu.mem_mib));
  if (c.cpu.fill) a.emplace_back("--cpu-fill");
}

void fault_args(const WorkloadConfig& c, const AddArg& add, std::vector<std::string>& a) {
  spin_args(c, add, a);
  add("--fault-delay-ms", fmt_num(c.fault_delay_ms));
}

/// What a workload is, as flags of its row.
enum Trait : unsigned {
  kOffered = 1u << 0,      ///< --workloads accepts it (fault and xray come through their scenarios)
  kUnlisted = 1u << 1,     ///< offered but left out of the names messages list (cpu: the tests' stand-in)
  kGpu = 1u << 2,          ///< needs a GPU (not cpu; not exec: the user's program may not use one at all)
  kRounds = 1u << 3,       ///< a process may run several rounds (not exec: its start-up is timed; not the faulter)
  kStreams = 1u << 4,      ///< a task enqueues its work without waiting on the host: one thread feeds N streams
  kMlpProfile = 1u << 5,   ///< --mlp-profile applies: a seed001 task is an epoch that waits on the host
                           ///< (one round, no warm-up, no streams)
  kUserProgram = 1u << 6,  ///< runs the user's program (exec): once per worker and run, a process of its own
  kCpuStandIn = 1u << 7,   ///< --cpu-stand-in has a CPU stand-in of it (duty, xray)
};

/// Every workload bench_worker runs, in the order help texts list them: what it is (its traits), its
/// warm-up tasks, and how its parameters become a canonical string and bench_worker's arguments. Its
/// word is workload_kind's.
struct WorkloadRow {
  WorkloadKind kind;
  unsigned traits;
  int warmup;            ///< untimed tasks before READY (exec: none, it runs once; duty: 1, a step can be 0.2 s)
  DefaultLength length;  ///< without --tasks or --duration (the sweep's scenarios may set their own)
  void (*params)(const WorkloadConfig&, std::ostringstream&);
  void (*args)(const WorkloadConfig&, const AddArg&, std::vector<std::string>&);
  bool has(Trait t) const { return (traits & t) != 0; }
};

void no_params(const WorkloadConfig&, std::ostringstream&) {}

const std::vector<WorkloadRow>& workload_rows() {
  using K = WorkloadKind;
  static const std::vector<WorkloadRow> rows{
      // kind, traits, warm-up tasks, default length {tasks, seconds}, parameters, worker arguments
      // spin: 30 x 100 launches x 100 us = 0.3 s alone, 3.2 s for 10 time-sliced.
      {K::spin, kOffered | kGpu | kRounds | kStreams, 2, {30, 0}, spin_params, spin_args},
      // mlp runs for a time, not a count: a fixed count is 50 ms alone but 1.2 s for 10 time-sliced, and a
      // 50 ms run can lose 7% to one 15 ms hiccup of the machine. 0.5 s for every N keeps that below 2%.
      // (Its seed001 profile: one epoch, default_run_length.)
      {K::mlp, kOffered | kGpu | kRounds | kStreams | kMlpProfile, 2, {0, 0.5}, mlp_params, mlp_args},
      {K::membw, kOffered | kGpu | kRounds | kStreams, 2, {0, 0.5}, membw_params, membw_args},
      // The filler's load is read from NVML, whose samples cover 1/6 s to 1 s each: 3 s gives several.
      {K::filler, kOffered | kGpu | kRounds, 2, {0, 3.0}, filler_params, filler_args},
      // 400 requests at the default 200 per second.
      {K::mlp_infer, kOffered | kGpu | kRounds, 2, {0, 2.0}, mlp_infer_params, mlp_infer_args},
      {K::duty, kOffered | kGpu | kRounds | kCpuStandIn, 1, {50, 0}, duty_params, duty_args},
      // The user's program runs once per worker and run.
      {K::exec, kOffered | kUserProgram, 0, {1, 0}, exec_params, exec_args},
      {K::cpu, kOffered | kUnlisted | kRounds | kStreams, 2, {50, 0}, cpu_params, cpu_args},  // 50 x 2 ms
      {K::fault, kGpu, 2, {50, 0}, no_params, fault_args},
      // Busy probes: one logging kernel per round (step probes: see plan_sweep).
      {K::xray, kGpu | kRounds | kCpuStandIn, 2, {1, 0}, xray_params, xray_args},
  };
  return rows;
}

const WorkloadRow& row_of(WorkloadKind kind) {
  for (const WorkloadRow& r : workload_rows())
    if (r.kind == kind) return r;
  throw std::logic_error("workload_rows: no row of " + to_string(kind));
}

/// The row of `name`; null for a name no workload has.
const WorkloadRow* row_of(const std::string& name) {
  const std::optional<WorkloadKind> kind = parse_workload_kind(name);
  return kind ? &row_of(*kind) : nullptr;
}

bool has_trait(const std::string& name, Trait t) {
  const WorkloadRow* row = row_of(name);
  return row && row->has(t);
}

/// mlp's seed001 profile: a task is an epoch that waits on the host every step.
bool seed001_epochs(const WorkloadRow& row, const WorkloadConfig& config) {
  return row.has(kMlpProfile) && config.mlp.profile == kernels::MlpProfile::seed001;
}

/// The words of the rows with every trait of `all` and none of `none`, in the table's order.
std::vector<std::string> names_with(unsigned all, unsigned none) {
  std::vector<std::string> n;
  for (const WorkloadRow& r : workload_rows())
    if ((r.traits & all) == all && (r.traits & none) == 0) n.push_back(to_string(r.kind));
  return n;
}

}  // namespace

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names = names_with(kOffered, 0);
  return names;
}

const std::vector<std::string>& listed_workload_names() {
  static const std::vector<std::string> names = names_with(kOffered, kUnlisted);
  return names;
}

const std::vector<std::string>& worker_workload_names() {
  static const std::vector<std::string> names = names_with(0, 0);
  return names;
}

bool is_known_workload(const std::string& name) { return has_trait(name, kOffered); }

bool workload_needs_gpu(const std::string& name) {
  const WorkloadRow* row = row_of(name);
  return !row || row->has(kGpu);
}

bool workload_needs_gpu(WorkloadKind kind) { return row_of(kind).has(kGpu); }

bool runs_user_program(const std::string& name) { return has_trait(name, kUserProgram); }

bool runs_user_program(WorkloadKind kind) { return row_of(kind).has(kUserProgram); }

bool has_cpu_stand_in(const std::string& name) { return has_trait(name, kCpuStandIn); }

bool workload_allows_rounds(const std::string& name, const WorkloadConfig& config) {
  const WorkloadRow* row = row_of(name);
  if (!row) return true;
  return row->has(kRounds) && !seed001_epochs(*row, config);
}

bool workload_feeds_streams(const std::string& name, const WorkloadConfig& config) {
  const WorkloadRow* row = row_of(name);
  if (!row || !row->has(kStreams)) return false;
  return !row->has(kMlpProfile) || (config.mlp.profile == kernels::MlpProfile::gpu_bound && !config.mlp.read_loss);
}

int default_warmup_tasks(const std::string& workload, const WorkloadConfig& config) {
  const WorkloadRow* row = row_of(workload);
  if (!row) return 2;
  return seed001_epochs(*row, config) ? 0 : row->warmup;
}

DefaultLength default_run_length(const std::string& workload, const WorkloadConfig& config) {
  const WorkloadRow* row = row_of(workload);
  if (!row) return {50, 0};
  return seed001_epochs(*row, config) ? DefaultLength{1, 0} : row->length;
}

std::string workload_params_string(const std::string& name, const WorkloadConfig& c) {
  std::ostringstream s;
  if (const WorkloadRow* row = row_of(name)) row->params(c, s);
  return s.str();
}

std::vector<std::string> workload_worker_args(const std::string& name, const WorkloadConfig& c) {
  std::vector<std::string> a{"--workload", name};
  const AddArg add = [&a](const char* flag, const std::string& value) {
    a.emplace_back(flag);
    a.push_back(value);
  };
  if (const WorkloadRow* row = row_of(name)) row->args(c, add, a);
  return a;
}

}  // namespace bench_mps::harness
