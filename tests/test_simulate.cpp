// The trace-driven simulator (harness/simulate) on synthetic traces whose answers are worked out by hand:
// a kernel longer than a slice, two contexts busy most of their step, a step of many short kernels, and a
// queue that empties in the middle of a slice; MPS beside each. Times in microseconds (the tests' own
// unit), the simulator's in ns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <vector>

#include <memory>

#include "harness/simulate/host_stretch.hpp"
#include "harness/simulate/open_loop.hpp"
#include "harness/simulate/phases.hpp"
#include "harness/simulate/replay.hpp"

namespace bench_mps::testing {
namespace {

using namespace harness;

constexpr double kUs = 1000;  // ns

TraceItem item(double ready_us, double work_us, double sm = 1) { return {ready_us * kUs, work_us * kUs, sm}; }

TraceStep step(std::vector<TraceItem> items, double host_us, double release_us = 0) {
  TraceStep s;
  s.items = std::move(items);
  s.host_ns = host_us * kUs;
  s.release_ns = release_us * kUs;
  return s;
}

/// `steps` copies of `s`, the middle half the steady part.
CopyTrace repeated(const TraceStep& s, std::size_t steps) {
  CopyTrace t;
  t.steps.assign(steps, s);
  t.steady_from = steps / 4;
  t.steady_to = steps - steps / 4;
  t.dropped_step = steps;
  return t;
}

TimeSliceModel model(double slice_us, double switch_us, double turn_us, double hold_us) {
  return {slice_us * kUs, switch_us * kUs, turn_us * kUs, hold_us * kUs};
}

double end_us(const Replay& r, std::size_t copy) { return r.copies.at(copy).end_ns / kUs; }

TEST(Simulate, AloneTheReplayIsTheTraceAgain) {
  // Host work 300 us, then three kernels launched 10 us apart, a wait at 320 us; 6 such steps.
  const CopyTrace t = repeated(step({item(0, 50), item(10, 50), item(20, 50)}, 120, 5), 6);
  auto ts = make_timeslice_arbiter(model(2000, 150, 140, 0), 1);
  const Replay r = replay(t, 1, *ts);
  // Each step: kernels back to back from 0 to 150 us, the host at its wait since 120 us, 5 us of release.
  EXPECT_NEAR(end_us(r, 0), 6 * 155, 1e-6);
  EXPECT_NEAR(steady_step_ns(t, r) / kUs, 155, 1e-6);
  EXPECT_NEAR(t.steady_step_ns() / kUs, 155, 1e-6);
}

// Issue 45 item 3: a host slowed by h runs its part of each step h times longer and launches h times later; the
// device work, the release and the step standing for spans not kept stay as they are.
TEST(Simulate, AHostStretchedByHReachesItsWaitAndLaunchesHTimesLater) {
  CopyTrace t = repeated(step({item(0, 50), item(100, 50)}, 120, 5), 6);
  t.steps[5] = step({}, 1000);
  t.dropped_step = 5;
  const CopyTrace s = stretch_host(t, 2);
  ASSERT_EQ(s.steps.size(), t.steps.size());
  EXPECT_NEAR(s.steps[0].host_ns / kUs, 240, 1e-9);
  EXPECT_NEAR(s.steps[0].items[1].ready_ns / kUs, 200, 1e-9);
  EXPECT_NEAR(s.steps[0].items[1].work_ns / kUs, 50, 1e-9);
  EXPECT_NEAR(s.steps[0].release_ns / kUs, 5, 1e-9);
  EXPECT_NEAR(s.steps[5].host_ns / kUs, 1000, 1e-9) << "the dropped step is scaled by the predictor, not here";
  // Alone, a step that was GPU-bound (150 us of kernels from 0, host at 120) becomes host-bound: 250 + 5 us.
  auto ts = make_timeslice_arbiter(model(2000, 150, 140, 0), 1);
  EXPECT_NEAR(steady_step_ns(s, replay(s, 1, *ts)) / kUs, 255, 1e-6);
  EXPECT_NEAR(steady_step_ns(t, replay(t, 1, *ts)) / kUs, 155, 1e-6);
  // h = 1, or no usable h: the trace as it is.
  for (const double h : {1.0, 0.0, -2.0, std::nan("")})
    EXPECT_EQ(stretch_host(t, h).steps[0].host_ns, t.steps[0].host_ns);
}

TEST(Simulate, AKernelLongerThanTheSliceIsCutAndResumes) {
  // One 5 ms kernel each, two copies, a 2 ms slice, 0.1 ms between slices, 0.2 ms a turn.
  CopyTrace t;
  t.steps = {step({item(0, 5000)}, 0)};
  t.steady_from = 0, t.steady_to = 1, t.dropped_step = 1;
  auto ts = make_timeslice_arbiter(model(2000, 100, 200, 0), 2);
  const Replay r = replay(t, 2, *ts);
  // Copy 0: 0-2, 2.1-4.1 copy 1, 4.2-6.2, 6.3-8.3 copy 1, 8.4-9.4 done; then a turn to copy 1: 9.6-10.6.
  EXPECT_NEAR(end_us(r, 0), 9400, 1e-3);
  EXPECT_NEAR(end_us(r, 1), 10600, 1e-3);
  // Alone it simply runs.
  auto alone = make_timeslice_arbiter(model(2000, 100, 200, 0), 1);
  EXPECT_NEAR(end_us(replay(t, 1, *alone), 0), 5000, 1e-3);
  // Under MPS both fill the SMs: each at half speed; at half the SMs each, both at full speed.
  auto mps = make_mps_arbiter(MpsModel{});
  const Replay full = replay(t, 2, *mps);
  EXPECT_NEAR(end_us(full, 0), 10000, 1e-3);
  EXPECT_NEAR(end_us(full, 1), 10000, 1e-3);
  CopyTrace half = t;
  half.steps[0].items[0].sm = 0.5;
  EXPECT_NEAR(end_us(replay(half, 2, *mps), 1), 5000, 1e-3);
}

TEST(Simulate, TwoContextsBusyMostOfTheirStepTakeTurns) {
  // A step: 200 us of host work, a 1 ms kernel, the host waiting for it at once (alone 1.2 ms, busy 83 %).
  const CopyTrace t = repeated(step({item(200, 1000)}, 200), 40);
  auto ts = make_timeslice_arbiter(model(2090, 130, 100, 0), 2);
  const Replay r = replay(t, 2, *ts, {0, 600 * kUs});
  // The GPU is the bottleneck: a copy's kernel, a turn, the other's kernel, a turn: 2 x (1 + 0.1) ms a step.
  EXPECT_NEAR(steady_step_ns(t, r) / kUs, 2200, 1);
  // Under MPS, kernels filling half the SMs each run side by side: the step alone; filling all of them, the
  // GPU's 2 ms of work per step of both copies.
  auto mps = make_mps_arbiter(MpsModel{});
  CopyTrace half = t;
  for (TraceStep& s : half.steps) s.items[0].sm = 0.5;
  EXPECT_NEAR(steady_step_ns(half, replay(half, 2, *mps, {0, 600 * kUs})) / kUs, 1200, 1);
  EXPECT_NEAR(steady_step_ns(t, replay(t, 2, *mps, {0, 600 * kUs})) / kUs, 2000, 5);
  // Memory bandwidth is shared too: two copies each asking 80 % of it, kernels at a tenth of the SMs.
  CopyTrace memory = half;
  memory.mem_demand = 0.8;
  for (TraceStep& s : memory.steps) s.items[0].sm = 0.1;
  EXPECT_GT(steady_step_ns(memory, replay(memory, 2, *mps, {0, 600 * kUs})) / kUs, 1500);
}

TEST(Simulate, AStepOfManyShortKernelsQueuedAtOnce) {
  // 20 kernels of 10 us launched together 5 us into the step (a graph, or launches that ran ahead), the host
  // waiting right after; its wait returns 10 us after the kernels end.
  std::vector<TraceItem> items;
  for (int i = 0; i < 20; ++i) items.push_back(item(5, 10, 0.05));
  const CopyTrace t = repeated(step(items, 5, 10), 40);
  auto ts = make_timeslice_arbiter(model(2090, 130, 100, 0), 2);
  // Whole steps take turns: each copy's 200 us of kernels, then a turn: 2 x (200 + 100) us a step.
  EXPECT_NEAR(steady_step_ns(t, replay(t, 2, *ts, {0, 100 * kUs})) / kUs, 600, 1);
  // Under MPS twenty kernels at 5 % of the SMs each fit beside the other copy's: the step alone (5 + 200 + 10).
  auto mps = make_mps_arbiter(MpsModel{});
  EXPECT_NEAR(steady_step_ns(t, replay(t, 2, *mps, {0, 100 * kUs})) / kUs, 215, 1e-3);
}

TEST(Simulate, AQueueEmptyMidSliceKeepsTheGpuOnlyForTheHold) {
  // Copy 0: a 10 us kernel at 0 and another at 20 us (a launch gap, no host wait), its host waiting at 100 us.
  // Copy 1: a 10 ms kernel from 0. Copy 0 takes the GPU first.
  CopyTrace gaps;
  gaps.steps = {step({item(0, 10), item(20, 10)}, 100)};
  gaps.steady_from = 0, gaps.steady_to = 1, gaps.dropped_step = 1;
  CopyTrace busy = gaps;
  busy.steps = {step({item(0, 10000)}, 0)};
  const std::vector<const CopyTrace*> both{&gaps, &busy};
  // A hold of 50 us outlasts the 10 us gap: copy 0 runs both kernels (0-10, 20-30) and its wait returns at 100.
  auto holding = make_timeslice_arbiter(model(2000, 100, 200, 50), 2);
  const Replay kept = replay(both, *holding);
  EXPECT_NEAR(end_us(kept, 0), 100, 1e-3);
  // ... then holds 50 us more (to 80 us), a turn (200 us), and copy 1 runs its 10 ms alone: it ends at 10.28 ms.
  EXPECT_NEAR(end_us(kept, 1), 80 + 200 + 10000, 1e-3);
  // No hold: copy 0 gives the GPU up at 10 us (a turn: copy 1 has it from 210 us); its second kernel, launched at
  // 20 us, waits for copy 1's slice (from 210 us, when copy 1 got the GPU with copy 0 waiting, to 2210 us), a
  // switch (100 us), and runs: 2320 us.
  auto yielding = make_timeslice_arbiter(model(2000, 100, 200, 0), 2);
  const Replay lost = replay(both, *yielding);
  EXPECT_NEAR(end_us(lost, 0), 10 + 200 + 2000 + 100 + 10, 1e-3);
  // Under MPS the short kernels run beside the long one: copy 0 as alone (both at half the SMs).
  CopyTrace gaps_half = gaps, busy_half = busy;
  for (TraceItem& i : gaps_half.steps[0].items) i.sm = 0.5;
  busy_half.steps[0].items[0].sm = 0.5;
  auto mps = make_mps_arbiter(MpsModel{});
  EXPECT_NEAR(end_us(replay({&gaps_half, &busy_half}, *mps), 0), 100, 1e-3);
}

TEST(Simulate, AHostWaitGivesTheGpuUpAtOnceWhateverTheHold) {
  // Two copies of a step that launches one 100 us kernel 5 us in and waits for it (the wait returns 10 us after
  // it ends): with a hold longer than anything, the GPU still changes hands when the queue empties under a
  // waiting host (a turn, not the whole slice): each copy's kernel and a turn, 2 x (100 + 140) us a step.
  const CopyTrace t = repeated(step({item(5, 100)}, 5, 10), 40);
  auto ts = make_timeslice_arbiter(model(2090, 130, 140, 1e9), 2);
  EXPECT_NEAR(steady_step_ns(t, replay(t, 2, *ts, {0, 50 * kUs})) / kUs, 2 * (100 + 140), 1e-3);
}

TEST(Simulate, ResponseIsLaunchToWaitReturn) {
  // A paced step: 1 ms of host work (the sleep), a 100 us kernel, the host waiting for it: alone the response
  // is the kernel; beside a copy whose kernel has just started it waits for that kernel and a turn.
  const CopyTrace t = repeated(step({item(1000, 100)}, 1000), 20);
  auto alone = make_timeslice_arbiter(model(2090, 130, 140, 0), 1);
  EXPECT_NEAR(steady_response_ns(t, replay(t, 1, *alone)) / kUs, 100, 1e-3);
  auto ts = make_timeslice_arbiter(model(2090, 130, 140, 0), 2);
  EXPECT_NEAR(steady_response_ns(t, replay(t, 2, *ts, {0, 50 * kUs})) / kUs, (100 + 240 + 100) / 2.0 + 20, 60);
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

using namespace harness;

/// Steps of different lengths (the steady part's host time 100, 200, ..., 800 us, one 60 us kernel each), the
/// first two and the last two outside the steady part.
CopyTrace uneven() {
  CopyTrace t;
  for (int k = 0; k < 12; ++k) t.steps.push_back(step({item(0, 60)}, 100.0 * (k < 2 || k >= 10 ? 1 : k - 1)));
  t.steady_from = 2, t.steady_to = 10, t.dropped_step = 12;
  return t;
}

// Issue 45 item 1: one copy, whatever its offset and the rotation of its steady steps, reduces to the closed
// form: its unit between step ends is its steady steps' mean but the first (whose start is no step end of the
// part), its run the trace's length.
TEST(SimulatePhases, OneCopyWithRandomPhasesReducesToTheClosedForm) {
  const CopyTrace t = uneven();
  const double closed = (200.0 + 300 + 400 + 500 + 600 + 700 + 800) / 7 * kUs;
  EXPECT_NEAR(t.steady_step_ns() / kUs, 450, 1e-6) << "every steady step: (100 + ... + 800) / 8";
  auto alone = make_timeslice_arbiter(model(2000, 150, 140, 0), 1);
  const Replay unrotated = replay(t, 1, *alone);
  EXPECT_NEAR(steady_step_ns(t, unrotated), closed, 1e-3);
  const double run_alone = unrotated.copies.at(0).end_ns;
  for (const PhaseDraw& d : draw_phases(t, 1, 16)) {
    ASSERT_EQ(d.offsets_ns.size(), 1u);
    EXPECT_GE(d.offsets_ns[0], 0);
    EXPECT_LT(d.offsets_ns[0], closed);
    const CopyTrace r = rotate_steady(t, d.shifts[0]);
    for (auto* arbiter :
         {make_timeslice_arbiter(model(2000, 150, 140, 0), 1).release(), make_mps_arbiter(MpsModel{}).release()}) {
      const std::unique_ptr<Arbiter> own(arbiter);
      const Replay one = replay({&r}, *own, d.offsets_ns);
      EXPECT_NEAR(steady_step_ns({&r}, one), closed, 1e-3) << "shift " << d.shifts[0];
      EXPECT_NEAR(mean_run_ns(one, d.offsets_ns), run_alone, 1e-3);
    }
  }
}

// --exec-unit-range: steps of another kind between an NVTX range's steps are replayed (they take their time and
// share the GPU) but left out of the unit, alone and after any rotation, which moves each step with its mark.
TEST(SimulatePhases, StepsOfAnotherKindRunButTheUnitLeavesThemOut) {
  CopyTrace t = uneven();
  t.steps[4].counted = t.steps[7].counted = false;  // host 300 and 600 us
  EXPECT_NEAR(t.steady_step_ns() / kUs, (100.0 + 200 + 400 + 500 + 700 + 800) / 6, 1e-6);
  const double closed = (200.0 + 400 + 500 + 700 + 800) / 5 * kUs;
  auto alone = make_timeslice_arbiter(model(2000, 150, 140, 0), 1);
  const Replay marked = replay(t, 1, *alone);
  EXPECT_NEAR(steady_step_ns(t, marked), closed, 1e-3);
  auto again = make_timeslice_arbiter(model(2000, 150, 140, 0), 1);
  EXPECT_NEAR(marked.copies.at(0).end_ns, replay(uneven(), 1, *again).copies.at(0).end_ns, 1e-3) << "they still run";
  for (std::size_t shift = 1; shift < 7; ++shift) {
    const CopyTrace r = rotate_steady(t, shift);
    auto own = make_mps_arbiter(MpsModel{});
    EXPECT_NEAR(steady_step_ns({&r}, replay({&r}, *own)), closed, 1e-3) << "shift " << shift;
  }
}

TEST(SimulatePhases, ARotationMovesOnlyTheSteadyStepsAndTheDrawsAreTheSameEveryTime) {
  const CopyTrace t = uneven();
  const CopyTrace r = rotate_steady(t, 3);
  for (std::size_t k : {0u, 1u, 2u, 10u, 11u}) EXPECT_EQ(r.steps[k].host_ns, t.steps[k].host_ns) << k;
  EXPECT_EQ(r.steps[3].host_ns, t.steps[6].host_ns);
  EXPECT_EQ(r.steps[9].host_ns, t.steps[5].host_ns);
  EXPECT_EQ(rotate_steady(t, 7).steps[3].host_ns, t.steps[3].host_ns) << "a whole turn is no rotation";
  // A steady part holding the dropped step (spans the profile did not keep) is not rotated.
  CopyTrace holed = t;
  holed.dropped_step = 5;
  EXPECT_EQ(rotate_steady(holed, 3).steps[3].host_ns, t.steps[3].host_ns);
  for (const PhaseDraw& d : draw_phases(holed, 4, 8))
    for (std::size_t s : d.shifts) EXPECT_EQ(s, 0u);
  // The same draws on every call (a fixed seed), different across copies.
  const auto a = draw_phases(t, 4, 8), b = draw_phases(t, 4, 8);
  ASSERT_EQ(a.size(), 8u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].offsets_ns, b[i].offsets_ns);
    EXPECT_EQ(a[i].shifts, b[i].shifts);
    for (std::size_t s : a[i].shifts) EXPECT_LT(s, 7u);
  }
  EXPECT_NE(a[0].offsets_ns[0], a[0].offsets_ns[1]);
}

}  // namespace
}  // namespace bench_mps::testing

