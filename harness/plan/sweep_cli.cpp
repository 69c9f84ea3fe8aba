#include "harness/plan/sweep_cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <climits>
#include <set>

#include "harness/common/cli_checks.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"

namespace bench_mps::harness {
namespace {

std::vector<std::string> list_items(const std::string& text, const std::string& what) {
  if (trim(text).empty()) throw UsageError(what + ": empty list");
  std::vector<std::string> items;
  for (const std::string& raw : split(text, ',')) {
    const std::string item = trim(raw);
    if (item.empty()) throw UsageError(what + ": empty item in '" + text + "'");
    if (std::find(items.begin(), items.end(), item) != items.end())
      throw UsageError(what + ": '" + item + "' is listed twice");
    items.push_back(item);
  }
  return items;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

int parse_positive(const std::string& item, const std::string& what, int max_value) {
  if (!all_digits(item)) throw UsageError(what + ": '" + item + "' is not a positive integer");
  if (item.size() > 9 || std::stol(item) > max_value)
    throw UsageError(what + ": " + item + " is more than " + std::to_string(max_value));
  const int value = std::stoi(item);
  if (value <= 0) throw UsageError(what + ": " + item + " is not a positive integer");
  return value;
}

}  // namespace

std::vector<int> parse_procs(const std::string& text, const std::string& what) {
  std::vector<int> procs;
  std::set<int> seen;
  for (const std::string& item : list_items(text, what)) {
    const int n = parse_positive(item, what, 1024);
    if (!seen.insert(n).second) throw UsageError(what + ": " + std::to_string(n) + " is listed twice");
    procs.push_back(n);
  }
  return procs;
}

std::vector<Mode> parse_modes(const std::string& text) {
  std::vector<Mode> modes;
  for (const std::string& item : list_items(text, "--modes")) {
    Mode m;
    if (item == "timeslice") {
      m = {"timeslice", false, 0};
    } else if (item == "mps") {
      m = {"mps", true, 0};
    } else if (item.rfind("mps:", 0) == 0) {
      const std::string pct = item.substr(4);
      if (!all_digits(pct) || pct.size() > 3 || std::stoi(pct) < 1 || std::stoi(pct) > 100)
        throw UsageError("--modes: '" + item + "': the active thread percentage must be an integer in 1..100");
      m = {"mps:" + std::to_string(std::stoi(pct)), true, std::stoi(pct)};
    } else {
      throw UsageError("--modes: unknown mode '" + item + "' (known: timeslice, mps, mps:<percent>)");
    }
    for (const Mode& other : modes)
      if (other.name == m.name) throw UsageError("--modes: '" + m.name + "' is listed twice");
    modes.push_back(m);
  }
  return modes;
}

std::vector<std::string> parse_workloads(const std::string& text) {
  std::vector<std::string> names = list_items(text, "--workloads");
  for (const std::string& name : names) {
    if (!is_known_workload(name)) {
      std::string known;
      for (const auto& k : workload_names())
        if (k != "cpu") known += (known.empty() ? "" : ", ") + k;  // cpu is the tests' stand-in
      throw UsageError("--workloads: unknown workload '" + name + "' (known: " + known + ")");
    }
  }
  return names;
}

void add_sweep_options(CLI::App& app, SweepSpec& spec, SweepCliValues& raw) {
  const std::string sweep = "sweep";
  app.add_option("--procs", raw.procs, "numbers of worker processes sharing the GPU, e.g. 1,4,10")
      ->group(sweep)->capture_default_str();
  app.add_option("--modes", raw.modes, "timeslice, mps, mps:<percent> (MPS with an active-thread limit)")
      ->group(sweep)->capture_default_str();
  raw.workloads_option =
      app.add_option("--workloads", raw.workloads,
                     "spin, mlp, exec (your --command) (default spin,mlp; spin for --scenario fault)")->group(sweep);
  app.add_option("--repeats", spec.repeats, "repeats of every configuration (see README: why 5)")
      ->check(whole_in(1, 1000))->group(sweep)->capture_default_str();
  auto* tasks = app.add_option("--tasks", spec.tasks, "timed tasks per worker (default: per workload)")
                    ->check(whole_in(1, 100000000))->group(sweep);
  auto* duration = app.add_option("--duration", spec.duration_s, "run each worker this many seconds instead")
                       ->check(finite_in(0.001, 86400.0))->group(sweep);
  tasks->excludes(duration);
  app.add_option("--warmup", spec.warmup,
                 "untimed tasks per worker before the start barrier (default 2; 0 for exec and mlp's seed001 profile)")
      ->check(whole_in(0, 100000))->group(sweep);
  auto* out = app.add_option("--out", spec.out_dir, "results folder (default results/<date>-<gpu>)")->group(sweep);
  app.add_option("--resume", raw.resume_dir, "continue the interrupted sweep in this results folder")
      ->group(sweep)->excludes(out);
  app.add_option("--scenario", spec.scenario, "sweep, or fault: N-1 victims beside one worker that faults")
      ->check(CLI::IsMember({"sweep", "fault"}))->group(sweep)->capture_default_str();
  app.add_flag("--set-exclusive", spec.set_exclusive,
               "switch the GPU to EXCLUSIVE_PROCESS for MPS blocks and back (root; for machines you own)")
      ->group(sweep);

  const std::string limits = "limits";
  app.add_option("--timeout", spec.run_timeout_s, "seconds a run may take after the start barrier")
      ->check(finite_in(0.1, 86400.0))->group(limits)->capture_default_str();
  app.add_option("--ready-timeout", spec.ready_timeout_s, "seconds workers may take to become READY")
      ->check(finite_in(0.1, 86400.0))->group(limits)->capture_default_str();
  app.add_option("--mps-max-clients", spec.mps_max_clients, "clients one MPS server accepts (48 on Volta and newer)")
      ->check(whole_in(1, 1024))->group(limits)->capture_default_str();
  app.add_option("--settle", spec.settle_s, "idle seconds before every run (lets the last run's teardown finish)")
      ->check(finite_in(0.0, 600.0))->group(limits)->capture_default_str();
  app.add_flag("!--no-pin", spec.pin_cpus, "do not pin each worker to its own CPU core")->group(limits);
  app.add_option("--worker", spec.worker_exe, "worker executable (default: bench_worker beside bench_mps)")->group("");

  add_workload_options(app, spec.params);
  add_device_options(app, spec, raw.device);
}

void finalize_sweep_spec(SweepSpec& spec, const SweepCliValues& raw) {
  spec.procs = parse_procs(raw.procs);
  spec.modes = parse_modes(raw.modes);
  const bool workloads_given = raw.workloads_option && raw.workloads_option->count() > 0;
  spec.workloads = parse_workloads(workloads_given ? raw.workloads : (spec.scenario == "fault" ? "spin" : "spin,mlp"));
  if (!raw.resume_dir.empty()) {
    spec.resume = true;
    spec.out_dir = raw.resume_dir;
  }
  if (spec.scenario == "fault" && *std::max_element(spec.procs.begin(), spec.procs.end()) < 2)
    throw UsageError("--scenario fault: needs N >= 2 in --procs (N-1 victims and one faulting worker)");
  const int max_procs = *std::max_element(spec.procs.begin(), spec.procs.end());
  for (const Mode& m : spec.modes)
    if (m.mps && max_procs > spec.mps_max_clients)
      throw UsageError("--procs: " + std::to_string(max_procs) + " processes under " + m.name + " is more than the " +
                       std::to_string(spec.mps_max_clients) + " clients an MPS server accepts (--mps-max-clients)");
  const bool has_exec = std::find(spec.workloads.begin(), spec.workloads.end(), "exec") != spec.workloads.end();
  if (has_exec) {
    if (spec.scenario == "fault") throw UsageError("--scenario fault: runs our own spin workload, not exec");
    try {
      validate_exec_params(spec.params.exec);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  } else if (!spec.params.exec.command.empty() || !spec.params.exec.metric.empty()) {
    throw UsageError("--command/--exec-metric: only the exec workload runs a command; add --workloads exec");
  }
  if (spec.params.mlp.profile == kernels::MlpProfile::seed001 && spec.params.mlp.launch != kernels::MlpLaunch::eager)
    throw UsageError("--mlp-launch graph: the seed001 profile assembles each batch on the host and launches eagerly");
  if (spec.params.mlp.layers.size() < 2)
    throw UsageError("--mlp-layers: need at least an input and an output size, e.g. 784,512,10");
  if (spec.params.mlp.layers.back() < 2) throw UsageError("--mlp-layers: the last size (classes) must be at least 2");
  if (spec.params.mlp.dataset_size < spec.params.mlp.batch)
    throw UsageError("--mlp-dataset: " + std::to_string(spec.params.mlp.dataset_size) + " samples is fewer than one batch of " +
                     std::to_string(spec.params.mlp.batch));
  finalize_device_options(spec, raw.device);
}

SweepSpec parse_sweep_args(const std::vector<std::string>& args) {
  CLI::App app{"bench_mps"};
  SweepSpec spec;
  SweepCliValues raw;
  add_sweep_options(app, spec, raw);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw UsageError(std::string("stored command line: ") + e.what());
  }
  finalize_sweep_spec(spec, raw);
  return spec;
}

bool sweep_defined_on_command_line(const CLI::App& app) {
  static const std::set<std::string> not_defining{"--resume", "--timeout", "--ready-timeout", "--worker",
                                                  "--mps-max-clients", "--settle", "--no-pin", "--help"};
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->count() == 0) continue;
    bool defining = true;
    for (const std::string& name : opt->get_lnames())
      if (not_defining.count("--" + name)) defining = false;
    if (defining) return true;
  }
  return false;
}

}  // namespace bench_mps::harness
