#include "harness/plan/sweep_cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <set>

#include "harness/common/cli_checks.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/word_table.hpp"
#include "harness/plan/exec_options.hpp"
#include "harness/profiler/profile_format.hpp"

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

std::vector<int> parse_procs(const std::string& text, const std::string& what, int most) {
  std::vector<int> procs;
  std::set<int> seen;
  for (const std::string& item : list_items(text, what)) {
    const int n = parse_positive(item, what, most);
    if (!seen.insert(n).second) throw UsageError(what + ": " + std::to_string(n) + " is listed twice");
    procs.push_back(n);
  }
  return procs;
}

namespace {

/// "512M", "2G", "1.5G": bytes (> 0), a whole number of MiB: CUDA_MPS_PINNED_DEVICE_MEM_LIMIT takes
/// whole M or G, so a size it cannot express is refused rather than rounded (name, record and limit agree).
std::uint64_t parse_size(const std::string& text, const std::string& what) {
  const std::size_t used = decimal_prefix(text);
  const double number = used ? std::strtod(text.substr(0, used).c_str(), nullptr) : 0;
  const std::string unit = text.substr(used);
  const double scale = unit == "G" ? 1024.0 * 1024 * 1024 : unit == "M" ? 1024.0 * 1024 : 0;
  if (scale == 0 || !(number > 0) || !std::isfinite(number) || number * scale > 1e15)
    throw UsageError(what + ": '" + text + "' is not a size such as 512M or 2G");
  const double mib = number * scale / (1024.0 * 1024);
  if (mib != std::floor(mib))
    throw UsageError(what + ": '" + text +
                     "' is not a whole number of MiB (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT takes whole M or G)");
  return static_cast<std::uint64_t>(mib) << 20;
}

std::string size_name(std::uint64_t bytes) {
  return bytes % (1ull << 30) == 0 ? std::to_string(bytes >> 30) + "G" : std::to_string(bytes >> 20) + "M";
}

/// "a/b/c" as integers in [lo, hi].
std::vector<int> parse_int_list(const std::string& text, int lo, int hi, const std::string& what) {
  std::vector<int> out;
  for (const std::string& item : split(text, '/')) {
    if (!all_digits(item) || item.size() > 6 || std::stoi(item) < lo || std::stoi(item) > hi)
      throw UsageError(what + ": '" + item + "' must be an integer in " + std::to_string(lo) + ".." +
                       std::to_string(hi));
    out.push_back(std::stoi(item));
  }
  return out;
}

/// The first word of a --modes item, and of every canonical mode name.
constexpr WordTable<ModeKind, 5> kModeKindWords{{
    {ModeKind::timeslice, "timeslice"},
    {ModeKind::mps, "mps"},
    {ModeKind::streams, "streams"},
    {ModeKind::threads, "threads"},
    {ModeKind::green, "green"},
}};

/// Whether a mode of `kind` takes something after ':' (mps:50, streams:4, green:64).
bool takes_argument(ModeKind kind) {
  return kind == ModeKind::mps || kind == ModeKind::streams || kind == ModeKind::green;
}

template <class T, class F>
std::string join_list(const std::vector<T>& v, F name) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "/" : "") + name(v[i]);
  return out;
}

}  // namespace

