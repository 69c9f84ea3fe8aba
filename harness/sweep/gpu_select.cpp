#include "harness/sweep/gpu_select.hpp"

#include <cctype>
#include <cstdlib>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/plan/device_options.hpp"
#include "harness/results/meta.hpp"
#include "harness/sweep/preflight.hpp"

namespace bench_mps::harness {
namespace {

std::string list_gpus(const std::vector<GpuIdentity>& gpus) {
  std::string out;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    out += (out.empty() ? "" : ", ") + std::to_string(i) + ": " + gpus[i].name + " " + gpus[i].uuid;
  return out.empty() ? "none" : out;
}

/// The GPUs of `all` whose UUID starts with `prefix`.
std::vector<const GpuIdentity*> by_uuid(const std::vector<GpuIdentity>& all, const std::string& prefix) {
  std::vector<const GpuIdentity*> found;
  for (const GpuIdentity& g : all)
    if (g.uuid.rfind(prefix, 0) == 0) found.push_back(&g);
  return found;
}

bool digits(const std::string& s) {
  return !s.empty() && s.size() <= 4 && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::string DeviceChoice::describe() const {
  if (id.uuid.empty()) return "device " + id.key;
  return "GPU " + std::to_string(id.index) + " (" + name + ", " + id.uuid + ")";
}

std::vector<GpuIdentity> visible_gpus(std::string& why, std::size_t* driver_count) {
  std::vector<GpuIdentity> all;
  try {
    all = Nvml::inventory(why);
  } catch (const NvmlError& e) {
    throw EnvironmentError(std::string("cannot list the GPUs: ") + e.what());
  }
  if (driver_count) *driver_count = all.size();
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (all.empty() || !visible) return all;
  std::vector<GpuIdentity> seen;
  for (const std::string& raw : split(visible, ',')) {  // CUDA stops at the first entry that names no GPU
    const std::string entry = trim(raw);
    const GpuIdentity* g = nullptr;
    if (digits(entry) && static_cast<std::size_t>(std::stoi(entry)) < all.size()) {
      g = &all[static_cast<std::size_t>(std::stoi(entry))];
    } else if (entry.rfind("GPU-", 0) == 0) {
      const auto found = by_uuid(all, entry);
      if (found.size() == 1) g = found.front();
    }
    if (!g) break;
    seen.push_back(*g);
  }
  if (seen.empty()) why = "CUDA_VISIBLE_DEVICES='" + std::string(visible) + "' names no GPU the driver sees";
  return seen;
}

DeviceChoice resolve_device(const std::string& id, bool needs_gpu, const std::vector<GpuIdentity>& visible,
                            int gpu_count) {
  DeviceChoice d;
  d.requested = id;
  d.id.gpu_count = gpu_count;
  if (is_pretend_device(id) || (visible.empty() && !needs_gpu)) {
    if (is_pretend_device(id) && needs_gpu)
      throw UsageError("--device: " + id +
                       " is a pretend device for CPU-only sweeps (--workloads cpu); this sweep "
                       "needs a GPU (visible: " +
                       list_gpus(visible) + ")");
    d.id.key = id;
    return d;
  }
  const GpuIdentity* g = nullptr;
  if (digits(id)) {
    const auto i = static_cast<std::size_t>(std::stoi(id));
    if (i >= visible.size())
      throw UsageError("--device: index " + id + " names no GPU (" + std::to_string(visible.size()) +
                       " visible: " + list_gpus(visible) + ")");
    g = &visible[i];
  } else {
    const auto found = by_uuid(visible, id);
    if (found.size() != 1)
      throw UsageError("--device: " + id + (found.empty() ? " names no visible GPU" : " names several GPUs") +
                       " (visible: " + list_gpus(visible) + ")");
    g = found.front();
  }
  d.id.key = g->uuid;
  d.id.uuid = g->uuid;
  d.id.index = g->index;
  d.name = g->name;
  return d;
}

std::string no_gpu_words(const std::string& why) {
  return "no GPU visible: " + why + " (without a GPU, scripts/run.sh --demo shows the whole flow on CPU stand-ins)";
}

DeviceChoice select_device(const SweepSpec& spec) {
  std::string why;
  std::size_t gpu_count = 0;
  const std::vector<GpuIdentity> visible = visible_gpus(why, &gpu_count);
  const bool needs_gpu = sweep_needs_gpu(spec);
  if (visible.empty() && needs_gpu) throw EnvironmentError(no_gpu_words(why));
  std::string id = spec.device;
  if (id.empty()) {  // CUDA's device 0, as before there was --device
    const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
    const std::string first = cvd ? trim(split(cvd, ',').front()) : "";
    std::string ignored;
    id = !visible.empty() ? "0" : (!first.empty() && is_device_id(first, ignored) ? first : "0");
  }
  DeviceChoice d = resolve_device(id, needs_gpu, visible, static_cast<int>(gpu_count));
  // From here on this process, its workers and its MPS daemons see this one device.
  ::setenv("CUDA_VISIBLE_DEVICES", d.id.key.c_str(), 1);
  ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
  return d;
}

void add_device_meta(SweepMeta& meta, const SweepSpec& spec, const Environment& env) {
  const DeviceChoice& d = env.device;
  meta.device =
      nlohmann::json{{"requested", spec.device.empty() ? nlohmann::json() : nlohmann::json(spec.device)},
                     {"key", d.id.key},
                     {"uuid", d.id.uuid.empty() ? nlohmann::json() : nlohmann::json(d.id.uuid)},
                     {"index", d.id.index >= 0 ? nlohmann::json(d.id.index) : nlohmann::json()},
                     {"lock_file", env.lock ? nlohmann::json(env.lock->path().string()) : nlohmann::json()},
                     {"cpus_given", spec.cpus.empty() ? nlohmann::json() : nlohmann::json(format_cpu_list(spec.cpus))}};
  if (!spec.external_mps) return;
  nlohmann::json variables = nlohmann::json::object();
  for (const char* name : {"CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                           "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "CUDA_MPS_CLIENT_PRIORITY", "SLURM_JOB_ID",
                           "SLURM_ARRAY_TASK_ID", "SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "NVIDIA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(name)) variables[name] = v;
  if (!meta.mps) meta.mps.emplace();
  meta.mps->external = nlohmann::json{{"pipe_directory", spec.external.pipe_dir},
                                      {"daemon_default_active_thread_pct", spec.external.daemon_default_pct},
                                      {"active_thread_pct_source", spec.external.pct_source},
                                      {"variables", variables}};
}

std::string device_folder_name(const DeviceChoice& device) {
  if (device.id.uuid.empty()) {
    std::string safe;
    for (unsigned char c : device.id.key) safe += std::isalnum(c) || c == '-' || c == '.' ? static_cast<char>(c) : '_';
    return safe;
  }
  return std::to_string(device.id.index) + "-" + gpu_slug(device.name);
}

}  // namespace bench_mps::harness
