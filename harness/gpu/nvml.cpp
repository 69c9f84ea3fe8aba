#include "harness/gpu/nvml.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <ctime>
#include <utility>

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
struct nvmlSample_t {
  unsigned long long timeStamp;  // microseconds
  union {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
  } sampleValue;
};
// GPM (nvml.h of CUDA 12+): samples are opaque handles; a metrics request names its metrics by id.
using nvmlGpmSample_t = struct nvmlGpmSample_st*;
struct nvmlGpmSupport_t {
  unsigned version;
  unsigned isSupportedDevice;
};
struct nvmlGpmMetric_t {
  unsigned metricId;
  nvmlReturn_t nvmlReturn;
  double value;
  struct {
    char* shortName;
    char* longName;
    char* unit;
  } metricInfo;
};
constexpr unsigned kGpmMetricSlots = 333;  // nvml.h's NVML_GPM_METRIC_MAX (driver 550+); we ask for 3
struct nvmlGpmMetricsGet_t {
  unsigned version;
  unsigned numMetrics;
  nvmlGpmSample_t sample1, sample2;
  nvmlGpmMetric_t metrics[kGpmMetricSlots];
};
constexpr unsigned NVML_GPM_SUPPORT_VERSION = 1, NVML_GPM_METRICS_GET_VERSION = 1;
constexpr unsigned NVML_GPM_METRIC_SM_UTIL = 2, NVML_GPM_METRIC_SM_OCCUPANCY = 3, NVML_GPM_METRIC_DRAM_BW_UTIL = 10;
constexpr int NVML_GPU_UTILIZATION_SAMPLES = 1;
constexpr int NVML_VALUE_TYPE_UNSIGNED_INT = 1;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
constexpr int NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2;

/// A symbol older drivers may lack: nullptr then (the value it reads is simply not recorded).
template <typename F>
F resolve_optional(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

/// nvmlClocksEventReasons bits (nvml.h), named as nvidia-smi -q names them.
std::vector<std::string> clock_event_names(unsigned long long bits) {
  static const std::pair<unsigned long long, const char*> names[] = {{0x1ULL, "gpu_idle"},
                                                                     {0x2ULL, "applications_clocks_setting"},
                                                                     {0x4ULL, "sw_power_cap"},
                                                                     {0x8ULL, "hw_slowdown"},
                                                                     {0x10ULL, "sync_boost"},
                                                                     {0x20ULL, "sw_thermal_slowdown"},
                                                                     {0x40ULL, "hw_thermal_slowdown"},
                                                                     {0x80ULL, "hw_power_brake_slowdown"},
                                                                     {0x100ULL, "display_clock_setting"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : names)
    if (bits & bit) out.push_back(name);
  return out;
}

template <typename F>
F resolve(void* lib, const char* name) {
  void* sym = dlsym(lib, name);
  if (!sym) throw NvmlError(std::string("NVML symbol missing: ") + name);
  return reinterpret_cast<F>(sym);
}

/// Closes a dlopen handle (a failure to unload leaves nothing to do).
struct LibraryCloser {
  void operator()(void* handle) const noexcept { dlclose(handle); }
};

}  // namespace

struct Nvml::Api {
  std::unique_ptr<void, LibraryCloser> lib;  ///< closed after everything below (the last member destroyed)
  nvmlDevice_t device = nullptr;
  int index = 0;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*device_count)(unsigned*) = nullptr;
  nvmlReturn_t (*by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*by_uuid)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*index_of)(nvmlDevice_t, unsigned*) = nullptr;
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
  // Optional (nullptr where the driver lacks it): the board's energy since the driver loaded, mJ (Volta and newer).
  nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long*) = nullptr;
  // Optional (nullptr where the driver lacks them): the conditions() queries.
  nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*persistence)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*app_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*ecc)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*clock_events)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*get_samples)(nvmlDevice_t, int, unsigned long long, int*, unsigned*, nvmlSample_t*) = nullptr;
  nvmlReturn_t (*gpm_support)(nvmlDevice_t, nvmlGpmSupport_t*) = nullptr;
  nvmlReturn_t (*gpm_alloc)(nvmlGpmSample_t*) = nullptr;
  nvmlReturn_t (*gpm_free)(nvmlGpmSample_t) = nullptr;
  nvmlReturn_t (*gpm_get)(nvmlDevice_t, nvmlGpmSample_t) = nullptr;
  nvmlReturn_t (*gpm_metrics)(nvmlGpmMetricsGet_t*) = nullptr;
  // GPM state: probed once; two samples, the window's start and end.
  /// Every GPM call (support, alloc, free, sample, metrics) is made under it. The sweep's window (gpm_begin/end, the
  /// main thread) and the Monitor's ticker (its own thread) each take samples; two nvmlGpmSampleGet at once on one
  /// device crashed bench_mps inside libnvidia-ml (SIGSEGV in nvmlGpmSampleGet from gpm_end, driver 580.159.04, an
  /// H200: results/2026-12-02-mpscal-worker/logs), so GPM is used by one thread at a time.
  mutable std::mutex gpm_mutex;
  mutable bool gpm_probed = false;
  mutable std::string gpm_reason;
  mutable nvmlGpmSample_t gpm_first = nullptr, gpm_second = nullptr;
  mutable bool gpm_open = false;

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

