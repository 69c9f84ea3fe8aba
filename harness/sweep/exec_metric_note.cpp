#include "harness/sweep/exec_metric_note.hpp"

#include <cmath>
#include <string>

#include "harness/sweep/run_reduction.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {
namespace {

/// What went wrong with the metric of one copy that ran fine, or "".
std::string metric_problem(const WorkerResult& w) {
  if (w.status != RunStatus::ok) return "";
  std::string problem;
  const auto add = [&problem](const std::string& p) { problem += (problem.empty() ? "" : "; ") + p; };
  const auto count = [&w](const char* fact) {
    const double n = done_fact(w.done, fact);
    return !std::isnan(n) && n > 0 ? static_cast<long>(n) : 0L;  // NaN: not said
  };
  const long metric_rejected = count("metric_rejected");
  if (done_fact(w.done, "metric_stopped") == 1) add("--exec-metric stopped matching at its time budget");
  if (metric_rejected)
    add("--exec-metric matched " + std::to_string(metric_rejected) +
        " line(s) whose number was none in 0..1e12 (nan, inf, a sign, not a number): left out (metric_rejected)");
  if (done_fact(w.done, "steps") == 0 && metric_rejected == 0)  // else the line above says why
    add("--exec-metric matched no stdout line (steps=0)");
  if (const long n = count("check_rejected"); n && done_fact(w.done, "check_matches") == 0)
    add("--exec-check matched " + std::to_string(n) + " line(s), none with a number in 0..1e12: no check_value");
  return problem;
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