namespace bench_mps::testing {
namespace {

using namespace harness;

/// A paced server (zoo/here/paced_infer.py's loop, as a queue): request j due at j x period, its work `service`
/// long, run when due or, late, as soon as the one before it is done. Each request's response from its due time.
std::vector<double> paced_stand_in(int requests, double period, double service) {
  std::vector<double> out;
  double free_at = 0;
  for (int j = 0; j < requests; ++j) {
    const double due = j * period;
    free_at = std::max(free_at, due) + service;
    out.push_back(free_at - due);
  }
  return out;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return v.empty() ? NAN : s / static_cast<double>(v.size());
}

/// 40 steps of a paced server alone: 700 us asleep until due, a 300 us kernel filling the SMs, the host
/// waiting for it (a request every 1000 us); steps 10-29 the steady part.
CopyTrace paced_trace() { return repeated(step({item(700, 300)}, 700), 40); }

// Issue 45 item 4: four copies under MPS each need 1200 us of GPU for a request due every 1000 us. Replayed
// closed-loop each request waits only for its own work; open-loop the copies fall behind by 200 us a request,
// as a paced server (the stand-in queue above, served 4x slower) does.
TEST(SimulateOpenLoop, AnOpenLoopReplayBuildsTheBacklogAPacedStandInBuilds) {
  CopyTrace open = paced_trace();
  ASSERT_TRUE(make_open_loop(open));
  EXPECT_TRUE(std::isnan(open.steps[9].due_ns)) << "the warm-up before the steady part is not paced";
  EXPECT_NEAR(open.steps[10].due_ns, 0, 1e-9);
  EXPECT_NEAR(open.steps[29].due_ns / kUs, 19 * 1000, 1e-6);
  auto mps = make_mps_arbiter(MpsModel{});
  // Alone both loops are the trace again: every response is the kernel.
  EXPECT_NEAR(steady_response_ns(open, replay(open, 1, *mps)) / kUs, 300, 1e-6);
  const CopyTrace closed = paced_trace();
  EXPECT_NEAR(steady_response_ns(closed, replay(closed, 4, *mps)) / kUs, 1200, 1e-6) << "closed loop: no backlog";
  const double stand_in = mean_of(paced_stand_in(20, 1000, 4 * 300));
  EXPECT_NEAR(stand_in, 1200 + 200 * 9.5, 1e-9);
  EXPECT_NEAR(steady_response_ns(open, replay(open, 4, *mps)) / kUs, stand_in, 1e-6);
  // Two copies need 600 us a request: they keep up, as the stand-in does.
  EXPECT_NEAR(steady_response_ns(open, replay(open, 2, *mps)) / kUs, mean_of(paced_stand_in(20, 1000, 600)), 1e-6);
  // An open loop's steps keep their places (each due where its run alone launched it): its phase draws vary the
  // offsets alone, and one copy replays its trace again whatever its draw.
  CopyTrace uneven_open = paced_trace();
  uneven_open.steps[12].host_ns = 1900;  // a late step: the one after it launched at once alone
  ASSERT_TRUE(make_open_loop(uneven_open));
  EXPECT_EQ(rotate_steady(uneven_open, 5).steps[12].host_ns, 1900);
  for (const PhaseDraw& d : draw_phases(uneven_open, 2, 8))
    for (std::size_t s : d.shifts) EXPECT_EQ(s, 0u);
  for (const PhaseDraw& d : draw_phases(uneven_open, 1, 8))
    EXPECT_NEAR(steady_response_ns({&uneven_open}, replay({&uneven_open}, *mps, d.offsets_ns)),
                steady_response_ns(uneven_open, replay(uneven_open, 1, *mps)), 1e-3);
  // A trace whose steady steps launch nothing cannot be paced.
  CopyTrace host_only = repeated(step({}, 500), 8);
  EXPECT_FALSE(make_open_loop(host_only));
  EXPECT_FALSE(host_only.open_loop);
}

}  // namespace
}  // namespace bench_mps::testing
