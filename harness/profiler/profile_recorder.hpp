#pragma once
// The profiler's bounded aggregate of a process's GPU activity, with no CUPTI in it (the injection,
// cupti_injection.cpp, feeds it; tests feed it by hand). It keeps, whatever the program's length:
// - the busy timeline: kernels, copies and memsets of every stream and device merged into intervals;
//   intervals closer than `min_gap_ns` are one interval (its busy time excludes the gap); the first
//   `head_intervals` and a ring of the last `tail_intervals` are kept, the rest only counted; each
//   interval also sums its SM time: every kernel's time x its fill (profile_format.hpp kernel_fill;
//   memsets count as filling the device, copies as using no SM), what the MPS simulator shares out;
// - every gap between intervals (and the merged ones under min_gap) in log2 bins of nanoseconds;
// - one aggregate per kernel signature (name, grid, block, registers, static + dynamic shared memory);
// - device memory allocated, released and its peak per device; contexts; the devices' limits;
// - the host waits (synchronising calls, synchronous copies): [start, end] of the first `head_waits`
//   and the last `tail_waits`, every one counted, and whether they could be recorded at all;
// - where asked (--exec-unit-range), the occurrences of one NVTX range by its name, [start, end] of the first
//   `head_ranges` and the last `tail_ranges`, every one counted, or why they could not be recorded;
// - where CLOCK_MONOTONIC stood at CUPTI times (the first and the last anchor the injection read), so
//   that the harness can place the profile on its own clock and NVML's (docs/PROFILE.md "One clock").
// Its JSON (format_version 3) is read by harness/results/gpu_profile.hpp; it is written by hand, since
// the library injected into foreign processes links nothing but CUPTI and the C++ standard library.
#include "harness/profiler/wing.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>  // contexts_
#include <vector>

#include "harness/profiler/head_tail.hpp"
#include "harness/profiler/profile_format.hpp"

namespace bench_mps::profiler {

struct KernelLaunch {
  KernelShape shape;
  std::uint64_t start_ns = 0, end_ns = 0;
};

struct RecorderLimits {
  std::uint64_t min_gap_ns = 1000;      ///< gaps below it merge two intervals into one
  std::size_t head_intervals = 5000;    ///< the first intervals, always kept
  std::size_t tail_intervals = 45000;   ///< a ring of the last ones
  std::size_t head_waits = 5000;        ///< the first host waits, always kept
  std::size_t tail_waits = 45000;       ///< a ring of the last ones
  std::size_t head_ranges = 5000;       ///< the first occurrences of the NVTX range followed, always kept
  std::size_t tail_ranges = 45000;      ///< a ring of the last ones
  std::size_t max_signatures = 2000;    ///< kernel signatures beyond it count as "other"
  std::size_t pending_batch = 1 << 16;  ///< activity spans (and waits) sorted and merged this many at a time
};

/// What the writer says about the process itself.
struct ProcessFacts {
  long pid = 0, ppid = 0;
  std::string command;  ///< /proc/self/cmdline, spaces between its words, cut at 512 bytes
};

class ProfileRecorder {
 public:
  ProfileRecorder(RecorderLimits limits, std::uint64_t t0_ns);

  void kernel(const KernelLaunch& k);
  void copy(std::uint64_t start_ns, std::uint64_t end_ns, std::uint64_t bytes);
  void memset(std::uint64_t start_ns, std::uint64_t end_ns, std::uint64_t bytes);
  /// A host wait: a synchronising call (stream, event or context synchronize) from its start to its end.
  void host_wait(std::uint64_t start_ns, std::uint64_t end_ns);
  /// A synchronous copy: busy like any copy, and a host wait over the copy (the host call's own start
  /// is not in CUPTI's record).
  void sync_copy(std::uint64_t start_ns, std::uint64_t end_ns, std::uint64_t bytes);
  /// Host waits cannot be recorded (`why`: the CUPTI call that failed); the rest of the profile can.
  void waits_unavailable(const std::string& why);
  bool waits_available() const { return waits_status_ == "ok"; }
  /// Where the host waits come from, in words (the profile's waits_source; "" leaves it out).
  void waits_source(const std::string& source) { waits_source_ = source; }
  /// The NVTX range whose occurrences the profile records (its "unit_range"); "" (the default) records none.
  void unit_range(const std::string& name) { unit_range_name_ = name; }
  /// One occurrence of it, from its push (start) to its pop (end).
  void unit_range_span(std::uint64_t start_ns, std::uint64_t end_ns);
  /// Its occurrences cannot be recorded (`why`); the rest of the profile can.
  void unit_range_unavailable(const std::string& why);
  /// Device memory allocated (`allocation`) or released.
  void memory(std::uint32_t device, bool allocation, std::uint64_t bytes);
  void device(const DeviceLimits& d);
  void context(std::uint32_t context_id, std::uint32_t device, std::uint32_t sms, bool green);
  void dropped_records(std::size_t n) { dropped_records_ += n; }
  /// A CUPTI failure: said in the profile; `status` becomes "error".
  void error(const std::string& what);
  bool failed() const { return !errors_.empty(); }
  /// CLOCK_MONOTONIC was `monotonic_ns` at CUPTI's `cupti_ns`, read within `spread_ns` (the two
  /// monotonic readings around the CUPTI one). The first anchor and the latest are kept.
  void monotonic_anchor(std::uint64_t cupti_ns, std::int64_t monotonic_ns, std::int64_t spread_ns);
  /// The anchor could not be read (`why`: the call that failed); the profile says so, the rest stays valid.
  void monotonic_unavailable(const std::string& why);

