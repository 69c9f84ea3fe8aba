#include "harness/results/run_record.hpp"

namespace bench_mps::harness {

void mark_failed(RunRecord& record, RunStatus status, const std::string& reason) {
  if (record.summary.status != RunStatus::ok) return;
  record.summary.status = status;
  record.summary.reason = reason;
}

}  // namespace bench_mps::harness
