#pragma once
// --set-exclusive: for users who own their machine, MPS blocks run with the GPU in EXCLUSIVE_PROCESS
// compute mode (NVIDIA's recommendation for MPS: only the MPS server may hold a context). The previous
// mode is restored when the block ends, on errors and signals too; a bench_mps killed outright leaves
// a restore file that the next bench_mps acts on. Uses nvidia-smi ($BENCH_MPS_NVIDIA_SMI or PATH).
#include "harness/mps/wing.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bench_mps::harness {

/// Path of the nvidia-smi to use, or empty.
std::string find_nvidia_smi();

/// The compute time-slice policy of the GPU that nvidia-smi numbers `index` (Default, Short, Medium or
/// Long), as `nvidia-smi compute-policy -l` lists it: NVML has no getter for it. nullopt where
/// nvidia-smi is missing, fails, or lists no such GPU. Never throws.
std::optional<std::string> read_timeslice_policy(const std::string& nvidia_smi, int index,
                                                 const std::filesystem::path& scratch);

/// The policy from `nvidia-smi compute-policy -l`'s table ("|   0   Timeslice       Default       |").
std::optional<std::string> parse_timeslice_policy(const std::string& listing, int index);

class ExclusiveComputeMode {
 public:
  /// Reads the current mode of GPU `gpu_id` (index or UUID), switches it to EXCLUSIVE_PROCESS and
  /// writes a restore file in `state_dir`. Throws EnvironmentError if nvidia-smi fails.
  ExclusiveComputeMode(const std::string& nvidia_smi, const std::string& gpu_id,
                       const std::filesystem::path& state_dir);
  /// Restores the previous mode; never throws (a failure is printed).
  ~ExclusiveComputeMode();
  ExclusiveComputeMode(const ExclusiveComputeMode&) = delete;
  ExclusiveComputeMode& operator=(const ExclusiveComputeMode&) = delete;

  const std::string& previous_mode() const { return previous_; }

 private:
  std::string smi_, gpu_, previous_;
  std::filesystem::path restore_file_;
};

/// Restores modes left switched by bench_mps runs that were killed; returns one line per GPU.
std::vector<std::string> restore_stale_compute_modes(const std::filesystem::path& state_dir);

}  // namespace bench_mps::harness