  /// Merges what is pending and renders the profile (the recorder can go on after it).
  std::string json(std::uint64_t end_ns, const ProcessFacts& process);

 private:
  struct Interval {
    std::uint64_t start, end, busy;
    double sm;  ///< SM time: each piece's time x its fill
  };
  struct KernelTotals {
    std::uint64_t count = 0, total_ns = 0;
    double fill = -1;  ///< its launches' fill, once the device's limits are known (-1: not yet)
  };
  /// A busy piece waiting to be merged: its fill, or (fill < 0) the shape whose fill the device's limits
  /// will give once known (the device's record may come after the first kernels').
  struct Piece {
    std::uint64_t start, end;
    double fill;
    const KernelShape* shape;
    KernelTotals* totals;
    bool operator<(const Piece& o) const { return start < o.start || (start == o.start && end < o.end); }
  };
  struct Transfers {
    std::uint64_t count = 0, total_ns = 0, bytes = 0;
  };
  struct Memory {
    std::uint64_t current = 0, peak = 0, allocations = 0, releases = 0;
  };

  struct Wait {
    std::uint64_t start, end;
  };
  struct Anchor {
    std::uint64_t cupti;
    std::int64_t monotonic, spread;
  };

  void busy_span(std::uint64_t start_ns, std::uint64_t end_ns, double fill, const KernelShape* shape = nullptr,
                 KernelTotals* totals = nullptr);
  double fill_of(const Piece& p);
  void merge_pending();
  void keep_pending_waits();
  /// Sorts `pending` by end and keeps it in `into`.
  static void keep_sorted(std::vector<Wait>& pending, HeadTail<Wait>& into);
  void close_open();
  void count_gap(std::uint64_t gap_ns);

  RecorderLimits limits_;
  std::uint64_t t0_ns_;
  std::vector<Piece> pending_;
  bool have_open_ = false;
  Interval open_{0, 0, 0, 0};
  std::uint64_t last_closed_end_ = 0;
  HeadTail<Interval> intervals_;
  std::uint64_t busy_total_ns_ = 0, first_ns_ = 0, last_ns_ = 0, late_spans_ = 0;
  std::uint64_t late_ns_ = 0;  ///< late spans' time before the last closed interval: maybe counted already
  std::uint64_t gaps_overlap_ = 0;
  std::vector<std::uint64_t> gap_bins_ = std::vector<std::uint64_t>(48, 0);  ///< bin i: [2^i, 2^(i+1)) ns
  std::map<KernelShape, KernelTotals> kernels_;
  KernelTotals other_kernels_;
  std::uint64_t kernel_count_ = 0, kernel_ns_ = 0;
  Transfers copies_, memsets_;
  std::map<std::uint32_t, Memory> memory_;
  std::map<std::uint32_t, DeviceLimits> devices_;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, bool>> contexts_;
  std::vector<Wait> pending_waits_;
  HeadTail<Wait> waits_;
  std::uint64_t sync_copies_ = 0;
  std::string waits_status_ = "ok";
  std::string waits_source_;
  std::vector<Wait> pending_ranges_;
  HeadTail<Wait> ranges_;
  std::string unit_range_name_, unit_range_status_ = "ok";
  std::size_t dropped_records_ = 0;
  std::vector<Anchor> anchors_;  ///< the first and the latest
  std::string monotonic_why_;    ///< why an anchor could not be read ("" where each could)
  std::vector<std::string> errors_;
};

}  // namespace bench_mps::profiler
