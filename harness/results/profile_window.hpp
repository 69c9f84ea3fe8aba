#pragma once
// A GPU profile's steady part on the harness's clock (CLOCK_MONOTONIC, which NVML's samples are
// brought to, harness/gpu/nvml.hpp), and NVML's utilisation and GPM's metrics over it: the profile's
// duty beside what the driver saw over the same window (docs/PROFILE.md "One clock").
#include "harness/results/wing.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "harness/gpu/nvml.hpp"
#include "harness/gpu/sample_windows.hpp"
#include "harness/results/gpu_profile.hpp"

namespace bench_mps::harness {

/// A profile's times on CLOCK_MONOTONIC, from its clock anchors: the first anchor's offset, at the
/// rate between the first and the last.
struct ProfileClock {
  std::string unavailable;           ///< why the profile cannot be placed ("" where it can)
  std::int64_t t0_monotonic_ns = 0;  ///< CLOCK_MONOTONIC at the profiler's start (profile time 0)
  double rate = 1;                   ///< monotonic ns per profile ns
  std::int64_t spread_ns = 0;        ///< the widest reading of an anchor: the mapping's uncertainty
  std::size_t anchors = 0;
  std::int64_t monotonic_ns(double profile_s) const;
  double profile_s(std::int64_t monotonic_ns) const;
};

/// Unavailable (and why) without anchors, or where CUPTI's clock and CLOCK_MONOTONIC ran at rates
/// more than 0.1% apart between them (not the same kind of clock).
ProfileClock profile_clock(const GpuProfile& p);

/// NVML and GPM over a profile's steady part. NVML's and GPM's values are the device's: every process on
/// it, the other copies of a run included.
struct ProfileWindow {
  std::string unavailable;              ///< why none of it ("" where the steady part could be placed)
  std::int64_t from_ns = 0, to_ns = 0;  ///< the steady part on CLOCK_MONOTONIC
  std::size_t nvml_samples = 0;         ///< NVML utilisation samples whose period lies inside it
  double nvml_util = std::numeric_limits<double>::quiet_NaN();  ///< their mean, a fraction
  std::string nvml_why;                                         ///< why there is none ("" where there is)
  GpmWindow gpm;  ///< GPM periods inside it, the span they cover, their metrics
  double gpm_from_s = std::numeric_limits<double>::quiet_NaN(),
         gpm_to_s = gpm_from_s;  ///< that span, s from the profiler's start
  std::string gpm_why;           ///< why there are none ("" where there are)
};

/// What the run recorded, over the steady part of `s` (the summary of `p`). `nvml_why` / `gpm_why`:
/// why the run has no NVML samples / GPM periods at all ("" where it has).
ProfileWindow profile_window(const GpuProfile& p, const ProfileSummary& s, const std::vector<UtilSample>& util,
                             const std::vector<GpmPeriod>& gpm, const std::string& nvml_why,
                             const std::string& gpm_why);

/// The window as a run's facts (runs.csv, docs/PROFILE.md): none where it is unavailable; the counts
/// (profile_nvml_samples, profile_gpm_periods) 0 where NVML or GPM gave nothing inside it.
std::vector<std::pair<std::string, double>> window_facts(const ProfileWindow& w);
/// The window back from a row's facts (`fact`: the number under a name, NaN where absent); the reasons
/// it cannot give (the sweep said them on screen) are said generally.
ProfileWindow window_from_facts(const std::function<double(const std::string&)>& fact);

/// "NVML util 5.0% (127 samples); GPM SM util 1.2%, occupancy 0.1%, DRAM bw 0.3% over 2.150-14.750 s
/// (126 periods)", each missing part saying why.
std::string describe_nvml_gpm(const ProfileWindow& w);
/// "steady part 2.1-14.8 s: CUPTI duty 3.9%; NVML util 5% (127 samples); GPM SM util 1.2%, occupancy
/// 0.1%, DRAM bw 0.3% over 2.2-14.7 s (126 periods)": the steady part, then describe_nvml_gpm.
std::string describe_window(const ProfileSummary& s, const ProfileWindow& w);

}  // namespace bench_mps::harness
