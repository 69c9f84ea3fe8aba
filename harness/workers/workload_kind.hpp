#pragma once
// A workload as bench_worker runs it: spin, mlp, ..., exec, cpu, and the scenarios' own fault and xray.
// The words are what --workloads, bench_worker's --workload and the `workload` column hold; inside the
// tools a workload that is dispatched on travels as WorkloadKind, and only the edges turn it into a word
// or back. What a workload is (needs a GPU, runs the user's program, ...) is its row in workload_config.
#include "harness/workers/wing.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace bench_mps::harness {

enum class WorkloadKind {
  spin,       ///< a busy kernel (kernels/spin)
  mlp,        ///< MLP training (kernels/mlp)
  membw,      ///< a memory-bound triad (kernels/membw)
  filler,     ///< a GPU kept busy to a target share (kernels/filler)
  mlp_infer,  ///< "mlp-infer": open-loop inference requests (kernels/mlp_infer)
  duty,       ///< a regime point: host work, then a burst of GPU work, per step (kernels/duty)
  exec,       ///< the user's own program (workers/exec_workload)
  cpu,        ///< the tests' CPU stand-in (workers/cpu_workload)
  fault,      ///< the fault scenario's faulting worker (kernels/fault)
  xray,       ///< the X-ray's probes (kernels/xray)
};

/// The workload's word, e.g. "mlp-infer".
std::string_view workload_kind_name(WorkloadKind kind);
/// The same word as a string, for building text.
std::string to_string(WorkloadKind kind);
/// The workload a word names; nothing for any other word.
std::optional<WorkloadKind> parse_workload_kind(std::string_view word);

std::ostream& operator<<(std::ostream& out, WorkloadKind kind);

}  // namespace bench_mps::harness
