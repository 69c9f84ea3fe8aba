#pragma once
// A GPU profile written by the profiler injected into a program (harness/profiler/, format_version 3;
// 2 without each span's SM time, 1 without host waits either; docs/PROFILE.md), read back, and its summary: where the program sits on the
// regime map (docs/REGIMES.md): duty cycle, the device work between two host waits, bursts between
// idle gaps, how much of the GPU its kernels can fill.
#include "harness/results/wing.hpp"

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "harness/profiler/profile_format.hpp"
#include "harness/results/step_phase.hpp"

namespace bench_mps::harness {

/// A device's limits, as the profiler wrote them.
using ProfileDevice = profiler::DeviceLimits;

/// One kernel signature's launches.
struct KernelSignature : profiler::KernelShape {
  std::uint64_t count = 0, total_ns = 0;
};

/// A merged busy interval of the timeline, ns from the profiler's start.
struct BusySpan {
  std::int64_t start_ns = 0, end_ns = 0, busy_ns = 0;
  /// Its SM time: every kernel's time x its fill (format_version 3; NaN in older profiles). Over busy_ns,
  /// the share of the device its work asks for while it runs (above 1 where streams overlap).
  double sm_ns = std::numeric_limits<double>::quiet_NaN();
};

/// A host wait (a synchronising call, a synchronous copy), ns from the profiler's start.
struct HostWait {
  std::int64_t start_ns = 0, end_ns = 0;
};

/// Where CLOCK_MONOTONIC stood at a profile time (clock.monotonic_anchors; docs/PROFILE.md "One clock").
struct ClockAnchor {
  std::int64_t profile_ns = 0;    ///< ns from the profiler's start
  std::int64_t monotonic_ns = 0;  ///< CLOCK_MONOTONIC then
  std::int64_t spread_ns = 0;     ///< the two monotonic readings around CUPTI's were this far apart
};

/// The occurrences of the NVTX range a profile followed (--exec-unit-range; docs/PROFILE.md "NVTX range").
struct UnitRange {
  std::string name;             ///< "" where the profile followed none
  std::string status;           ///< "ok": its occurrences recorded; else why not
  std::uint64_t count = 0;      ///< its occurrences in the whole run (kept or not)
  std::size_t kept_head = 0;    ///< spans[0, kept_head) are the run's first; the rest its last
  std::vector<HostWait> spans;  ///< each from its push (start) to its pop (end), sorted by end (head, tail each)
  bool recorded() const { return !name.empty() && status == "ok"; }
};

struct GpuProfile {
  std::string file;  ///< where it was read from (for messages)
  bool complete =
      true;  ///< the file's status "ok"; false for "error" (a CUPTI call failed: errors say which; the rest is partial)
  std::vector<std::string> errors;
  long pid = 0;
  std::string command;
  std::int64_t end_ns = 0;                     ///< the profile was written (program exit), ns from the profiler's start
  std::vector<ClockAnchor> monotonic_anchors;  ///< the first and the last; none in a profile of an older profiler
  std::string monotonic_error;                 ///< why the profiler could not read an anchor ("" where it could)
  std::uint64_t dropped_records = 0;
  std::vector<ProfileDevice> devices;
  int contexts = 0;
  std::uint64_t memory_peak_bytes = 0;  ///< device memory allocated at its peak, summed over devices
  std::uint64_t kernel_count = 0, kernel_ns = 0, other_kernel_count = 0, other_kernel_ns = 0;
  std::vector<KernelSignature> signatures;
  std::uint64_t copy_count = 0, copy_ns = 0, memset_count = 0, memset_ns = 0;
  std::int64_t min_gap_ns = 0;  ///< gaps below it were merged into one span by the profiler
  std::uint64_t intervals = 0;  ///< spans in the whole run (kept or not)
  std::uint64_t busy_ns = 0;    ///< busy time of the whole run
  std::int64_t first_ns = 0, last_ns = 0;
  std::vector<std::uint64_t> gap_log2_counts;  ///< bin i: gaps in [2^i, 2^(i+1)) ns, whole run
  std::size_t kept_head = 0;                   ///< spans[0, kept_head) are the run's first; the rest its last
  std::vector<BusySpan> spans;
  std::string waits_status;         ///< "ok": host waits recorded; else why not ("" in a format_version 1 profile)
  std::string waits_source;         ///< where they came from, in words ("" where the profile does not say)
  std::uint64_t wait_count = 0;     ///< host waits in the whole run (kept or not)
  std::uint64_t sync_copies = 0;    ///< of them, synchronous copies
  std::size_t waits_kept_head = 0;  ///< waits[0, waits_kept_head) are the run's first; the rest its last
  std::vector<HostWait> waits;      ///< sorted by end (the head and the tail each, where some were left out)
  UnitRange unit_range;             ///< none (no name) in a profile that followed no NVTX range
};

/// The NVTX range `p` followed, for unit_phase (step_phase.hpp), its occurrences on the profile's clock.
FollowedRange followed_range(const GpuProfile& p);

/// Reads one profile; throws UsageError "<file>: <what is wrong>".
GpuProfile read_gpu_profile(const std::filesystem::path& file);

/// The profile-*.json files of `dir` (and its subfolders if `recursive`), sorted; none or no folder: empty. A
/// profile committed packed (profile-<pid>.json.gz, scripts/pack_results.py) counts where its .json is not there.
std::vector<std::filesystem::path> gpu_profile_files(const std::filesystem::path& dir, bool recursive = false);

/// Blocks of one kernel signature resident on one SM at once, from its threads, registers and shared
/// memory against the device's limits (see docs/PROFILE.md); at least 1.
int resident_blocks_per_sm(const KernelSignature& k, const ProfileDevice& d);
/// Its launches' share of the device: min(1, blocks / (SMs x resident blocks per SM)).
double kernel_fill(const KernelSignature& k, const ProfileDevice& d);

struct GapBin {
  double from_us = 0, to_us = 0;
  std::uint64_t count = 0;
};

struct ProfileSummary {
  double gap_threshold_us = 0;
  bool truncated = false;                     ///< the profile kept only the run's first and last spans
  double steady_from_s = 0, steady_to_s = 0;  ///< the steady part, s from the profiler's start
  double duty = 0;                            ///< busy share of the steady part
  double duty_whole = 0;  ///< busy share from the first span to the last, whole run (NaN: its busy total is not known)
  std::size_t bursts = 0;
  double burst_p50_ms = 0, burst_p90_ms = 0, burst_mean_ms = 0;
  double wait_p50_ms = 0;              ///< the idle gaps between the steady part's bursts (host waits: below)
  std::vector<GapBin> gaps;            ///< whole run, log2 bins; bins with none left out
  double gaps_at_threshold_share = 0;  ///< of the whole run's gaps, the share in the bins from gaps_share_from_us up
  double gaps_share_from_us = 0;  ///< the first bin edge at or above the threshold (log2 bins: a gap inside the bin
                                  ///< that holds the threshold cannot be placed on either side of it)
  double fill = 0;                ///< kernel-time-weighted kernel_fill (NaN without kernels)
  std::uint64_t memory_peak_bytes = 0;
  int contexts = 0;
  std::uint64_t kernels = 0;
  // Host waits over the steady part (see summarise_host_waits): what bounds a step for the regime model.
  bool waits_recorded = false;   ///< the profile recorded host waits (format_version 2, waits_status "ok")
  std::uint64_t host_waits = 0;  ///< waits that end inside the steady part (after device work)
  double wait_step_ms = std::numeric_limits<double>::quiet_NaN();    ///< steady length / host_waits
  double wait_kernel_ms = std::numeric_limits<double>::quiet_NaN();  ///< steady busy time / host_waits
  double wait_burst_ms =
      std::numeric_limits<double>::quiet_NaN();  ///< mean first-start-to-last-end of a wait-to-wait step
};

/// Summarises `p`: bursts are the spans joined across gaps shorter than `gap_threshold_us`, which
/// must be at least the profile's min gap (UsageError otherwise). The steady part: the kept spans less
/// the first 10% of them, or the last spans alone where the profile kept only a head and a tail.
ProfileSummary summarise(const GpuProfile& p, double gap_threshold_us);

/// The host waits that count, of p.waits[from, to) (sorted by end): a wait counts when device work began
/// since the wait before it ended (docs/PROFILE.md "Host waits").
std::vector<HostWait> counted_waits(const GpuProfile& p, std::size_t from, std::size_t to);

/// Where the unit's steady part begins on `p`'s clock (ns from its t0): the summary's steady part less a head of
/// steps of another kind that the unit leaves out (unit_phase, step_phase.hpp: a warm-up of slower steps, say), so
/// that copies held there start where every one's unit begins (measure_units, bench_mps predict).
std::int64_t unit_steady_from_ns(const GpuProfile& p, const ProfileSummary& s);
/// The host waits that ended before it: `--exec-gate steady`'s K (wait:K; 0: it began before the first wait),
/// counted back from the run's end where the profile kept only a head and a tail of its waits.
long waits_before_unit(const GpuProfile& p, const ProfileSummary& s);

/// The busiest profile (the most busy time) of those read from `files` (a copy's profiles in a run's folder);
/// UsageError where none can be read, or a profile-<pid>.json holds another process than its name's.
GpuProfile busiest_profile(const std::vector<std::filesystem::path>& files);

/// Where s.waits_recorded, the host-wait fields of `s` (host_waits, wait_*_ms) over the steady part, whose
/// first span is p.spans[steady_from] (profile_host_waits.cpp; docs/PROFILE.md "Host waits").
void summarise_host_waits(const GpuProfile& p, std::size_t steady_from, ProfileSummary& s);

}  // namespace bench_mps::harness
