#pragma once
// Why the runs of a ladder that did not co-run did not, in what the sweep holds: how far apart their copies'
// steady parts lay, and how much of its run each copy kept its CPU busy. On the H200 VMs measured here, copies
// bound by their host side parted because the host ran the guest's cores at different speeds
// (results/2026-12-04-cpu-rate); `bench_mps predict --measure` prints this note under its co-run line.
#include "harness/predict/wing.hpp"

#include "harness/predict/measured_units.hpp"
#include "harness/results/results_reader.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace bench_mps::harness {

/// A copy that kept its CPU busy for at least this share of its run is read as bound by its core.
inline constexpr double kCpuBoundShare = 0.9;

/// Over the runs at N >= 2 whose copies are `not co-run`, one entry a run.
struct NotCoRunNote {
  int runs = 0;
  /// Each run's longest copy steady part over its shortest (runs with two copies that have one).
  std::vector<double> parting;
  /// Each run's median copy's cpu_user_s + cpu_system_s over its completion_s (runs.csv facts, recorded since
  /// 2026-12-04; runs without them left out). A copy that spin-waits on the GPU counts as busy.
  std::vector<double> cpu_share;
};

/// The note of `units` (one sweep's, as measured) with `rows` (its runs.csv, for the CPU facts).
NotCoRunNote not_co_run_note(const std::vector<MeasuredUnit>& units, const std::vector<WorkerRecord>& rows);

/// A copy's cpu_user_s + cpu_system_s over its completion_s; NaN where runs.csv lacks them (before 2026-12-04) or
/// the copy did not end ok (a failed copy's run is not its share).
double copy_cpu_share(const WorkerRecord& row);

/// A run's longest copy steady part over its shortest (the positive ones); NaN with fewer than two.
double steady_parting(const std::vector<double>& steady_s);

/// One run's two facts: its longest copy steady part over its shortest (steady_parting) and its median copy's CPU
/// share (copy_cpu_share over `copies`, those with one); each NaN where unknown.
struct RunParting {
  double parting = NAN, cpu_share = NAN;
};
RunParting run_parting(const std::vector<double>& steady_s, const std::vector<const WorkerRecord*>& copies);

/// The line `predict --measure` prints; empty where no run at N >= 2 is `not co-run`. `noun` counts the runs
/// (advise says "worker set": each of its sets is one run).
std::string not_co_run_line(const NotCoRunNote& note, const std::string& noun = "run");

}  // namespace bench_mps::harness
