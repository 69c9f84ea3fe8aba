#include "harness/gpu/nvml.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include "harness/common/clock.hpp"
#include "harness/common/format.hpp"

namespace bench_mps::harness {
namespace {

// The few NVML types this file needs, as the stable C ABI of nvml.h defines them.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
constexpr int NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2;

template <typename F>
F resolve(void* lib, const char* name) {
  void* sym = dlsym(lib, name);
  if (!sym) throw NvmlError(std::string("NVML symbol missing: ") + name);
  return reinterpret_cast<F>(sym);
}

}  // namespace

struct Nvml::Api {
  void* lib = nullptr;
  nvmlDevice_t device = nullptr;
  int index = 0;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*device_count)(unsigned*) = nullptr;
  nvmlReturn_t (*by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*by_uuid)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*cuda_driver_version)(int*) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*compute_mode)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned*, unsigned*) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;

  void check(nvmlReturn_t rc, const char* call) const {
    if (rc != NVML_SUCCESS) throw NvmlError(std::string(call) + ": " + error_string(rc));
  }
  /// For queries some GPUs do not support: empty when unsupported, throws on other failures.
  template <typename T>
  std::optional<T> optional(nvmlReturn_t rc, const T& value, const char* call) const {
    if (rc == NVML_ERROR_NOT_SUPPORTED) return std::nullopt;
    check(rc, call);
    return value;
  }
};

std::unique_ptr<Nvml> Nvml::open(std::string& why) {
  auto api = std::make_unique<Api>();
  api->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api->lib) {
    why = "the NVIDIA driver's libnvidia-ml.so.1 is not installed";
    return nullptr;
  }
  try {
    api->init = resolve<decltype(api->init)>(api->lib, "nvmlInit_v2");
    api->shutdown = resolve<decltype(api->shutdown)>(api->lib, "nvmlShutdown");
    api->error_string = resolve<decltype(api->error_string)>(api->lib, "nvmlErrorString");
    api->device_count = resolve<decltype(api->device_count)>(api->lib, "nvmlDeviceGetCount_v2");
    api->by_index = resolve<decltype(api->by_index)>(api->lib, "nvmlDeviceGetHandleByIndex_v2");
    api->by_uuid = resolve<decltype(api->by_uuid)>(api->lib, "nvmlDeviceGetHandleByUUID");
    api->name = resolve<decltype(api->name)>(api->lib, "nvmlDeviceGetName");
    api->uuid = resolve<decltype(api->uuid)>(api->lib, "nvmlDeviceGetUUID");
    api->driver_version = resolve<decltype(api->driver_version)>(api->lib, "nvmlSystemGetDriverVersion");
    api->cuda_driver_version = resolve<decltype(api->cuda_driver_version)>(api->lib, "nvmlSystemGetCudaDriverVersion_v2");
    api->memory = resolve<decltype(api->memory)>(api->lib, "nvmlDeviceGetMemoryInfo");
    api->compute_mode = resolve<decltype(api->compute_mode)>(api->lib, "nvmlDeviceGetComputeMode");
    api->mig_mode = resolve<decltype(api->mig_mode)>(api->lib, "nvmlDeviceGetMigMode");
    api->utilization = resolve<decltype(api->utilization)>(api->lib, "nvmlDeviceGetUtilizationRates");
    api->clock = resolve<decltype(api->clock)>(api->lib, "nvmlDeviceGetClockInfo");
    api->max_clock = resolve<decltype(api->max_clock)>(api->lib, "nvmlDeviceGetMaxClockInfo");
    api->power = resolve<decltype(api->power)>(api->lib, "nvmlDeviceGetPowerUsage");
  } catch (const NvmlError& e) {
    why = e.what();
    dlclose(api->lib);
    return nullptr;
  }
  if (const nvmlReturn_t rc = api->init(); rc != NVML_SUCCESS) {
    why = std::string("NVML could not start: ") + api->error_string(rc);
    dlclose(api->lib);
    return nullptr;
  }
  std::unique_ptr<Nvml> nvml(new Nvml(std::move(api)));
  Api& a = *nvml->api_;
  unsigned count = 0;
  if (a.device_count(&count) != NVML_SUCCESS || count == 0) {
    why = "the driver sees no GPU";
    return nullptr;
  }
  // CUDA's device 0 is the first entry of CUDA_VISIBLE_DEVICES, an index or a UUID (prefix).
  std::string first;
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) first = trim(split(visible, ',').front());
  nvmlReturn_t rc;
  if (first.rfind("GPU-", 0) == 0) {
    rc = a.by_uuid(first.c_str(), &a.device);
  } else {
    a.index = first.empty() ? 0 : std::atoi(first.c_str());
    rc = (first.empty() || std::isdigit(static_cast<unsigned char>(first[0]))) && a.index >= 0 &&
                 static_cast<unsigned>(a.index) < count
             ? a.by_index(static_cast<unsigned>(a.index), &a.device)
             : 1;
  }
  if (rc != NVML_SUCCESS) {
    why = "CUDA_VISIBLE_DEVICES='" + first + "' names no GPU the driver sees";
    return nullptr;
  }
  return nvml;
}