std::unique_ptr<Nvml> Nvml::load(std::string& why) {
  auto api = std::make_unique<Api>();
  api->lib.reset(dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL));
  if (!api->lib) {
    why = "the NVIDIA driver's libnvidia-ml.so.1 is not installed";
    return nullptr;
  }
  try {
    api->init = resolve<decltype(api->init)>(api->lib.get(), "nvmlInit_v2");
    api->shutdown = resolve<decltype(api->shutdown)>(api->lib.get(), "nvmlShutdown");
    api->error_string = resolve<decltype(api->error_string)>(api->lib.get(), "nvmlErrorString");
    api->device_count = resolve<decltype(api->device_count)>(api->lib.get(), "nvmlDeviceGetCount_v2");
    api->by_index = resolve<decltype(api->by_index)>(api->lib.get(), "nvmlDeviceGetHandleByIndex_v2");
    api->by_uuid = resolve<decltype(api->by_uuid)>(api->lib.get(), "nvmlDeviceGetHandleByUUID");
    api->index_of = resolve<decltype(api->index_of)>(api->lib.get(), "nvmlDeviceGetIndex");
    api->name = resolve<decltype(api->name)>(api->lib.get(), "nvmlDeviceGetName");
    api->uuid = resolve<decltype(api->uuid)>(api->lib.get(), "nvmlDeviceGetUUID");
    api->driver_version = resolve<decltype(api->driver_version)>(api->lib.get(), "nvmlSystemGetDriverVersion");
    api->cuda_driver_version =
        resolve<decltype(api->cuda_driver_version)>(api->lib.get(), "nvmlSystemGetCudaDriverVersion_v2");
    api->memory = resolve<decltype(api->memory)>(api->lib.get(), "nvmlDeviceGetMemoryInfo");
    api->compute_mode = resolve<decltype(api->compute_mode)>(api->lib.get(), "nvmlDeviceGetComputeMode");
    api->mig_mode = resolve<decltype(api->mig_mode)>(api->lib.get(), "nvmlDeviceGetMigMode");
    api->utilization = resolve<decltype(api->utilization)>(api->lib.get(), "nvmlDeviceGetUtilizationRates");
    api->clock = resolve<decltype(api->clock)>(api->lib.get(), "nvmlDeviceGetClockInfo");
    api->max_clock = resolve<decltype(api->max_clock)>(api->lib.get(), "nvmlDeviceGetMaxClockInfo");
    api->power = resolve<decltype(api->power)>(api->lib.get(), "nvmlDeviceGetPowerUsage");
    api->energy = resolve_optional<decltype(api->energy)>(api->lib.get(), "nvmlDeviceGetTotalEnergyConsumption");
    api->power_limit = resolve_optional<decltype(api->power_limit)>(api->lib.get(), "nvmlDeviceGetEnforcedPowerLimit");
    api->persistence = resolve_optional<decltype(api->persistence)>(api->lib.get(), "nvmlDeviceGetPersistenceMode");
    api->app_clock = resolve_optional<decltype(api->app_clock)>(api->lib.get(), "nvmlDeviceGetApplicationsClock");
    api->ecc = resolve_optional<decltype(api->ecc)>(api->lib.get(), "nvmlDeviceGetEccMode");
    api->temperature = resolve_optional<decltype(api->temperature)>(api->lib.get(), "nvmlDeviceGetTemperature");
    api->clock_events =
        resolve_optional<decltype(api->clock_events)>(api->lib.get(), "nvmlDeviceGetCurrentClocksEventReasons");
    api->get_samples = resolve_optional<decltype(api->get_samples)>(api->lib.get(), "nvmlDeviceGetSamples");
    api->gpm_support = resolve_optional<decltype(api->gpm_support)>(api->lib.get(), "nvmlGpmQueryDeviceSupport");
    api->gpm_alloc = resolve_optional<decltype(api->gpm_alloc)>(api->lib.get(), "nvmlGpmSampleAlloc");
    api->gpm_free = resolve_optional<decltype(api->gpm_free)>(api->lib.get(), "nvmlGpmSampleFree");
    api->gpm_get = resolve_optional<decltype(api->gpm_get)>(api->lib.get(), "nvmlGpmSampleGet");
    api->gpm_metrics = resolve_optional<decltype(api->gpm_metrics)>(api->lib.get(), "nvmlGpmMetricsGet");
    if (!api->clock_events)  // its name before CUDA 12.2's drivers
      api->clock_events =
          resolve_optional<decltype(api->clock_events)>(api->lib.get(), "nvmlDeviceGetCurrentClocksThrottleReasons");
  } catch (const NvmlError& e) {
    why = e.what();
    return nullptr;
  }
  if (const nvmlReturn_t rc = api->init(); rc != NVML_SUCCESS) {
    why = std::string("NVML could not start: ") + api->error_string(rc);
    return nullptr;
  }
  std::unique_ptr<Nvml> nvml(new Nvml(std::move(api)));
  unsigned count = 0;
  if (nvml->api_->device_count(&count) != NVML_SUCCESS || count == 0) {
    why = "the driver sees no GPU";
    return nullptr;
  }
  return nvml;
}

