#include "harness/sweep/round_checks.hpp"

#include <string>

#include "harness/common/signals.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/sweep/launch.hpp"

namespace bench_mps::harness {

void check_mps_expectation(RunRecord& record, const PoolResult& pool) {
  if (runs_user_program(record.spec.workload)) return;  // no context of its own: exec_proof.hpp checks its copies
  for (const WorkerResult& w : pool.workers) {
    if (!w.ready || w.ready_info.mps_enabled == record.spec.mode.mps) continue;
    mark_failed(record, RunStatus::mode_mismatch,
                "worker " + std::to_string(w.index) +
                    (record.spec.mode.mps ? " did not run as an MPS client" : " ran as an MPS client"));
  }
}

void name_memory_limit_failures(PoolResult& pool, const RunSpec& run) {
  for (WorkerResult& w : pool.workers) {
    const std::uint64_t limit = run.mode.client_mem_limit(w.index);
    if (!limit || w.status != RunStatus::error) continue;
    if (w.reason.find("out of memory") == std::string::npos && w.reason.find("MemoryAllocation") == std::string::npos)
      continue;
    w.status = RunStatus::mps_mem_limit;
    w.reason =
        "exceeded its pinned device memory limit (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=" + pinned_limit_value(limit) +
        "): " + w.reason;
  }
}

ServerCheck verify_server(MpsSession& session, const ModeBlock& block, RunRecord& record, SweepMeta& meta) {
  // A daemon that did not answer once (each command waits up to 15 s) is not asked again in its block: the later
  // runs fail alike at once, each saying why.
  if (!session.unanswered().empty()) {
    mark_failed(record, RunStatus::mps_error,
                session.unanswered() + " (at an earlier command to this block's daemon; not asked again)");
    return ServerCheck::unanswered;
  }
  try {
    const auto servers = session.server_pids();
    if (meta.mps && meta.mps->modes)
      for (ModeMeta& m : *meta.mps->modes)
        if (m.name == block.mode.name) {
          if (!m.server_pids) m.server_pids.emplace();
          m.server_pids->push_back(servers.empty() ? 0 : servers.front());
        }
    if (!servers.empty()) return ServerCheck::proven;
    mark_failed(record, RunStatus::mode_mismatch, "the MPS daemon lists no server after a client ran");
    return ServerCheck::failed;
  } catch (const MpsError& e) {
    if (stop_signal().load()) return ServerCheck::interrupted;  // cut short by Ctrl-C: not the daemon's fault
    mark_failed(record, RunStatus::mps_error, e.what());
    return session.unanswered().empty() ? ServerCheck::failed : ServerCheck::unanswered;
  }
}

void note_device(const PoolResult& pool, SweepMeta& meta) {
  if (!meta.gpu) return;
  for (const WorkerResult& w : pool.workers) {
    if (!w.ready || w.ready_info.cuda_runtime_version == 0) continue;
    if (!meta.gpu->sm_count && !w.ready_info.mps_enabled && w.ready_info.instances == 1)
      meta.gpu->sm_count = w.ready_info.sm_count_seen;
    meta.gpu->cuda_runtime_version = w.ready_info.cuda_runtime_version;
    meta.gpu->sm_clock_peak_khz = w.ready_info.clock_khz;
  }
}

}  // namespace bench_mps::harness
