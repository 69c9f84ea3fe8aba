#include "harness/results/meta.hpp"

#include <algorithm>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <sstream>
#include <thread>

#include <cublas_api.h>        // CUBLAS_VER_* only
#include <cuda_runtime_api.h>  // CUDART_VERSION only: the harness links no CUDA

#include "bench_mps_git_info.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/plan/exec_options.hpp"
#include "harness/results/results_schema.hpp"

namespace bench_mps::harness {

std::optional<Scenario> meta_scenario(const nlohmann::json& meta) { return meta_scenario(meta.get<SweepMeta>()); }

std::string version_line() {
  return std::string("bench_mps ") + BENCH_MPS_VERSION + " (git " + BENCH_MPS_GIT_SHA +
         (BENCH_MPS_GIT_DIRTY ? ", dirty" : "") + "; built with CUDA " + std::to_string(CUDART_VERSION / 1000) + "." +
         std::to_string(CUDART_VERSION % 1000 / 10) + ")";
}

namespace {

/// The CPUs a Linux CPU list names ("0-3,8" is 5); 0 where it cannot be read.
int cpu_list_size(const std::string& list) {
  int n = 0;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    const auto dash = item.find('-');
    try {
      n += dash == std::string::npos ? 1 : std::stoi(item.substr(dash + 1)) - std::stoi(item.substr(0, dash)) + 1;
    } catch (const std::exception&) {
      return 0;
    }
  }
  return n;
}

nlohmann::json host_json() {
  nlohmann::json host;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) host["hostname"] = name;
  utsname u{};
  if (::uname(&u) == 0) {
    host["kernel"] = std::string(u.sysname) + " " + u.release;
    host["arch"] = u.machine;
  }
  host["cpus"] = std::thread::hardware_concurrency();
  // What can make the host's side of a run slower: the CPU model and its frequency governor.
  std::istringstream cpuinfo(read_whole_file("/proc/cpuinfo"));
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      host["cpu_model"] = trim(line.substr(line.find(':') + 1));
      break;
    }
  const std::string governor = trim(read_whole_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
  host["cpu_governor"] = governor.empty() ? nlohmann::json() : nlohmann::json(governor);
  // Where copies pinned one to a core may meet: hardware threads per core (SMT) and NUMA nodes (null: unknown).
  const std::string siblings = trim(read_whole_file("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list"));
  host["smt_threads_per_core"] = siblings.empty() ? nlohmann::json() : nlohmann::json(cpu_list_size(siblings));
  int nodes = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/devices/system/node", ec)) {
    const std::string node = e.path().filename().string();
    nodes += node.rfind("node", 0) == 0 && node.size() > 4 && std::isdigit(static_cast<unsigned char>(node[4]));
  }
  host["numa_nodes"] = nodes > 0 ? nlohmann::json(nodes) : nlohmann::json();
  return host;
}

nlohmann::json build_json() {
  return {{"cxx_compiler", BENCH_MPS_CXX_COMPILER},
          {"cuda_compiler", BENCH_MPS_CUDA_COMPILER},
          {"cuda_architectures", BENCH_MPS_CUDA_ARCHITECTURES},
          {"cuda_headers", std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10)},
          {"cublas_headers", std::to_string(CUBLAS_VER_MAJOR) + "." + std::to_string(CUBLAS_VER_MINOR) + "." +
                                 std::to_string(CUBLAS_VER_PATCH)}};
}

/// Every CUDA_* variable of our environment (CUDA_VISIBLE_DEVICES, CUDA_MPS_*, CUDA_DEVICE_MAX_CONNECTIONS...):
/// the workers inherit them, and each can change what a run measures.
nlohmann::json cuda_environment() {
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (entry.rfind("CUDA_", 0) == 0 && eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

nlohmann::json gpu_json(const GpuStaticInfo& g) {
  nlohmann::json j{{"index", g.index},
                   {"name", g.name},
                   {"uuid", g.uuid},
                   {"memory_total_bytes", g.memory_total_bytes},
                   {"driver_version", g.driver_version},
                   {"cuda_driver_version", g.cuda_driver_version},
                   {"compute_mode", g.compute_mode},
                   {"mig_mode", g.mig_mode ? nlohmann::json(*g.mig_mode) : nlohmann::json()},
                   {"max_sm_clock_mhz", g.max_sm_clock_mhz ? nlohmann::json(*g.max_sm_clock_mhz) : nlohmann::json()},
                   {"max_mem_clock_mhz", g.max_mem_clock_mhz ? nlohmann::json(*g.max_mem_clock_mhz) : nlohmann::json()},
                   {"sm_count", nullptr},
                   {"cuda_runtime_version", nullptr}};
  return j;
}

}  // namespace

nlohmann::json conditions_json(const GpuConditions& c) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"power_limit_w", opt(c.power_limit_w)},
          {"persistence_mode", opt(c.persistence_mode)},
          {"app_sm_clock_mhz", opt(c.app_sm_clock_mhz)},
          {"app_mem_clock_mhz", opt(c.app_mem_clock_mhz)},
          {"ecc_mode", opt(c.ecc_mode)},
          {"temperature_c", opt(c.temperature_c)},
          {"clock_event_reasons", opt(c.clock_event_reasons)},
          {"timeslice_policy", nullptr}};  // no NVML query reads it: the sweep asks nvidia-smi compute-policy -l
}

