// A profile's steady part on CLOCK_MONOTONIC, with NVML and GPM over it: see profile_window.hpp.
#include "harness/results/profile_window.hpp"

#include <algorithm>
#include <cmath>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"

namespace bench_mps::harness {
namespace {

constexpr double kRateTolerance = 1e-3;  ///< the two clocks may differ this much in rate (NTP slews by 5e-4 at most)

std::string pct(double fraction) { return fmt_fixed(100 * fraction, 1) + "%"; }

}  // namespace

std::int64_t ProfileClock::monotonic_ns(double profile_s) const {
  return t0_monotonic_ns + std::llround(profile_s * 1e9 * rate);
}

double ProfileClock::profile_s(std::int64_t monotonic) const {
  return static_cast<double>(monotonic - t0_monotonic_ns) / rate * 1e-9;
}

ProfileClock profile_clock(const GpuProfile& p) {
  ProfileClock c;
  c.anchors = p.monotonic_anchors.size();
  if (p.monotonic_anchors.empty()) {
    c.unavailable = p.monotonic_error.empty() ? "the profile has no clock anchor (written by an older profiler)"
                                              : "the profiler could not read the clocks: " + p.monotonic_error;
    return c;
  }
  const ClockAnchor& first = p.monotonic_anchors.front();
  const ClockAnchor& last = p.monotonic_anchors.back();
  if (last.profile_ns > first.profile_ns) {
    c.rate = static_cast<double>(last.monotonic_ns - first.monotonic_ns) /
             static_cast<double>(last.profile_ns - first.profile_ns);
    if (!(std::fabs(c.rate - 1) <= kRateTolerance)) {
      c.unavailable =
          "CLOCK_MONOTONIC ran " + fmt_num(c.rate, 6) + " times as fast as CUPTI's clock between the anchors";
      return c;
    }
  }
  c.t0_monotonic_ns = first.monotonic_ns - std::llround(static_cast<double>(first.profile_ns) * c.rate);
  for (const ClockAnchor& a : p.monotonic_anchors) c.spread_ns = std::max(c.spread_ns, a.spread_ns);
  return c;
}

ProfileWindow profile_window(const GpuProfile& p, const ProfileSummary& s, const std::vector<UtilSample>& util,
                             const std::vector<GpmPeriod>& gpm, const std::string& nvml_why,
                             const std::string& gpm_why) {
  ProfileWindow w;
  const ProfileClock clock = profile_clock(p);
  if (!clock.unavailable.empty()) {
    w.unavailable = clock.unavailable;
    return w;
  }
  if (s.bursts == 0 || !(s.steady_to_s > s.steady_from_s)) {
    w.unavailable = "the profile has no steady part";
    return w;
  }
  w.from_ns = clock.monotonic_ns(s.steady_from_s);
  w.to_ns = clock.monotonic_ns(s.steady_to_s);
  const std::vector<double> inside = utilization_within(util, w.from_ns, w.to_ns);
  w.nvml_samples = inside.size();
  if (!inside.empty()) {
    w.nvml_util = mean(inside);
  } else {
    w.nvml_why = !nvml_why.empty() ? nvml_why
                 : util.size() < 2 ? "the driver kept fewer than two utilisation samples of the run"
                                   : "no utilisation sample's period lies inside the steady part";
  }
  w.gpm = gpm_within(gpm, w.from_ns, w.to_ns);
  if (w.gpm.periods > 0) {
    w.gpm_from_s = clock.profile_s(w.gpm.from_ns);
    w.gpm_to_s = clock.profile_s(w.gpm.to_ns);
  } else {
    w.gpm_why = !gpm_why.empty() ? gpm_why : "no GPM period lies inside the steady part";
  }
  return w;
}

std::vector<std::pair<std::string, double>> window_facts(const ProfileWindow& w) {
  std::vector<std::pair<std::string, double>> facts;
  if (!w.unavailable.empty()) return facts;
  facts = {{"profile_nvml_samples", static_cast<double>(w.nvml_samples)},
           {"profile_nvml_util", w.nvml_util},
           {"profile_gpm_periods", static_cast<double>(w.gpm.periods)},
           {"profile_gpm_sm_util", w.gpm.metrics.sm_util},
           {"profile_gpm_sm_occupancy", w.gpm.metrics.sm_occupancy},
           {"profile_gpm_dram_bw_util", w.gpm.metrics.dram_bw_util},
           {"profile_gpm_from_s", w.gpm_from_s},
           {"profile_gpm_to_s", w.gpm_to_s}};
  facts.erase(std::remove_if(facts.begin(), facts.end(), [](const auto& f) { return std::isnan(f.second); }),
              facts.end());
  return facts;
}

ProfileWindow window_from_facts(const std::function<double(const std::string&)>& fact) {
  ProfileWindow w;
  const double samples = fact("profile_nvml_samples"), periods = fact("profile_gpm_periods");
  if (std::isnan(samples) || std::isnan(periods)) {
    w.unavailable = "the run's facts hold no NVML or GPM window for it (see the sweep's screen or docs/PROFILE.md)";
    return w;
  }
  w.nvml_samples = static_cast<std::size_t>(samples);
  w.nvml_util = fact("profile_nvml_util");
  if (w.nvml_samples == 0) w.nvml_why = "none inside the steady part";
  w.gpm.periods = static_cast<std::size_t>(periods);
  w.gpm.metrics =
      GpmMetrics{fact("profile_gpm_sm_util"), fact("profile_gpm_sm_occupancy"), fact("profile_gpm_dram_bw_util")};
  w.gpm_from_s = fact("profile_gpm_from_s");
  w.gpm_to_s = fact("profile_gpm_to_s");
  if (w.gpm.periods == 0) w.gpm_why = "none inside the steady part";
  return w;
}

std::string describe_nvml_gpm(const ProfileWindow& w) {
  if (!w.unavailable.empty()) return "NVML and GPM not beside it: " + w.unavailable;
  std::string line = w.nvml_why.empty()
                         ? "NVML util " + pct(w.nvml_util) + " (" + std::to_string(w.nvml_samples) + " samples)"
                         : "NVML util - (" + w.nvml_why + ")";
  if (!w.gpm_why.empty()) return line + "; GPM - (" + w.gpm_why + ")";
  auto metric = [](double v) { return std::isnan(v) ? std::string("-") : pct(v); };
  return line + "; GPM SM util " + metric(w.gpm.metrics.sm_util) + ", occupancy " + metric(w.gpm.metrics.sm_occupancy) +
         ", DRAM bw " + metric(w.gpm.metrics.dram_bw_util) + " over " + fmt_fixed(w.gpm_from_s, 3) + "-" +
         fmt_fixed(w.gpm_to_s, 3) + " s (" + std::to_string(w.gpm.periods) + " periods)";
}

std::string describe_window(const ProfileSummary& s, const ProfileWindow& w) {
  return "steady part " + fmt_fixed(s.steady_from_s, 3) + "-" + fmt_fixed(s.steady_to_s, 3) + " s: CUPTI duty " +
         pct(s.duty) + "; " + describe_nvml_gpm(w);
}

}  // namespace bench_mps::harness
