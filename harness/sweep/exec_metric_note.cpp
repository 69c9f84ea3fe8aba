#include "harness/sweep/exec_metric_note.hpp"

#include <string>

#include "harness/sweep/run_reduction.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {
namespace {

/// What went wrong with the metric of one copy that ran fine, or "".
std::string metric_problem(const WorkerResult& w) {
  if (w.status != RunStatus::ok) return "";
  if (done_fact(w.done, "metric_stopped") == 1) return "--exec-metric stopped matching at its time budget";
  if (done_fact(w.done, "steps") == 0) return "--exec-metric matched no stdout line (steps=0)";
  return "";
}

}  // namespace

void note_exec_metric(RunRecord& record, const PoolResult& pool) {
  std::string note;
  for (const WorkerResult& w : pool.workers) {
    const std::string problem = metric_problem(w);
    if (problem.empty()) continue;
    for (WorkerRow& row : record.workers)
      if (row.worker == w.index && row.status == RunStatus::ok) row.reason = problem;
    note += (note.empty() ? "" : "; ") + std::string("worker ") + std::to_string(w.index) + ": " + problem;
  }
  if (record.summary.status == RunStatus::ok && !note.empty()) record.summary.reason = note;
}

}  // namespace bench_mps::harness
