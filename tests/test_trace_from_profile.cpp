// A profile cut into the simulator's steps (harness/predict/trace_from_profile): profiles made by the
// profiler's own recorder from known timelines, without a GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/predict/trace_from_profile.hpp"
#include "harness/profiler/profile_recorder.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/simulate/replay.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

using namespace harness;

constexpr std::uint64_t kT0 = 1'000'000'000;

profiler::DeviceLimits h100() {
  profiler::DeviceLimits d;
  d.id = 0, d.sm_count = 132, d.max_warps_per_sm = 64, d.max_blocks_per_sm = 32, d.regs_per_sm = 65536;
  d.max_regs_per_block = 65536, d.smem_per_sm = 233472, d.smem_per_block = 232448, d.cc_major = 9;
  return d;
}

void kernel(profiler::ProfileRecorder& rec, std::uint64_t start_us, std::uint64_t end_us, int blocks) {
  profiler::KernelLaunch k;
  k.shape.name = "k";
  k.shape.grid[0] = blocks;
  k.shape.block[0] = 1024;         // 32 warps: 2 blocks a SM by warps
  k.shape.dynamic_smem = 150'000;  // 1 block a SM by shared memory: fill = blocks / 132
  k.start_ns = kT0 + start_us * 1000;
  k.end_ns = kT0 + end_us * 1000;
  rec.kernel(k);
}

/// `steps` steps of 1 ms: two kernels (100 us at 100 us, 50 us at 220 us: a 20 us launch gap), a host wait
/// from 300 us to 280 us after the second kernel's end; the profile written at the end.
GpuProfile stepped(std::size_t steps, profiler::RecorderLimits limits = {}, bool waits = true) {
  profiler::ProfileRecorder rec(limits, kT0);
  rec.device(h100());
  for (std::uint64_t s = 0; s < steps; ++s) {
    const std::uint64_t at = 1000 + s * 1000;  // us
    kernel(rec, at + 100, at + 200, 66);
    kernel(rec, at + 220, at + 270, 132);
    if (waits) rec.host_wait(kT0 + (at + 250) * 1000, kT0 + (at + 275) * 1000);
  }
  TempDir tmp;
  write_text(tmp / "profile-1.json", rec.json(kT0 + (1000 + steps * 1000 + 500) * 1000, {1, 0, "test"}));
  return read_gpu_profile(tmp / "profile-1.json");
}

TEST(TraceFromProfile, StepsCutAtHostWaitsReplayAsTheyRan) {
  const GpuProfile p = stepped(40);
  const ProfileSummary s = summarise(p, 20);
  const ProgramTrace t = trace_from_profile(p, s, 0.25);
  EXPECT_EQ(t.cut, "host waits");
  EXPECT_TRUE(t.sm_per_span);
  // A first step from CUDA's start to the first wait, 39 more between waits, the last to the exit.
  ASSERT_EQ(t.trace.steps.size(), 41u);
  const TraceStep& mid = t.trace.steps[10];
  ASSERT_EQ(mid.items.size(), 2u);
  EXPECT_NEAR(mid.items[0].ready_ns, 825e3, 1);  // from the wait's end (275 us into the step before) to 100 us
  EXPECT_NEAR(mid.items[0].work_ns, 100e3, 1);
  EXPECT_NEAR(mid.items[0].sm, 0.5, 1e-9);  // 66 blocks of 132 slots
  EXPECT_NEAR(mid.items[1].sm, 1.0, 1e-9);
  EXPECT_NEAR(mid.host_ns, 975e3, 1);   // the host reaches the wait 250 us into its step
  EXPECT_NEAR(mid.release_ns, 5e3, 1);  // the wait returns 5 us after the second kernel's end
  EXPECT_NEAR(t.trace.mem_demand, 0.25, 1e-12);
  EXPECT_GT(t.trace.steady_to, t.trace.steady_from + 30);
  // Replayed alone, a step is the 1 ms it was.
  EXPECT_NEAR(t.trace.steady_step_ns(), 1e6, 1);
  auto ts = make_timeslice_arbiter(TimeSliceModel{}, 1);
  EXPECT_NEAR(steady_step_ns(t.trace, replay(t.trace, 1, *ts)), 1e6, 1);
}

TEST(TraceFromProfile, WithoutHostWaitsEachBurstIsWaitedForAtItsEnd) {
  const GpuProfile p = stepped(20, {}, false);
  ProfileSummary s = summarise(p, 50);  // the 20 us launch gap inside a burst, the 730 us of host work between
  s.waits_recorded = false;
  GpuProfile no_waits = p;
  no_waits.waits_status = "host waits not recorded (BENCH_MPS_PROFILE_WAITS=0)";
  const ProgramTrace t = trace_from_profile(no_waits, s, 0);
  EXPECT_NE(t.cut.find("idle gaps of at least 50 us"), std::string::npos) << t.cut;
  // Each step's two kernels (20 us apart: one burst) end at a cut, and the 730 us after it is the next step's host
  // work: 19 cuts between 20 bursts, 20 steps (the last runs to the exit).
  ASSERT_EQ(t.trace.steps.size(), 20u);
  EXPECT_EQ(t.trace.steps[5].items.size(), 2u);
  EXPECT_NEAR(t.trace.steady_step_ns(), 1e6, 1);
}

TEST(TraceFromProfile, SpansTheProfileDidNotKeepBecomeOneHostStep) {
  profiler::RecorderLimits limits;
  limits.head_intervals = 20;  // the first 10 steps' spans
  limits.tail_intervals = 40;  // the last 20 steps'
  limits.head_waits = 10;
  limits.tail_waits = 20;
  const GpuProfile p = stepped(100, limits);
  ASSERT_LT(p.spans.size(), p.intervals);
  const ProgramTrace t = trace_from_profile(p, summarise(p, 20), 0);
  ASSERT_LT(t.trace.dropped_step, t.trace.steps.size());
  const TraceStep& hole = t.trace.steps[t.trace.dropped_step];
  EXPECT_TRUE(hole.items.empty());
  // From the wait after the head's last kernel (step 9's, at 10.275 ms) to the tail's first kernel (step 80's,
  // at 81.1 ms: no wait of the tail comes before it): 70.825 ms alone.
  EXPECT_NEAR(t.dropped_ns, 70.825e6, 1);
  EXPECT_NEAR(hole.host_ns, t.dropped_ns, 1);
  // The steady part lies in the tail, after the hole and the step the hole cut short (it began at the tail's
  // first span, not at a wait).
  EXPECT_GT(t.trace.steady_from, t.trace.dropped_step + 1);
  EXPECT_NEAR(t.trace.steady_step_ns(), 1e6, 1);
}

}  // namespace
}  // namespace bench_mps::testing
