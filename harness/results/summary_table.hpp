#pragma once
// The table bench_mps prints at the end of a sweep: per workload, mode and N the median over repeats
// of the per-task time and the aggregate throughput, the slowdown against N=1, and the speedup of
// each MPS mode over time-slicing at the same N.
#include "harness/results/wing.hpp"

#include <ostream>
#include <vector>

#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

void print_summary_table(std::ostream& out, const std::vector<SummaryRecord>& rows);

}  // namespace bench_mps::harness
