#pragma once
// --gpus all|LIST: one sweep per GPU, all at once, each a child bench_mps of its own
// (`--device <uuid> --cpus <share> --out OUT/<i>-<gpu>` and the rest of this command line), so each
// has its own lock, its own private MPS daemon and its own cores. This process only starts them,
// forwards Ctrl-C/SIGTERM, prefixes their output with their folder, and writes OUT/index.json and
// OUT/index.md: each child's folder, device, cores, exit code and status. `bench_mps report OUT` then
// renders the fleet report across them. (Across nodes, the site's scheduler starts one bench_mps per
// GPU instead: scripts/slurm, scripts/k8s.)
#include "harness/sweep/wing.hpp"

#include <filesystem>
#include <vector>

#include "harness/plan/sweep_spec.hpp"

namespace bench_mps::harness {

/// Runs the children; returns the worst exit code among them (128 + signal when stopped by one).
/// Throws UsageError (exit 2) or EnvironmentError (exit 3) before anything is started or written.
int run_multi_gpu(const SweepSpec& spec);

/// After `--resume DIR` of one GPU's folder of a --gpus run: DIR's entry in its parent's index.json takes the
/// resumed sweep's exit code and status, and the index's own status follows (complete where every GPU's sweep
/// exited 0). A DIR that is no such member is left alone; an index that cannot be read or written is a warning.
void note_resumed_gpu(const std::filesystem::path& dir, int exit_code);

/// `args` without the options named in `drop` (each as "--opt value" or "--opt=value").
std::vector<std::string> without_options(const std::vector<std::string>& args, const std::vector<std::string>& drop);

}  // namespace bench_mps::harness
