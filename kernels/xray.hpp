#pragma once
// `xray`: the time-slice X-ray's probes (bench_mps --scenario xray). They measure the scheduler itself,
// not a workload: on the GPU's own clock (%globaltimer), when each context ran.
//
// Roles:
// - busy: a context that always has work. A task is one persistent one-thread kernel that reads the
//   GPU clock in a loop for `busy_ms` and logs every interval it ran without a pause longer than
//   `gap_us`; each interval is reported as a task span (its start and end). Time-sliced beside N-1
//   others, its intervals are its time slices and the pauses are the others' slices plus the
//   switches; alone or under MPS it runs in one interval.
// - step: short synchronising steps. A task launches one small kernel of fixed work (`step_us` alone)
//   and waits for it; the kernel stamps its start and end on the GPU clock. Beside busy contexts the
//   task time is the wait for the GPU's turn; beside other step contexts the stamps give the turn:
//   the time from one of its kernels' start to the next, over N, less its own kernel.
// - gaps: a context whose queue empties now and then without a host wait, as an eager framework's launch
//   gaps do. For each gap g of kGapsUs (0 to 256 us) a task launches a tiny stamped kernel A (about
//   kGapKernelUs), watches for A's end stamp in mapped host memory (no CUDA call: the context had the
//   GPU when A ended, and nothing in the driver knows the host is waiting), stays busy for g, then
//   launches a tiny stamped kernel B: how long the queue had been empty (B's launch less A's end) and
//   whether B started at once (within kGapKeptNs of its launch: its context still held the GPU) or
//   waited for the others' slices.
//
// Facts (over the timed phase): busy: intervals, slice_ms (mean interval, the first and last of each
// kernel left out as partial), off_ms (mean pause between its intervals), on_share (its run time over
// its kernel's time), intervals_lost (beyond the log's capacity); step: step_gpu_ms (its kernel on the
// GPU clock), start_period_ms (one kernel start to the next); both: globaltimer_tick_ns, the smallest
// step of the GPU clock seen (its resolution). Spans are converted to CLOCK_MONOTONIC with the offset
// of the tightest of 16 host brackets around a read of the GPU clock (a few microseconds).
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/workload.hpp"

namespace bench_mps::kernels {

/// What a probe does: log when it runs (busy), or run short synchronising steps (step).
enum class XrayRole { busy, step, gaps };

/// The gaps role's host gaps between a task's pairs of kernels (us), its kernels' work, and the wait a kernel
/// may have after its launch and still count as run at once (its context held the GPU): launch latency is
/// microseconds, losing the GPU to a busy context costs at least its slice (milliseconds).
inline constexpr double kGapsUs[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256};
inline constexpr double kGapKernelUs = 2;
inline constexpr std::int64_t kGapKeptNs = 250'000;

struct XrayParams {
  XrayRole role = XrayRole::step;
  double busy_ms = 600;         ///< busy: how long the logging kernel runs per task (GPU clock)
  double gap_us = 4;            ///< busy: a pause in its clock reads longer than this ends an interval
  double step_us = 20;          ///< step: the work of one step's kernel, microseconds alone
  int max_intervals = 1 << 16;  ///< busy: intervals one kernel can log
};

std::unique_ptr<Workload> make_xray_workload(const XrayParams& params);

}  // namespace bench_mps::kernels