std::unique_ptr<Nvml> Nvml::open(std::string& why) {
  std::unique_ptr<Nvml> nvml = load(why);
  if (!nvml) return nullptr;
  Api& a = *nvml->api_;
  unsigned count = 0;
  a.device_count(&count);  // load() saw it succeed
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
  unsigned index = 0;  // a UUID says nothing of the index: ask
  if (const nvmlReturn_t irc = a.index_of(a.device, &index); irc != NVML_SUCCESS) {
    why = std::string("nvmlDeviceGetIndex: ") + a.error_string(irc);
    return nullptr;
  }
  a.index = static_cast<int>(index);
  return nvml;
}

std::vector<GpuIdentity> Nvml::inventory(std::string& why) {
  std::vector<GpuIdentity> gpus;
  std::unique_ptr<Nvml> nvml = load(why);
  if (!nvml) return gpus;
  const Api& a = *nvml->api_;
  unsigned count = 0;
  a.check(a.device_count(&count), "nvmlDeviceGetCount_v2");
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    a.check(a.by_index(i, &device), "nvmlDeviceGetHandleByIndex_v2");
    char buf[256] = {};
    GpuIdentity g;
    g.index = static_cast<int>(i);
    a.check(a.uuid(device, buf, sizeof buf), "nvmlDeviceGetUUID");
    g.uuid = buf;
    a.check(a.name(device, buf, sizeof buf), "nvmlDeviceGetName");
    g.name = buf;
    gpus.push_back(g);
  }
  return gpus;
}

