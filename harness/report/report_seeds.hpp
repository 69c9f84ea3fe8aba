#pragma once
// The seed articles' figures (results/seeds.csv): one row per published data point, with where it
// comes from. Each source is reduced to "time of one process's work at N relative to N=1", the
// quantity that the report sets beside our per-task time relative to N=1. See docs/REPORT.md.
#include "harness/report/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace bench_mps::harness {

/// One row of seeds.csv: a time one process of a published experiment took.
struct SeedPoint {
  std::string source_id, title, reference, gpu, their_workload;
  std::string workload_kind;  ///< our workload it resembles most (`spin`, `mlp`), empty if none
  int procs = 0;
  std::string mode;  ///< `timeslice` or `mps`
  double value = 0;
  std::string unit, metric, note;
};

/// One source at one N and mode: the median of its values over the source's N=1 value.
struct SeedRatio {
  std::string source_id, title, reference, gpu, their_workload, workload_kind, mode;
  int procs = 0;
  double value = 0;    ///< median of the source's values at (procs, mode)
  double alone = 0;    ///< median at N=1 time-sliced (the seeds' basis; the same mode only where that is missing)
  double ratio = 0;    ///< value / alone
  std::string metric;  ///< time_per_task, completion_time (N copies until all finished), kernel_time
};

/// Reads seeds.csv; throws ResultsError naming the file and line for any defect.
std::vector<SeedPoint> read_seeds(const std::filesystem::path& file);

/// Ratios of every (source, N > 1, mode) that has an N=1 value, in file order.
std::vector<SeedRatio> seed_ratios(const std::vector<SeedPoint>& points);

}  // namespace bench_mps::harness