std::string machine_line(const nlohmann::json& meta, const std::string& without_gpu) {
  const nlohmann::json& gpu = meta.contains("gpu") ? meta.at("gpu") : nlohmann::json();
  if (!gpu.is_object()) return without_gpu;
  return gpu.value("name", std::string("GPU")) + ", driver " + gpu.value("driver_version", std::string("?"));
}

nlohmann::json make_machine_meta(const std::vector<std::string>& argv, const std::optional<GpuStaticInfo>& gpu,
                                 const std::string& mps_control_path) {
  return {{"tool",
           {{"name", "bench_mps"},
            {"git_sha", BENCH_MPS_GIT_SHA},
            {"git_dirty", BENCH_MPS_GIT_DIRTY},
            {"build", build_json()}}},
          {"environment", cuda_environment()},
          {"argv", argv},
          {"host", host_json()},
          {"started_utc", utc_timestamp()},
          {"finished_utc", nullptr},
          {"status", sweep_status_name(SweepStatus::running)},
          {"gpu", gpu ? gpu_json(*gpu) : nlohmann::json()},
          {"mps",
           {{"control", mps_control_path.empty() ? nlohmann::json() : nlohmann::json(mps_control_path)},
            {"version", gpu ? nlohmann::json("driver " + gpu->driver_version) : nlohmann::json()}}}};
}

namespace {

/// meta.json as a sweep starts it, as JSON: its descriptive sections are written once, as they are.
nlohmann::json initial_meta(const SweepSpec& spec, const std::optional<GpuStaticInfo>& gpu,
                            const std::string& mps_control_path) {
  nlohmann::json modes = nlohmann::json::array();
  for (const Mode& m : spec.modes)
    modes.push_back({{"name", m.name},
                     {"mps", m.mps},
                     {"active_thread_pct",
                      m.mps ? nlohmann::json(m.active_thread_pct ? m.active_thread_pct : 100) : nlohmann::json()}});
  nlohmann::json params;
  for (const std::string& w : spec.workloads) params[w] = workload_params_string(w, spec.params);
  nlohmann::json tasks, seconds, rounds;
  for (const std::string& w : spec.workloads) {
    const RunLength length = run_length(spec, w);
    tasks[w] = length.tasks;
    seconds[w] = length.duration_s;
    rounds[w] = rounds_per_set(spec, w);  // consecutive repeats one set of worker processes runs
  }

  nlohmann::json meta = make_machine_meta(spec.argv, gpu, mps_control_path);
  meta["schema_version"] = kResultsSchemaVersion;
  meta["mps"]["modes"] = modes;
  meta["sweep"] = {
      {"scenario", std::string(scenario_name(spec.scenario))},
      {"procs", spec.procs},
      {"workloads", spec.workloads},
      {"params", params},
      {"repeats", spec.repeats},
      {"tasks_per_worker", tasks},
      {"duration_s", spec.duration_s},
      {"seconds_per_worker", seconds},
      {"warmup_tasks", spec.warmup},        // -1: each workload's default (2; 0 for exec and seed001)
      {"exec_warmups", spec.exec_warmups},  // exec: untimed runs of the command per mode block
      {"run_timeout_s", spec.run_timeout_s},
      {"ready_timeout_s", spec.ready_timeout_s},
      {"set_exclusive", spec.set_exclusive},
      {"pin_cpus", spec.pin_cpus},
      {"cores_per_worker", spec.cores_per_worker},
      {"settle_s", spec.settle_s},
      {"rounds_per_set", rounds},
      {"cpu_stand_in", spec.cpu_stand_in},
      {"demo", spec.demo},
      {"noise_target_pct", spec.noise_target_pct},
      {"max_repeats", std::max(spec.max_repeats, spec.repeats)},
      {"noise_time_cap_s", spec.noise_time_cap_s},
      {"regime_bursts_ms",
       spec.scenario == Scenario::regimes ? nlohmann::json(spec.regime_bursts_ms) : nlohmann::json()},
      {"regime_duties_pct",
       spec.scenario == Scenario::regimes ? nlohmann::json(spec.regime_duties_pct) : nlohmann::json()},
      {"foreground", spec.scenario == Scenario::interference ? nlohmann::json(spec.foreground) : nlohmann::json()},
      {"background", spec.scenario == Scenario::interference ? nlohmann::json(spec.background) : nlohmann::json()}};
  if (has_exec(spec)) meta["sweep"]["exec_alone_runs"] = spec.exec_alone_runs;  // exec: alone runs per mode, at least
  return meta;
}

}  // namespace

SweepMeta make_meta(const SweepSpec& spec, const std::optional<GpuStaticInfo>& gpu,
                    const std::string& mps_control_path) {
  return initial_meta(spec, gpu, mps_control_path).get<SweepMeta>();
}

std::string gpu_slug(const std::string& gpu_name) {
  std::string name = gpu_name;
  if (name.rfind("NVIDIA ", 0) == 0) name = name.substr(7);
  std::string slug;
  for (unsigned char c : name) {
    if (std::isalnum(c)) {
      slug += static_cast<char>(std::tolower(c));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "gpu" : slug;
}

}  // namespace bench_mps::harness