Nvml::Nvml(std::unique_ptr<Api> api) : api_(std::move(api)) {}

Nvml::~Nvml() {
  if (api_->gpm_first) api_->gpm_free(api_->gpm_first);
  if (api_->gpm_second) api_->gpm_free(api_->gpm_second);
  api_->shutdown();  // nothing useful to do with a failure here; the library closes with api_
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
  unsigned long long mj = 0;
  if (a.energy)
    if (auto e = a.optional(a.energy(a.device, &mj), mj, "nvmlDeviceGetTotalEnergyConsumption"))
      s.energy_j = *e / 1000.0;
  return s;
}

GpuConditions Nvml::conditions() const {
  const Api& a = *api_;
  GpuConditions c;
  // Each query is optional: unsupported, missing from this driver or refused, the value stays empty.
  auto ok = [](nvmlReturn_t rc) { return rc == NVML_SUCCESS; };
  unsigned u = 0;
  int state = 0, pending = 0;
  if (a.power_limit && ok(a.power_limit(a.device, &u))) c.power_limit_w = u / 1000.0;
  if (a.persistence && ok(a.persistence(a.device, &state))) c.persistence_mode = state ? "Enabled" : "Disabled";
  if (a.app_clock && ok(a.app_clock(a.device, NVML_CLOCK_SM, &u))) c.app_sm_clock_mhz = u;
  if (a.app_clock && ok(a.app_clock(a.device, NVML_CLOCK_MEM, &u))) c.app_mem_clock_mhz = u;
  if (a.ecc && ok(a.ecc(a.device, &state, &pending))) c.ecc_mode = state ? "Enabled" : "Disabled";
  if (a.temperature && ok(a.temperature(a.device, 0 /* NVML_TEMPERATURE_GPU */, &u))) c.temperature_c = u;
  unsigned long long bits = 0;
  if (a.clock_events && ok(a.clock_events(a.device, &bits))) c.clock_event_reasons = clock_event_names(bits);
  return c;
}

std::vector<UtilSample> Nvml::utilization_samples(std::int64_t since_ns) const {
  const Api& a = *api_;
  std::vector<UtilSample> out;
  if (!a.get_samples) return out;
  // NVML stamps its samples in microseconds of the wall clock; we time on CLOCK_MONOTONIC.
  timespec rt{};
  clock_gettime(CLOCK_REALTIME, &rt);
  const std::int64_t mono_now = monotonic_ns();
  const std::int64_t realtime_now = static_cast<std::int64_t>(rt.tv_sec) * 1000000000LL + rt.tv_nsec;
  const std::int64_t offset = realtime_now - mono_now;  // realtime = monotonic + offset
  const auto since_us = static_cast<unsigned long long>(std::max<std::int64_t>(0, (since_ns + offset) / 1000));
  int type = 0;
  unsigned count = 0;
  if (a.get_samples(a.device, NVML_GPU_UTILIZATION_SAMPLES, since_us, &type, &count, nullptr) != NVML_SUCCESS ||
      count == 0)
    return out;
  std::vector<nvmlSample_t> raw(count);
  if (a.get_samples(a.device, NVML_GPU_UTILIZATION_SAMPLES, since_us, &type, &count, raw.data()) != NVML_SUCCESS ||
      type != NVML_VALUE_TYPE_UNSIGNED_INT)
    return out;
  raw.resize(count);
  // Whichever clock the stamps are on, the newest must be within seconds of now on it.
  std::int64_t shift = 0;
  unsigned long long newest = 0;
  for (const auto& r : raw) newest = std::max(newest, r.timeStamp);
  const auto near = [](std::int64_t a_ns, std::int64_t b_ns) { return std::llabs(a_ns - b_ns) < 10000000000LL; };
  if (near(static_cast<std::int64_t>(newest) * 1000, realtime_now)) {
    shift = offset;
  } else if (!near(static_cast<std::int64_t>(newest) * 1000, mono_now)) {
    return out;  // an unknown clock: better none than misplaced ones
  }
  for (const auto& r : raw) {
    const std::int64_t t = static_cast<std::int64_t>(r.timeStamp) * 1000 - shift;
    if (t > since_ns) out.push_back({t, r.sampleValue.uiVal});
  }
  std::sort(out.begin(), out.end(), [](const UtilSample& x, const UtilSample& y) { return x.t_ns < y.t_ns; });
  return out;
}

