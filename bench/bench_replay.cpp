// The simulator's replay (harness/simulate, behind `bench_mps predict` and advise's predictions) on a synthetic
// trace of a training loop's shape, at N copies, time-sliced and under MPS: how its cost grows with N. Each
// event looks at every copy, and N copies make about N times the events, so a replay costs about N squared;
// the counters say events per replay and per second. CPU only.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "harness/simulate/replay.hpp"

namespace {

using namespace bench_mps::harness;

constexpr double kUs = 1000;  // ns

/// 200 steps, each 20 kernels of 30 us launched 40 us apart with a third of the SMs, the host at its wait after
/// 1 ms, and 10 us from the wait's return to the next step; the middle half steady.
CopyTrace training_loop() {
  TraceStep s;
  for (int k = 0; k < 20; ++k) s.items.push_back({k * 40 * kUs, 30 * kUs, 1.0 / 3});
  s.host_ns = 1000 * kUs;
  s.release_ns = 10 * kUs;
  CopyTrace t;
  t.steps.assign(200, s);
  t.steady_from = 50;
  t.steady_to = 150;
  t.dropped_step = t.steps.size();
  return t;
}

void replay_at(benchmark::State& state, bool mps) {
  const CopyTrace trace = training_loop();
  const int n = static_cast<int>(state.range(0));
  std::vector<double> offsets;
  for (int c = 0; c < n; ++c) offsets.push_back(trace.steady_step_ns() * c / n);
  std::size_t events = 0;
  for (auto _ : state) {
    const std::unique_ptr<Arbiter> arbiter = mps ? make_mps_arbiter(MpsModel{}) : make_timeslice_arbiter({}, n);
    const Replay r = replay(std::vector<const CopyTrace*>(static_cast<std::size_t>(n), &trace), *arbiter, offsets);
    events = r.events;
    benchmark::DoNotOptimize(r.copies.data());
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(events) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_ReplayTimeSliced(benchmark::State& state) { replay_at(state, false); }
void BM_ReplayMps(benchmark::State& state) { replay_at(state, true); }

BENCHMARK(BM_ReplayTimeSliced)->Arg(2)->Arg(10)->Arg(24)->Arg(48)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayMps)->Arg(2)->Arg(10)->Arg(24)->Arg(48)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
