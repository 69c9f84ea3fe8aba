#include "harness/sweep/exec_proof.hpp"

#include "harness/mps/mps_session.hpp"
#include "harness/results/run_record.hpp"
#include "harness/sweep/worker_pool.hpp"
#include "harness/workers/worker_protocol.hpp"

namespace bench_mps::harness {

MpsClientWatch::MpsClientWatch(MpsSession& session, double interval_s)
    : session_(session), interval_ns_(static_cast<std::int64_t>(interval_s * 1e9)) {}

void MpsClientWatch::poll() {
  const std::int64_t now = monotonic_ns();
  if (last_ns_ && now - last_ns_ < interval_ns_) return;
  last_ns_ = now;
  try {
    for (pid_t server : session_.server_pids())
      for (pid_t client : session_.client_pids(server))
        for (pid_t p = client; p > 1 && lineage_.insert(p).second;) p = parent_pid(p);
    ++polls_;
  } catch (const MpsError& e) {
    error_ = e.what();
  }
}

void prove_exec_mode(RunRecord& record, const PoolResult& pool, const MpsClientWatch* watch,
                     const std::filesystem::path& own_mps_dir, const MeasuredDevice& device) {
  const bool mps = record.spec.mode.mps;
  // A daemon that may serve this GPU (the preflight's notion): another GPU's, such as a --gpus sibling's, is not.
  const bool servers_alive = !mps && !foreign_mps_processes(own_mps_dir, device).empty();
  for (WorkerRow& row : record.workers) {
    const WorkerResult* w = nullptr;
    for (const WorkerResult& r : pool.workers)
      if (r.index == row.worker) w = &r;
    if (!w || !w->ready) continue;
    if (!mps) {
      add_fact(row, servers_alive ? "mps_proof=mps_server_alive" : "mps_proof=no_mps_server");
      if (servers_alive)
        mark_failed(record, RunStatus::mode_mismatch, "an MPS server was alive at the end of a time-sliced exec run");
      continue;
    }
    if (watch && watch->saw_client_under(static_cast<pid_t>(w->pid))) {
      add_fact(row, "mps_proof=client_list");
      continue;
    }
    add_fact(row, "mps_proof=none");
    if (row.status != RunStatus::ok) continue;  // it failed anyway: that status says more
    row.status = RunStatus::mps_unproven;
    row.reason = "never listed among the MPS server's clients (get_client_list, " +
                 std::to_string(watch ? watch->polls() : 0) + " polls" +
                 (watch && !watch->error().empty() ? "; last error: " + watch->error() : "") + ")";
    mark_failed(record, RunStatus::mps_unproven, "worker " + std::to_string(row.worker) + ": " + row.reason);
  }
}

}  // namespace bench_mps::harness