Mode parse_mode(const std::string& item) {
  const std::string what = "--modes: '" + item + "'";
  const std::vector<std::string> parts = split(item, '+');
  const std::string base = parts.front();
  const auto colon = base.find(':');
  const std::optional<ModeKind> kind = value_of(kModeKindWords, base.substr(0, colon));
  const std::string arg = colon == std::string::npos ? "" : base.substr(colon + 1);
  if (colon != std::string::npos && arg.empty()) throw UsageError(what + ": nothing after ':'");
  if (!kind || (!arg.empty() && !takes_argument(*kind)))
    throw UsageError("--modes: unknown mode '" + item +
                     "' (known: timeslice, mps, mps:<percent>, mps:auto, mps:<p0>/<p1>/..., streams[:<connections>], "
                     "threads, green[:<sms>]; MPS options +prio, +prio=<p0>/..., +mem=<size>/...)");
  Mode m;
  m.kind = *kind;
  m.mps = m.kind == ModeKind::mps;
  if (m.mps) {
    if (arg == "auto") {
      m.auto_pct = true;
    } else if (arg.find('/') != std::string::npos) {
      m.client_pcts = parse_int_list(arg, 1, 100, what + ": active thread percentages");
    } else if (!arg.empty()) {
      m.active_thread_pct = parse_int_list(arg, 1, 100, what + ": the active thread percentage").front();
    }
  }
  if (m.kind == ModeKind::streams && !arg.empty())
    m.max_connections = parse_int_list(arg, 1, 32, what + ": CUDA_DEVICE_MAX_CONNECTIONS").front();
  if (m.kind == ModeKind::green && !arg.empty())
    m.green_sms = parse_int_list(arg, 1, 100000, what + ": SMs per green context").front();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& opt = parts[i];
    if (!m.mps) throw UsageError(what + ": '+" + opt + "' applies to MPS modes only");
    if (opt == "prio") {
      if (m.prio_first || !m.client_priorities.empty()) throw UsageError(what + ": priority given twice");
      m.prio_first = true;  // the first client (the foreground of --scenario interference) first
    } else if (opt.rfind("prio=", 0) == 0) {
      if (m.prio_first || !m.client_priorities.empty()) throw UsageError(what + ": priority given twice");
      m.client_priorities =
          parse_int_list(opt.substr(5), 0, 1, what + ": client priorities (0 normal, 1 below normal)");
    } else if (opt.rfind("mem=", 0) == 0) {
      if (!m.client_mem_limits.empty()) throw UsageError(what + ": memory limit given twice");
      for (const std::string& size : split(opt.substr(4), '/')) m.client_mem_limits.push_back(parse_size(size, what));
    } else {
      throw UsageError(what + ": unknown MPS option '+" + opt + "' (known: +prio, +prio=<p0>/..., +mem=<size>/...)");
    }
  }
  // The canonical name: the same mode always gets the same name (results pair on it).
  m.name = std::string(*word_of(kModeKindWords, m.kind));
  if (m.kind == ModeKind::streams && m.max_connections) m.name += ":" + std::to_string(m.max_connections);
  if (m.kind == ModeKind::green && m.green_sms) m.name += ":" + std::to_string(m.green_sms);
  if (m.mps) {
    if (m.auto_pct) m.name += ":auto";
    if (m.active_thread_pct) m.name += ":" + std::to_string(m.active_thread_pct);
    if (!m.client_pcts.empty()) m.name += ":" + join_list(m.client_pcts, [](int v) { return std::to_string(v); });
    if (m.prio_first) {
      m.name += "+prio";
    } else if (!m.client_priorities.empty()) {
      m.name += "+prio=" + join_list(m.client_priorities, [](int v) { return std::to_string(v); });
    }
    if (!m.client_mem_limits.empty()) m.name += "+mem=" + join_list(m.client_mem_limits, size_name);
  }
  return m;
}

namespace {

/// In-process modes run workloads in one process: not exec (a program of its own), and for streams
/// only workloads that can enqueue a task without waiting on the host.
void check_modes_fit_workloads(const SweepSpec& spec) {
  for (const Mode& m : spec.modes) {
    if (!m.in_process()) continue;
    if (scenario_plan(spec.scenario).processes_only)
      throw UsageError("--modes " + m.name + ": the " + std::string(scenario_name(spec.scenario)) +
                       " scenario runs processes (timeslice, mps)");
    for (const std::string& w : spec.workloads) {
      if (runs_user_program(w))
        throw UsageError("--modes " + m.name +
                         ": exec runs your program as a process of its own; use timeslice or mps");
      if (m.kind == ModeKind::green && !workload_needs_gpu(w))
        throw UsageError("--modes " + m.name + ": green contexts need a GPU workload");
      if (m.kind == ModeKind::streams && !workload_feeds_streams(w, spec.params))
        throw UsageError("--modes " + m.name + ": " + w +
                         " waits on the host within a task, so one thread cannot feed several streams of it "
                         "(streams runs spin, membw, mlp's gpu-bound profile); use threads");
    }
  }
}

/// --scenario xray and regimes: their own workloads, process modes, 2 repeats unless given, the grid.
void finalize_regime_options(SweepSpec& spec, const SweepCliValues& raw, bool workloads_given) {
  const bool regimes = spec.scenario == Scenario::regimes, xray = spec.scenario == Scenario::xray;
  const bool bursts = raw.regime_bursts_option && raw.regime_bursts_option->count() > 0;
  const bool duties = raw.regime_duties_option && raw.regime_duties_option->count() > 0;
  if (!regimes && (bursts || duties))
    throw UsageError(std::string(bursts ? "--regime-bursts-ms" : "--regime-duties") +
                     ": the grid belongs to --scenario regimes");
  if (!regimes && !xray) return;
  if (workloads_given)
    throw UsageError(
        "--workloads: --scenario " + raw.scenario + " runs its own probes" +
        (regimes ? " and the duty workload; place your workloads on the map with `bench_mps report DIR --place FOLDER`"
                 : ""));
  for (const Mode& m : spec.modes)
    if (m.in_process())
      throw UsageError("--modes " + m.name + ": --scenario " + raw.scenario + " measures processes (timeslice, mps)");
  if (!raw.repeats_option || raw.repeats_option->count() == 0) spec.repeats = 2;
  if (xray && (!raw.procs_option || raw.procs_option->count() == 0)) spec.procs = {1, 2, 4, 10};
  if (bursts) spec.regime_bursts_ms = parse_number_list(raw.regime_bursts, 0.001, 10000, "--regime-bursts-ms");
  if (duties) spec.regime_duties_pct = parse_number_list(raw.regime_duties, 0.1, 100, "--regime-duties");
  // Valid alone, too much together (issue 35): every grid point's host work must be what a worker takes.
  if (regimes)
    for (double burst : spec.regime_bursts_ms)
      for (double duty : spec.regime_duties_pct)
        if (kernels::duty_host_us(burst * 1000, duty) > kMaxDutyHostUs)
          throw UsageError("--regime-bursts-ms " + fmt_num(burst) + " with --regime-duties " + fmt_num(duty) +
                           ": a step's host work would be " +
                           fmt_num(kernels::duty_host_us(burst * 1000, duty) * 1e-6, 4) +
                           " s, more than a worker takes (" + fmt_num(kMaxDutyHostUs * 1e-6) + " s)");
}

}  // namespace

