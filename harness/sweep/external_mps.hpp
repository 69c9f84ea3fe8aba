#pragma once
// --external-mps: the sweep's workers are clients of the MPS daemon the site already runs (started by
// Slurm's prolog for --gres=mps, or by the NVIDIA device plugin for MPS sharing), found through
// CUDA_MPS_PIPE_DIRECTORY as the scheduler set it. Nothing of that daemon is changed: no start, no
// quit, no default percentage. The runs' active-thread percentage is what the site gives a client:
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (Slurm: N*100/Count), else the daemon's default (the device
// plugin's 100/replicas), unless --modes mps:<p> asks for less.
#include "harness/sweep/wing.hpp"

#include "harness/plan/sweep_spec.hpp"

namespace bench_mps::harness {

/// Finds the site's daemon (exit 3 when none answers) and fills in spec.external and the modes'
/// active-thread percentages. Does nothing without --external-mps. Checks --out first (exit 2).
void attach_external_mps(SweepSpec& spec);

/// A percentage as CUDA_MPS_ACTIVE_THREAD_PERCENTAGE or the daemon says it ("50", "50.0"): a whole
/// number in 1..100, or -1.
int parse_active_thread_pct(const std::string& text);

}  // namespace bench_mps::harness
