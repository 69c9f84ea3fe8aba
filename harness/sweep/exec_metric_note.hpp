#pragma once
// An --exec-metric that read nothing is said, not left as steps=0: an ok run whose copies matched no
// stdout line (or whose matching stopped at its time budget, see harness/workers/exec_metric.hpp)
// keeps its status and gets a reason that the progress line and summary.csv show.
#include "harness/sweep/wing.hpp"

namespace bench_mps::harness {

struct RunRecord;
struct PoolResult;

void note_exec_metric(RunRecord& record, const PoolResult& pool);

}  // namespace bench_mps::harness