std::vector<Mode> parse_modes(const std::string& text) {
  std::vector<Mode> modes;
  for (const std::string& item : list_items(text, "--modes")) {
    const Mode m = parse_mode(item);
    for (const Mode& other : modes)
      if (other.name == m.name) throw UsageError("--modes: '" + m.name + "' is listed twice");
    modes.push_back(m);
  }
  return modes;
}

std::vector<double> parse_number_list(const std::string& text, double lo, double hi, const std::string& what) {
  std::vector<double> out;
  for (const std::string& item : list_items(text, what)) {
    const double v = decimal_prefix(item) == item.size() ? std::strtod(item.c_str(), nullptr) : NAN;
    if (!std::isfinite(v)) throw UsageError(what + ": '" + item + "' is not a number");
    if (v < lo || v > hi) throw UsageError(what + ": " + item + " is outside " + fmt_num(lo) + ".." + fmt_num(hi));
    if (std::find(out.begin(), out.end(), v) != out.end()) throw UsageError(what + ": " + item + " is listed twice");
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void check_known_workload(const std::string& name, const std::string& option) {
  if (is_known_workload(name)) return;
  std::string known;
  for (const auto& k : listed_workload_names()) known += (known.empty() ? "" : ", ") + k;
  throw UsageError(option + ": unknown workload '" + name.substr(0, 40) + "' (known: " + known +
                   "; cpu, a CPU stand-in that needs no GPU)");
}

std::vector<std::string> parse_workloads(const std::string& text) {
  std::vector<std::string> names = list_items(text, "--workloads");
  for (const std::string& name : names) check_known_workload(name, "--workloads");
  return names;
}

void add_sweep_options(CLI::App& app, SweepSpec& spec, SweepCliValues& raw) {
  const std::string sweep = "sweep";
  raw.procs_option =
      app.add_option("--procs", raw.procs,
                     "numbers of worker processes sharing the GPU, e.g. 1,4,10 (1,2,4,10 for --scenario xray)")
          ->group(sweep)
          ->capture_default_str();
  app.add_option("--modes", raw.modes,
                 "timeslice; mps, mps:<percent>, mps:auto (100/N each), mps:<p0>/<p1>/... (per client), with "
                 "+prio (client 0 first), +prio=<p0>/..., +mem=<size>/... (pinned memory limit per client, whole MiB); "
                 "a per-client list has one value for all or one entry per client; "
                 "in one process: streams[:<connections>], threads, green[:<sms>]")
      ->group(sweep)
      ->capture_default_str();
  raw.workloads_option =
      app.add_option(
             "--workloads", raw.workloads,
             "spin, mlp, membw, filler, mlp-infer, duty, exec (your --command); cpu (a CPU stand-in, no GPU) (default "
             "spin,mlp; spin for "
             "--scenario fault)")
          ->group(sweep);
  raw.repeats_option =
      app.add_option("--repeats", spec.repeats,
                     "repeats of every configuration (default: 2 where --noise-target covers the sweep and "
                     "adds more to noisy configurations, 2 for --scenario xray and regimes, else 5; "
                     "docs/COMPARE.md: \"How many repeats: two worker sets, then as many as the noise needs\")")
          ->check(whole_in(1, 1000))
          ->group(sweep);
  app.add_option("--noise-target", spec.noise_target_pct,
                 "percent: a configuration noisier than this after --repeats gets more repeats, each on fresh "
                 "processes (noise: compare's, the ~94% confidence interval of the mean of its worker sets' means "
                 "over that mean; 0: off; default 1, off for CPU stand-ins)")
      ->check(finite_in(0.0, 100.0))
      ->group(sweep);
  raw.max_repeats_option =
      app.add_option("--max-repeats", spec.max_repeats, "repeats a noisy configuration may reach (--noise-target)")
          ->check(whole_in(1, 1000))
          ->group(sweep)
          ->capture_default_str();
  raw.noise_time_cap_option =
      app.add_option(
             "--noise-time-cap", spec.noise_time_cap_s,
             "seconds the repeats added for --noise-target may take in all (a set that would not fit is not started)")
          ->check(finite_in(0.0, 86400.0))
          ->group(sweep)
          ->capture_default_str();
  app.add_option("--rounds", spec.rounds,
                 "repeats one set of worker processes runs, one start barrier each (default: half the repeats, "
                 "rounded up; 1 for exec, mlp's seed001 profile and the fault scenario)")
      ->check(whole_in(1, 1000))
      ->group(sweep);
  auto* tasks = app.add_option("--tasks", spec.tasks, "timed tasks per worker (default: per workload)")
                    ->check(whole_in(1, 100000000))
                    ->group(sweep);
  auto* duration = app.add_option("--duration", spec.duration_s, "run each worker this many seconds instead")
                       ->check(finite_in(0.001, 86400.0))
                       ->group(sweep);
  tasks->excludes(duration);
  app.add_option("--warmup", spec.warmup,
                 "untimed tasks per worker before the start barrier (default 2; 0 for exec and mlp's seed001 profile)")
      ->check(whole_in(0, 100000))
      ->group(sweep);
  raw.exec_warmups_option =
      app.add_option("--exec-warmups", spec.exec_warmups,
                     "exec: untimed runs of one copy of the command in each mode block, after its MPS daemon is up "
                     "and before its first timed run; 0: none")
          ->check(whole_in(0, 10))
          ->group("exec workload (your own program)")
          ->capture_default_str();
  raw.exec_gate_option =
      app.add_option("--exec-gate", spec.exec_gate,
                     "exec: hold each copy here until every copy of its set has arrived, then release them at once, "
                     "so that N copies really run together: steady (the host wait where the alone run's steady part "
                     "began, from its GPU profile), first-kernel, wait:K (after the K-th host wait) or off")
          ->check(CLI::Validator(
              [](const std::string& v) {
                return is_exec_gate(v)
                           ? std::string()
                           : "'" + v + "' is not a gate point: steady, first-kernel, wait:K (K >= 1) or off";
              },
              "GATE"))
          ->group("exec workload (your own program)")
          ->capture_default_str();
  raw.exec_alone_runs_option =
      app.add_option("--exec-alone-runs", spec.exec_alone_runs,
                     "exec: alone runs (N=1) per mode at least, where --procs holds 1 and a larger N: the repeats' "
                     "own first, then more after the largest N and in the middle of the ladder; their median is "
                     "the alone value every ratio divides by, their spread its interval; 0 or 1: only the repeats'")
          ->check(whole_in(0, 20))
          ->group("exec workload (your own program)")
          ->capture_default_str();
  raw.exec_gate_timeout_option =
      app.add_option("--exec-gate-timeout", spec.exec_gate_timeout_s,
                     "exec: seconds after the first copy reaches the gate before the rest are released without the "
                     "copies still missing (recorded)")
          ->check(finite_in(0.1, 86400.0))
          ->group("exec workload (your own program)")
          ->capture_default_str();
  app.add_flag("--profile-gpu", spec.profile_gpu,
               "exec: a GPU profile of every copy and its CUDA children (a CUPTI library injected through "
               "CUDA_INJECTION64_PATH): OUT/profiles/<run>/w<i>/profile-<pid>.json, a summary per copy in "
               "runs.csv's facts (docs/PROFILE.md)")
      ->group("exec workload (your own program)");
  raw.profile_gap_option = app.add_option("--profile-gap-us", spec.profile_gap_us,
                                          "--profile-gpu: a GPU idle gap at least this long ends a burst in the "
                                          "summaries (not a host wait: those are recorded)")
                               ->check(finite_in(1.0, 1e6))
                               ->group("exec workload (your own program)")
                               ->capture_default_str();
  raw.exec_unit_range_option =
      app.add_option(
             "--exec-unit-range", spec.exec_unit_range,
             "--profile-gpu: the NVTX range that marks your program's step (its name as pushed or started, "
             "e.g. torch.cuda.nvtx.range_push(\"train_step\")): the profiles record its occurrences and the "
             "unit counts the steps they open in or span, not those the steps' lengths choose (docs/PREDICT.md)")
          ->check(CLI::Validator(
              [](const std::string& v) {
                if (v.empty() || v.size() > profiler::kUnitRangeNameMax)
                  return "an NVTX range's name of 1 to " + std::to_string(profiler::kUnitRangeNameMax) + " characters";
                for (const char c : v)
                  if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
                    return std::string("an NVTX range's name holds no control character");
                return std::string();
              },
              "NAME"))
          ->group("exec workload (your own program)");
  auto* out = app.add_option("--out", spec.out_dir, "results folder (default results/<date>-<gpu>)")
                  ->group(sweep)
                  ->check(not_blank());
  app.add_option("--resume", raw.resume_dir, "continue the interrupted sweep in this results folder")
      ->group(sweep)
      ->check(not_blank())
      ->excludes(out);
  app.add_option("--scenario", raw.scenario,
                 "sweep; fault: N-1 victims beside one worker that faults; interference: one --foreground job "
                 "beside N-1 --background jobs; xray: the time-slice X-ray (slice length, switch cost, wait per "
                 "step at each N); regimes: the X-ray, then the regime map (a grid of burst x duty cycle)")
      ->check(CLI::IsMember(scenario_names()))
      ->group(sweep)
      ->capture_default_str();
  raw.regime_bursts_option =
      app.add_option("--regime-bursts-ms", raw.regime_bursts,
                     "regimes: the grid's bursts, ms of GPU work per synchronising step (default 0.1,0.3,1,3,10)")
          ->group(sweep);
  raw.regime_duties_option =
      app.add_option("--regime-duties", raw.regime_duties,
                     "regimes: the grid's duty cycles alone, percent of a step on the GPU (default 5,25,50,75,95)")
          ->group(sweep);
  app.add_option("--foreground", spec.foreground,
                 "interference: the job whose latency or throughput is protected (mlp-infer, mlp, spin, membw, exec)")
      ->group(sweep)
      ->capture_default_str();
  app.add_option("--background", spec.background,
                 "interference: the N-1 jobs beside it (filler, spin, membw, mlp, exec)")
      ->group(sweep)
      ->capture_default_str();
  app.add_flag("--set-exclusive", spec.set_exclusive,
               "switch the GPU to EXCLUSIVE_PROCESS for MPS blocks and back (root; for machines you own)")
      ->group(sweep);

  const std::string limits = "limits";
  app.add_option("--timeout", spec.run_timeout_s, "seconds a run may take after the start barrier")
      ->check(finite_in(0.1, 86400.0))
      ->group(limits)
      ->capture_default_str();
  app.add_option("--ready-timeout", spec.ready_timeout_s, "seconds workers may take to become READY")
      ->check(finite_in(0.1, 86400.0))
      ->group(limits)
      ->capture_default_str();
  app.add_option("--mps-max-clients", spec.mps_max_clients, "clients one MPS server accepts (48 on Volta and newer)")
      ->check(whole_in(1, kMaxProcs))
      ->group(limits)
      ->capture_default_str();
  app.add_option("--settle", spec.settle_s, "idle seconds before every set of workers (after the last set's exit)")
      ->check(finite_in(0.0, 600.0))
      ->group(limits)
      ->capture_default_str();
  auto* no_pin = app.add_flag("!--no-pin", spec.pin_cpus, "do not pin each worker to its own CPU core")->group(limits);
  app.add_option("--cores-per-worker", spec.cores_per_worker,
                 "CPU cores of its own each worker, and the program it runs, is pinned to: a program with CPU "
                 "threads of its own (DataLoader workers: 1 + num_workers) keeps them off the other copies' cores")
      ->check(whole_in(1, kMaxCoresPerWorker))
      ->excludes(no_pin)
      ->group(limits)
      ->capture_default_str();
  const std::string no_gpu = "without a GPU (CPU stand-ins: to try the flow; no GPU data)";
  app.add_option("--worker", spec.worker_exe, "worker executable (default: bench_worker beside bench_mps)")
      ->group(no_gpu);
  app.add_flag("--cpu-stand-in", spec.cpu_stand_in,
               "the regime workloads (duty, xray) as CPU stand-ins: try --scenario xray/regimes without a GPU")
      ->group(no_gpu);
  app.add_flag("--demo", spec.demo,
               "stamp the results as a demo without GPU data: CPU workloads only (scripts/run.sh --demo runs one with "
               "the fake MPS daemon of tests/fakes)")
      ->group(no_gpu);

  add_workload_options(app, spec.params);
  add_device_options(app, spec, raw.device);
}

namespace {

/// exec's own options (--command, --exec-metric, --exec-warmups, --profile-gpu) against the workloads asked for.
void check_exec_options(const SweepSpec& spec, const SweepCliValues& raw) {
  const ScenarioPlan& plan = scenario_plan(spec.scenario);
  if (has_exec(spec)) {
    if (!plan.runs_exec)
      throw UsageError("--scenario " + std::string(scenario_name(plan.scenario)) + ": runs our own " +
                       std::string(plan.default_workloads) + " workload, not exec");
    try {
      validate_exec_params(spec.params.exec);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    check_gate_environment(spec);
    check_exec_only_options(spec);
    if (spec.profile_gpu && !plan.exec_copies)
      throw UsageError("--profile-gpu: profiles the exec copies of a plain sweep, not --scenario " +
                       std::string(scenario_name(spec.scenario)));
  } else if (spec.profile_gpu) {
    throw UsageError(std::string("--profile-gpu: profiles your program's copies; ") + kAddExecHint);
  } else if (!spec.params.exec.command.empty() || !spec.params.exec.metric.empty() || !spec.params.exec.check.empty() ||
             spec.params.exec.metric_is_latency) {
    throw UsageError(
        std::string(
            "--command/--exec-metric/--exec-metric-kind/--exec-check: only the exec workload runs a command; ") +
        kAddExecHint);
  } else if (raw.exec_warmups_option && raw.exec_warmups_option->count() > 0) {
    throw UsageError(std::string("--exec-warmups: only the exec workload runs a command; ") + kAddExecHint);
  } else if (raw.exec_gate_option && raw.exec_gate_option->count() > 0) {
    throw UsageError(std::string("--exec-gate: holds your program's copies; ") + kAddExecHint);
  } else if (raw.exec_alone_runs_option && raw.exec_alone_runs_option->count() > 0) {
    throw UsageError(std::string("--exec-alone-runs: counts your program's alone runs; ") + kAddExecHint);
  } else if (raw.exec_gate_timeout_option && raw.exec_gate_timeout_option->count() > 0) {
    throw UsageError(std::string("--exec-gate-timeout: applies to the start gate of your program's copies; ") +
                     kAddExecHint);
  }
  if (has_exec(spec) && !plan.exec_copies && raw.exec_gate_option && raw.exec_gate_option->count() > 0 &&
      spec.exec_gate != "off")
    throw UsageError("--exec-gate: holds the exec copies of a plain sweep, not --scenario " +
                     std::string(scenario_name(spec.scenario)));
  if (has_exec(spec) && spec.exec_gate == "off" && raw.exec_gate_timeout_option &&
      raw.exec_gate_timeout_option->count() > 0)
    throw UsageError("--exec-gate-timeout: times out the start gate, and --exec-gate off holds no copy");
  if (raw.profile_gap_option && raw.profile_gap_option->count() > 0 && !spec.profile_gpu)
    throw UsageError("--profile-gap-us: applies to --profile-gpu's summaries; add --profile-gpu");
  if (raw.exec_unit_range_option && raw.exec_unit_range_option->count() > 0 && !spec.profile_gpu)
    throw UsageError("--exec-unit-range: the unit is read from the copies' GPU profiles; add --profile-gpu");
}

/// mlp's layers, data set and launch against each other.
void check_mlp_options(const kernels::MlpParams& mlp) {
  if (mlp.profile == kernels::MlpProfile::seed001 && mlp.launch != kernels::MlpLaunch::eager)
    throw UsageError("--mlp-launch graph: the seed001 profile assembles each batch on the host and launches eagerly");
  if (mlp.layers.size() < 2)
    throw UsageError("--mlp-layers: need at least an input and an output size, e.g. 784,512,10");
  if (mlp.layers.back() < 2) throw UsageError("--mlp-layers: the last size (classes) must be at least 2");
  if (mlp.dataset_size < mlp.batch)
    throw UsageError("--mlp-dataset: " + std::to_string(mlp.dataset_size) + " samples is fewer than one batch of " +
                     std::to_string(mlp.batch));
}

/// The sweep's workloads: --foreground/--background for interference, the X-ray's for xray and regimes,
/// else --workloads or the scenario's default.
void choose_workloads(SweepSpec& spec, const SweepCliValues& raw, bool workloads_given) {
  // The CPU stand-in may play either part (the tests' interference runs); it stays out of --help.
  static const std::vector<std::string> foregrounds{"mlp-infer", "mlp", "spin", "membw", "exec", "cpu"},
      backgrounds{"filler", "spin", "membw", "mlp", "exec", "cpu"};
  if (std::find(foregrounds.begin(), foregrounds.end(), spec.foreground) == foregrounds.end())
    throw UsageError("--foreground: '" + spec.foreground + "' is not one of mlp-infer, mlp, spin, membw, exec");
  if (std::find(backgrounds.begin(), backgrounds.end(), spec.background) == backgrounds.end())
    throw UsageError("--background: '" + spec.background + "' is not one of filler, spin, membw, mlp, exec");
  const ScenarioPlan& plan = scenario_plan(spec.scenario);
  if (!plan.workloads_from.empty()) {  // interference: its foreground and background
    if (workloads_given)
      throw UsageError("--workloads: the " + std::string(scenario_name(plan.scenario)) + " scenario runs " +
                       std::string(plan.workloads_from));
    if (runs_user_program(spec.foreground) && runs_user_program(spec.background))
      throw UsageError("--foreground/--background: one --command serves only one of them");
    spec.workloads = {spec.foreground};
    if (spec.background != spec.foreground) spec.workloads.push_back(spec.background);
  } else if (!plan.own_workloads.empty()) {
    spec.workloads.assign(plan.own_workloads.begin(), plan.own_workloads.end());
  } else {
    spec.workloads = parse_workloads(workloads_given ? raw.workloads : std::string(plan.default_workloads));
  }
}

}  // namespace

void finalize_sweep_spec(SweepSpec& spec, const SweepCliValues& raw) {
  const auto scenario = parse_scenario(raw.scenario);
  if (!scenario)
    throw UsageError("--scenario: '" + raw.scenario + "' is not one of sweep, fault, interference, xray, regimes");
  spec.scenario = *scenario;
  spec.procs = parse_procs(raw.procs);
  spec.modes = parse_modes(raw.modes);
  const bool workloads_given = raw.workloads_option && raw.workloads_option->count() > 0;
  choose_workloads(spec, raw, workloads_given);
  finalize_regime_options(spec, raw, workloads_given);
  if (spec.cpu_stand_in)
    for (const std::string& w : spec.workloads)
      if ((workload_needs_gpu(w) || runs_user_program(w)) && !has_cpu_stand_in(w))
        throw UsageError("--cpu-stand-in: the " + w + " workload has no CPU stand-in (duty and xray have; cpu is one)");
  if (spec.noise_target_pct < 0) {  // a CPU stand-in's noise is the host's, not worth chasing by default
    spec.noise_target_pct = sweep_needs_gpu(spec) ? 1.0 : 0.0;
  }
  // The noise target's own options where no target applies would change nothing: said, not ignored (issue 35).
  for (const CLI::Option* o : {raw.max_repeats_option, raw.noise_time_cap_option})
    if (o && o->count() > 0 && !noise_target_applies(spec))
      throw UsageError(o->get_name() + ": applies to --noise-target, which is off for this sweep (" +
                       (!scenario_plan(spec.scenario).noise_target
                            ? std::string("--scenario ") + raw.scenario + " has none"
                        : spec.noise_target_pct == 0 ? std::string("--noise-target 0, or the CPU stand-ins' default")
                                                     : std::string("off")) +
                       ")");
  // Where the target covers the whole sweep, plan the fewest sets that tell their noise; it adds the rest.
  const bool target_covers_all =
      noise_target_applies(spec) && std::none_of(spec.workloads.begin(), spec.workloads.end(),
                                                 [](const std::string& w) { return runs_user_program(w); });
  if (target_covers_all && (!raw.repeats_option || raw.repeats_option->count() == 0))
    spec.repeats = kNoiseTargetRepeats;
  if (spec.demo)
    for (const std::string& w : spec.workloads)
      if ((workload_needs_gpu(w) || runs_user_program(w)) && !(spec.cpu_stand_in && has_cpu_stand_in(w)))
        throw UsageError("--demo: the " + w + " workload would measure " +
                         (runs_user_program(w) ? "your program" : "a GPU") +
                         "; a demo runs cpu (or duty/xray with --cpu-stand-in) only");
  resolve_duty_host_us(spec.params);
  if (spec.params.duty.host_us > kMaxDutyHostUs)
    throw UsageError("--duty-burst-us " + fmt_num(spec.params.duty.burst_us) + " with --duty-pct " +
                     fmt_num(spec.params.duty_pct) + ": a step's host work would be " +
                     fmt_num(spec.params.duty.host_us * 1e-6, 4) + " s, more than a worker takes (" +
                     fmt_num(kMaxDutyHostUs * 1e-6) + " s)");
  if (!raw.resume_dir.empty()) {
    spec.resume = true;
    spec.out_dir = raw.resume_dir;
  }
  const ScenarioPlan& plan = scenario_plan(spec.scenario);
  const int max_procs = *std::max_element(spec.procs.begin(), spec.procs.end());
  if (max_procs < plan.least_largest_n)
    throw UsageError("--scenario " + std::string(scenario_name(plan.scenario)) + ": needs N >= " +
                     std::to_string(plan.least_largest_n) + " in --procs (" + std::string(plan.procs_why) + ")");
  for (const Mode& m : spec.modes)
    if (m.mps && max_procs > spec.mps_max_clients)
      throw UsageError("--procs: " + std::to_string(max_procs) + " processes under " + m.name + " is more than the " +
                       std::to_string(spec.mps_max_clients) + " clients an MPS server accepts (--mps-max-clients)");
  if (*std::min_element(spec.procs.begin(), spec.procs.end()) < plan.least_every_n)
    throw UsageError("--scenario " + std::string(scenario_name(plan.scenario)) +
                     ": every N in --procs must be at least " + std::to_string(plan.least_every_n) + " (" +
                     std::string(plan.procs_why) + ")");
  check_modes_fit_workloads(spec);
  check_exec_options(spec, raw);
  // A fault for a worker index no run has would never fire: the sweep would measure no fault, silently.
  const bool runs_cpu = std::find(spec.workloads.begin(), spec.workloads.end(), "cpu") != spec.workloads.end();
  if (runs_cpu && spec.scenario != Scenario::fault && spec.params.cpu.fault != CpuFault::none &&
      spec.params.cpu.fault_worker >= max_procs)
    throw UsageError("--cpu-fault-worker " + std::to_string(spec.params.cpu.fault_worker) +
                     ": workers are numbered from 0, and no run of --procs has more than " + std::to_string(max_procs) +
                     ", so --cpu-fault " + cpu_fault_name(spec.params.cpu.fault) + " would never happen");
  // A set runs at most the repeats asked for: more rounds than that would be cut to them without a word.
  if (spec.rounds > spec.repeats && raw.repeats_option && raw.repeats_option->count() > 0)
    throw UsageError("--rounds " + std::to_string(spec.rounds) + " with --repeats " + std::to_string(spec.repeats) +
                     ": a set of workers runs at most the repeats asked for; give --rounds " +
                     std::to_string(spec.repeats) + " or fewer, or more --repeats");
  check_mlp_options(spec.params.mlp);
  finalize_device_options(spec, raw.device);
  check_client_lists(spec);  // last: the plan's every N, with the modes --external-mps may have chosen
}

SweepSpec parse_sweep_args(const std::vector<std::string>& args, const std::string& origin) {
  CLI::App app{"bench_mps"};
  SweepSpec spec;
  SweepCliValues raw;
  add_sweep_options(app, spec, raw);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  const std::string from = origin.empty() ? std::string() : origin + ": ";
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {  // CLI11's own words for these are meant for a main(), not for a user
    throw UsageError(from + "holds --help, which is no part of a sweep");
  } catch (const CLI::CallForAllHelp&) {
    throw UsageError(from + "holds --help-all, which is no part of a sweep");
  } catch (const CLI::CallForVersion&) {
    throw UsageError(from + "holds --version, which is no part of a sweep");
  } catch (const CLI::ParseError& e) {
    throw UsageError(from + plain_cli_error(e));
  }
  try {
    finalize_sweep_spec(spec, raw);
  } catch (const UsageError& e) {  // a stored command line's value: said as that, not as if just typed
    if (origin.empty()) throw;
    throw UsageError(from + e.what());
  }
  return spec;
}

bool sweep_defined_on_command_line(const CLI::App& app) {
  static const std::set<std::string> not_defining{
      "--resume", "--timeout", "--ready-timeout",    "--worker", "--mps-max-clients",
      "--settle", "--no-pin",  "--cores-per-worker", "--cpus",   "--help"};
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->count() == 0) continue;
    bool defining = true;
    for (const std::string& name : opt->get_lnames())
      if (not_defining.count("--" + name)) defining = false;
    if (defining) return true;
  }
  return false;
}

SweepSpec with_limits_given(SweepSpec stored, const SweepSpec& given, const CLI::App& app) {
  const auto set = [&app](const char* name) {
    const CLI::Option* opt = app.get_option_no_throw(name);
    return opt && opt->count() > 0;
  };
  if (set("--timeout")) stored.run_timeout_s = given.run_timeout_s;
  if (set("--ready-timeout")) stored.ready_timeout_s = given.ready_timeout_s;
  if (set("--mps-max-clients")) stored.mps_max_clients = given.mps_max_clients;
  if (set("--settle")) stored.settle_s = given.settle_s;
  // The two placements exclude each other on one command line; on a resume the one given replaces the stored one
  // whole: --no-pin drops a stored K, and K cores each pins a folder swept with --no-pin.
  if (set("--no-pin")) {
    stored.pin_cpus = given.pin_cpus;
    stored.cores_per_worker = given.cores_per_worker;
  }
  if (set("--cores-per-worker")) {
    stored.cores_per_worker = given.cores_per_worker;
    stored.pin_cpus = true;
  }
  if (set("--cpus")) stored.cpus = given.cpus;
  stored.worker_exe = given.worker_exe;
  return stored;
}

}  // namespace bench_mps::harness
