#pragma once
// NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): the harness itself needs no GPU
// libraries at link time and can say "no GPU" cleanly where the driver is absent. Every call is
// checked; a query the GPU does not support comes back empty, any other failure throws NvmlError.
#include "harness/gpu/wing.hpp"

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_mps::harness {

class NvmlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One GPU as the driver numbers it: index in PCI bus order (as nvidia-smi numbers them, and CUDA with
/// CUDA_DEVICE_ORDER=PCI_BUS_ID), UUID ("GPU-..."), name.
struct GpuIdentity {
  int index = 0;
  std::string uuid, name;
};

struct GpuStaticInfo {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string driver_version;
  int cuda_driver_version = 0;  ///< e.g. 13000
  std::uint64_t memory_total_bytes = 0;
  std::string compute_mode;             ///< Default | Exclusive_Thread | Prohibited | Exclusive_Process
  std::optional<std::string> mig_mode;  ///< Enabled | Disabled; empty where MIG is not supported
  std::optional<unsigned> max_sm_clock_mhz, max_mem_clock_mhz;
};

/// What can change a GPU's speed without changing the GPU, read without root where NVML allows; each
/// empty where the GPU or driver does not say (the compute time-slice policy has no NVML query).
struct GpuConditions {
  std::optional<double> power_limit_w;                          ///< enforced power limit
  std::optional<std::string> persistence_mode;                  ///< Enabled | Disabled
  std::optional<unsigned> app_sm_clock_mhz, app_mem_clock_mhz;  ///< application clocks
  std::optional<std::string> ecc_mode;                          ///< Enabled | Disabled (current)
  std::optional<unsigned> temperature_c;
  std::optional<std::vector<std::string>> clock_event_reasons;  ///< why clocks are held down now (may be empty)
};

struct GpuSample {
  std::int64_t t_ns = 0;  ///< CLOCK_MONOTONIC
  std::optional<unsigned> gpu_util_pct, mem_util_pct, sm_clock_mhz, mem_clock_mhz;
  std::optional<std::uint64_t> mem_used_bytes;
  std::optional<double> power_w;
  std::optional<double>
      energy_j;  ///< the board's energy counter (nvmlDeviceGetTotalEnergyConsumption), J since the driver loaded
};

/// GPU performance metrics (NVML's GPM, Hopper and newer) over a window, as fractions in [0, 1]:
/// unlike NVML's utilisation (the share of time *any* kernel ran, ~100% even for a kernel on 4 of
/// 132 SMs), these say how much of the GPU worked. NaN where the driver gave no value.
struct GpmMetrics {
  double sm_util = NAN;       ///< NVML_GPM_METRIC_SM_UTIL: SMs busy, averaged over SMs and time
  double sm_occupancy = NAN;  ///< NVML_GPM_METRIC_SM_OCCUPANCY: resident warps over the maximum
  double dram_bw_util = NAN;  ///< NVML_GPM_METRIC_DRAM_BW_UTIL: DRAM bandwidth used over the peak
};

/// GPM metrics over one period between two GPM samples, [from_ns, to_ns] on CLOCK_MONOTONIC (the
/// Monitor's, harness/gpu/monitor.hpp).
struct GpmPeriod {
  std::int64_t from_ns = 0, to_ns = 0;
  GpmMetrics metrics;
};

/// One of the driver's own utilisation samples: the percent of its sampling period (which ends at
/// t_ns, CLOCK_MONOTONIC) during which a kernel ran.
struct UtilSample {
  std::int64_t t_ns = 0;
  unsigned pct = 0;
};

class Nvml {
 public:
  /// Loads NVML and selects the GPU that CUDA calls device 0 (honouring CUDA_VISIBLE_DEVICES).
  /// Returns nullptr and sets `why` when there is no driver or no visible GPU.
  static std::unique_ptr<Nvml> open(std::string& why);
  /// Every GPU the driver sees, in index order, whatever CUDA_VISIBLE_DEVICES says. Empty, with `why`
  /// set, when there is no driver or no GPU; throws NvmlError when one cannot be read.
  static std::vector<GpuIdentity> inventory(std::string& why);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  GpuStaticInfo static_info() const;
  /// Power limit, persistence, application clocks, ECC, temperature, clock-event reasons, now.
  GpuConditions conditions() const;
  GpuSample sample() const;
  std::uint64_t memory_free_bytes() const;
  /// The driver's utilisation samples (nvmlDeviceGetSamples) taken after `since_ns` (CLOCK_MONOTONIC),
  /// oldest first; empty where the driver keeps none or their clock cannot be matched to ours.
  std::vector<UtilSample> utilization_samples(std::int64_t since_ns) const;

  /// Why GPM metrics cannot be read on this GPU (driver too old, GPU before Hopper, no permission),
  /// or "" when they can. Probed once, with two samples.
  std::string gpm_unavailable() const;
  /// Starts a GPM window with a first sample; false where GPM is unavailable.
  bool gpm_begin() const;
  /// Ends the window gpm_begin() started: the metrics over it (empty where the driver gave none).
  std::optional<GpmMetrics> gpm_end() const;

  /// GPM samples of its own, beside gpm_begin()/gpm_end()'s: each tick() takes one and gives the
  /// metrics since the one before. Lives no longer than the Nvml that made it.
  class GpmTicker {
   public:
    ~GpmTicker();
    GpmTicker(const GpmTicker&) = delete;
    GpmTicker& operator=(const GpmTicker&) = delete;
    /// Takes a sample: the period since the last tick (nothing on the first, or where the driver gave
    /// no metrics for it). Throws NvmlError where a GPM call fails.
    std::optional<GpmPeriod> tick();

   private:
    friend class Nvml;
    struct State;
    explicit GpmTicker(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
  };
  /// A ticker, or nullptr (and `why`) where GPM is unavailable; it probes support itself, so that
  /// another thread may make one while gpm_begin() is used.
  std::unique_ptr<GpmTicker> gpm_ticker(std::string& why) const;

 private:
  struct Api;
  explicit Nvml(std::unique_ptr<Api> api);
  /// NVML loaded and started, no device selected yet; nullptr (and `why`) without a driver or GPU.
  static std::unique_ptr<Nvml> load(std::string& why);
  std::unique_ptr<Api> api_;
};

}  // namespace bench_mps::harness
