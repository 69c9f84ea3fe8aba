#pragma once
// --external-mps: the MPS daemon the site runs (Slurm's prolog, the Kubernetes device plugin), as
// attach_external_mps (harness/sweep/external_mps) found it before the sweep.
#include "harness/plan/wing.hpp"

#include <string>

namespace bench_mps::harness {

struct ExternalMps {
  std::string pipe_dir;            ///< CUDA_MPS_PIPE_DIRECTORY, or the default /tmp/nvidia-mps
  std::string daemon_default_pct;  ///< its answer to get_default_active_thread_percentage
  std::string pct_source;          ///< where the runs' active-thread percentage comes from
};

}  // namespace bench_mps::harness