Nvml::Nvml(std::unique_ptr<Api> api) : api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();  // nothing useful to do with a failure here
  dlclose(api_->lib);
}

GpuStaticInfo Nvml::static_info() const {
  const Api& a = *api_;
  GpuStaticInfo info;
  info.index = a.index;
  char buf[256] = {};
  a.check(a.name(a.device, buf, sizeof buf), "nvmlDeviceGetName");
  info.name = buf;
  a.check(a.uuid(a.device, buf, sizeof buf), "nvmlDeviceGetUUID");
  info.uuid = buf;
  a.check(a.driver_version(buf, sizeof buf), "nvmlSystemGetDriverVersion");
  info.driver_version = buf;
  a.check(a.cuda_driver_version(&info.cuda_driver_version), "nvmlSystemGetCudaDriverVersion_v2");
  nvmlMemory_t mem{};
  a.check(a.memory(a.device, &mem), "nvmlDeviceGetMemoryInfo");
  info.memory_total_bytes = mem.total;
  int mode = 0;
  a.check(a.compute_mode(a.device, &mode), "nvmlDeviceGetComputeMode");
  static const char* const modes[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
  info.compute_mode = mode >= 0 && mode < 4 ? modes[mode] : "Unknown(" + std::to_string(mode) + ")";
  unsigned current = 0, pending = 0;
  if (auto mig = a.optional(a.mig_mode(a.device, &current, &pending), current, "nvmlDeviceGetMigMode"))
    info.mig_mode = *mig ? "Enabled" : "Disabled";
  unsigned clk = 0;
  info.max_sm_clock_mhz = a.optional(a.max_clock(a.device, NVML_CLOCK_SM, &clk), clk, "nvmlDeviceGetMaxClockInfo");
  info.max_mem_clock_mhz = a.optional(a.max_clock(a.device, NVML_CLOCK_MEM, &clk), clk, "nvmlDeviceGetMaxClockInfo");
  return info;
}

GpuSample Nvml::sample() const {
  const Api& a = *api_;
  GpuSample s;
  s.t_ns = monotonic_ns();
  nvmlUtilization_t util{};
  if (auto u = a.optional(a.utilization(a.device, &util), util, "nvmlDeviceGetUtilizationRates")) {
    s.gpu_util_pct = u->gpu;
    s.mem_util_pct = u->memory;
  }
  unsigned clk = 0;
  s.sm_clock_mhz = a.optional(a.clock(a.device, NVML_CLOCK_SM, &clk), clk, "nvmlDeviceGetClockInfo");
  s.mem_clock_mhz = a.optional(a.clock(a.device, NVML_CLOCK_MEM, &clk), clk, "nvmlDeviceGetClockInfo");
  nvmlMemory_t mem{};
  a.check(a.memory(a.device, &mem), "nvmlDeviceGetMemoryInfo");
  s.mem_used_bytes = mem.used;
  unsigned mw = 0;
  if (auto p = a.optional(a.power(a.device, &mw), mw, "nvmlDeviceGetPowerUsage")) s.power_w = *p / 1000.0;
  return s;
}

std::uint64_t Nvml::memory_free_bytes() const {
  nvmlMemory_t mem{};
  api_->check(api_->memory(api_->device, &mem), "nvmlDeviceGetMemoryInfo");
  return mem.free;
}

}  // namespace bench_mps::harness
