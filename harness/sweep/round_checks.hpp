#pragma once
// What a finished round is checked for before it is recorded: that every worker ran in the mode asked
// for, that a failed allocation under a pinned memory limit is named as the limit, that the MPS daemon
// lists a server once a client ran; and what the workers said about the device, into meta.json.
#include "harness/sweep/wing.hpp"

#include "harness/plan/sweep_spec.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/run_record.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace bench_mps::harness {

class MpsSession;

/// Every worker that got as far as READY must have run in the mode asked for (mode_mismatch otherwise).
void check_mps_expectation(RunRecord& record, const PoolResult& pool);
/// Under a pinned memory limit, a worker whose allocation failed hit its limit: mps_mem_limit, said so.
void name_memory_limit_failures(PoolResult& pool, const RunSpec& run);
/// How the check of a block's MPS server ended.
enum class ServerCheck {
  proven,       ///< the daemon listed a server: the block's later runs need no check
  failed,       ///< the daemon lists no server (mode_mismatch), or its answer failed (mps_error): asked again next run
  unanswered,   ///< the daemon did not answer this or an earlier command of the block (mps_error): not asked again
  interrupted,  ///< a stop signal cut it short: the run is not proven under MPS and not to be recorded
};
/// The daemon lists a server after a client ran (mode_mismatch otherwise; mps_error where it fails to answer, and
/// at once, without asking, where it did not answer an earlier command of the session); its pid into the mode's
/// meta.
ServerCheck verify_server(MpsSession& session, const ModeBlock& block, RunRecord& record, SweepMeta& meta);
/// The device as the workers saw it (SMs alone, CUDA runtime, SM clock peak) into meta.json's gpu.
void note_device(const PoolResult& pool, SweepMeta& meta);

}  // namespace bench_mps::harness