std::uint64_t Nvml::memory_free_bytes() const {
  nvmlMemory_t mem{};
  api_->check(api_->memory(api_->device, &mem), "nvmlDeviceGetMemoryInfo");
  return mem.free;
}

std::string Nvml::gpm_unavailable() const {
  const Api& a = *api_;
  std::lock_guard<std::mutex> lock(a.gpm_mutex);
  if (a.gpm_probed) return a.gpm_reason;
  a.gpm_probed = true;
  auto fail = [&a](const std::string& why) -> std::string { return a.gpm_reason = why; };
  if (!a.gpm_support || !a.gpm_alloc || !a.gpm_free || !a.gpm_get || !a.gpm_metrics)
    return fail("this driver's NVML has no GPM functions");
  nvmlGpmSupport_t support{NVML_GPM_SUPPORT_VERSION, 0};
  if (const nvmlReturn_t rc = a.gpm_support(a.device, &support); rc != NVML_SUCCESS)
    return fail(std::string("nvmlGpmQueryDeviceSupport: ") + a.error_string(rc));
  if (!support.isSupportedDevice) return fail("this GPU has no GPM metrics (Hopper and newer have them)");
  if (const nvmlReturn_t rc = a.gpm_alloc(&a.gpm_first); rc != NVML_SUCCESS)
    return fail(std::string("nvmlGpmSampleAlloc: ") + a.error_string(rc));
  if (const nvmlReturn_t rc = a.gpm_alloc(&a.gpm_second); rc != NVML_SUCCESS)
    return fail(std::string("nvmlGpmSampleAlloc: ") + a.error_string(rc));
  if (const nvmlReturn_t rc = a.gpm_get(a.device, a.gpm_first); rc != NVML_SUCCESS)
    return fail(std::string("nvmlGpmSampleGet: ") + a.error_string(rc));  // e.g. no permission to profile
  return a.gpm_reason;                                                    // ""
}

bool Nvml::gpm_begin() const {
  const Api& a = *api_;
  if (!gpm_unavailable().empty()) return false;
  std::lock_guard<std::mutex> lock(a.gpm_mutex);
  a.gpm_open = a.gpm_get(a.device, a.gpm_first) == NVML_SUCCESS;
  return a.gpm_open;
}

namespace {

/// The three metrics between two GPM samples; empty where nvmlGpmMetricsGet fails.
std::optional<GpmMetrics> gpm_metrics_between(nvmlReturn_t (*metrics_get)(nvmlGpmMetricsGet_t*), nvmlGpmSample_t first,
                                              nvmlGpmSample_t second) {
  auto request = std::make_unique<nvmlGpmMetricsGet_t>();
  *request = nvmlGpmMetricsGet_t{};
  request->version = NVML_GPM_METRICS_GET_VERSION;
  request->numMetrics = 3;
  request->sample1 = first;
  request->sample2 = second;
  request->metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
  request->metrics[1].metricId = NVML_GPM_METRIC_SM_OCCUPANCY;
  request->metrics[2].metricId = NVML_GPM_METRIC_DRAM_BW_UTIL;
  if (metrics_get(request.get()) != NVML_SUCCESS) return std::nullopt;
  auto fraction = [&request](int i) {
    const nvmlGpmMetric_t& m = request->metrics[i];
    return m.nvmlReturn == NVML_SUCCESS && std::isfinite(m.value) ? m.value / 100.0 : NAN;
  };
  return GpmMetrics{fraction(0), fraction(1), fraction(2)};
}

}  // namespace

