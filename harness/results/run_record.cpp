#include "harness/results/run_record.hpp"

#include "harness/common/format.hpp"

namespace bench_mps::harness {

void add_fact(WorkerRow& row, const std::string& fact) { row.facts += (row.facts.empty() ? "" : ";") + fact; }

void add_fact(WorkerRow& row, const std::string& name, double value, int significant) {
  add_fact(row, name + "=" + fmt_num(value, significant));
}

void add_note(std::string& reason, const std::string& note) { reason += (reason.empty() ? "" : "; ") + note; }

void mark_failed(RunRecord& record, RunStatus status, const std::string& reason) {
  if (record.summary.status != RunStatus::ok) return;
  record.summary.status = status;
  record.summary.reason = reason;
}

}  // namespace bench_mps::harness