std::optional<GpmMetrics> Nvml::gpm_end() const {
  const Api& a = *api_;
  std::lock_guard<std::mutex> lock(a.gpm_mutex);
  if (!a.gpm_open) return std::nullopt;
  a.gpm_open = false;
  if (a.gpm_get(a.device, a.gpm_second) != NVML_SUCCESS) return std::nullopt;
  return gpm_metrics_between(a.gpm_metrics, a.gpm_first, a.gpm_second);
}

struct Nvml::GpmTicker::State {
  const Api* api = nullptr;
  nvmlGpmSample_t last = nullptr, next = nullptr;
  std::int64_t last_ns = 0;  ///< when `last` was taken; 0: none yet
};

Nvml::GpmTicker::GpmTicker(std::unique_ptr<State> state) : state_(std::move(state)) {}

Nvml::GpmTicker::~GpmTicker() {
  std::lock_guard<std::mutex> lock(state_->api->gpm_mutex);
  if (state_->last) state_->api->gpm_free(state_->last);
  if (state_->next) state_->api->gpm_free(state_->next);
}

std::optional<GpmPeriod> Nvml::GpmTicker::tick() {
  State& s = *state_;
  const Api& a = *s.api;
  std::lock_guard<std::mutex> lock(a.gpm_mutex);
  const std::int64_t before = monotonic_ns();
  a.check(a.gpm_get(a.device, s.next), "nvmlGpmSampleGet");
  const std::int64_t at = before + (monotonic_ns() - before) / 2;
  std::optional<GpmPeriod> period;
  if (s.last_ns > 0)
    if (const auto m = gpm_metrics_between(a.gpm_metrics, s.last, s.next)) period = GpmPeriod{s.last_ns, at, *m};
  std::swap(s.last, s.next);
  s.last_ns = at;
  return period;
}

std::unique_ptr<Nvml::GpmTicker> Nvml::gpm_ticker(std::string& why) const {
  const Api& a = *api_;
  if (!a.gpm_support || !a.gpm_alloc || !a.gpm_free || !a.gpm_get || !a.gpm_metrics) {
    why = "this driver's NVML has no GPM functions";
    return nullptr;
  }
  std::unique_ptr<GpmTicker>
      ticker;  // where a sample fails, freed after the lock below is let go (its destructor takes it)
  std::lock_guard<std::mutex> lock(a.gpm_mutex);
  nvmlGpmSupport_t support{NVML_GPM_SUPPORT_VERSION, 0};
  if (const nvmlReturn_t rc = a.gpm_support(a.device, &support); rc != NVML_SUCCESS) {
    why = std::string("nvmlGpmQueryDeviceSupport: ") + a.error_string(rc);
    return nullptr;
  }
  if (!support.isSupportedDevice) {
    why = "this GPU has no GPM metrics (Hopper and newer have them)";
    return nullptr;
  }
  auto state = std::make_unique<GpmTicker::State>();
  state->api = &a;
  ticker.reset(new GpmTicker(std::move(state)));  // frees what it allocated
  for (nvmlGpmSample_t* sample : {&ticker->state_->last, &ticker->state_->next})
    if (const nvmlReturn_t rc = a.gpm_alloc(sample); rc != NVML_SUCCESS) {
      *sample = nullptr;
      why = std::string("nvmlGpmSampleAlloc: ") + a.error_string(rc);
      return nullptr;
    }
  return ticker;
}

}  // namespace bench_mps::harness
