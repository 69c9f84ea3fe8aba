#pragma once
// Core claims across bench_mps instances on one host. Two sweeps started independently (by hand, by
// Slurm without cgroup cpusets, in containers that share a host and its /tmp) would each give their
// workers "a core of their own" from the same list, and their workers would share cores without a word.
// A sweep that pins its processes therefore claims the cores it uses: an flock on
// $TMPDIR/bench_mps-<uid>/cores/cpu-<n>.lock for each, held for the sweep's life beside the per-GPU
// locks, with its pid and GPU written inside. Another sweep plans its cores from those nobody holds.
// The kernel drops a claim when its holder dies, however it dies. Sweeps of different users, or in
// containers with separate /tmp folders, cannot see each other's claims: meta.json says which cores
// were claimed and where, so a reader can tell.
#include "harness/sweep/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/sweep/cpu_affinity.hpp"

namespace bench_mps::harness {

/// Another process's claim on a core, as its lock file records it.
struct ForeignClaim {
  int cpu = -1;
  std::string owner;  ///< "pid 123 (GPU ...)" or "another bench_mps" when not recorded yet
};

class CoreClaims {
 public:
  CoreClaims() = default;
  /// Tries each of `cpus` in order and keeps those no other process holds, until `wanted` are held.
  /// `what` (the GPU) is written into each claim. Never throws for a core someone else holds: it is
  /// listed in foreign(); throws EnvironmentError when the claims folder cannot be created.
  CoreClaims(const std::filesystem::path& dir, const std::vector<int>& cpus, std::size_t wanted,
             const std::string& what);
  ~CoreClaims();
  CoreClaims(CoreClaims&& other) noexcept;
  CoreClaims& operator=(CoreClaims&& other) noexcept;
  CoreClaims(const CoreClaims&) = delete;
  CoreClaims& operator=(const CoreClaims&) = delete;

  /// The cores this process holds, in the order of `cpus`.
  const std::vector<int>& held() const { return held_; }
  /// Cores of `cpus` that were claimed by another process when this one tried them.
  const std::vector<ForeignClaim>& foreign() const { return foreign_; }
  /// Lets go of every claim not in `keep`.
  void keep_only(const std::vector<int>& keep);
  const std::filesystem::path& dir() const { return dir_; }

 private:
  void release_all();
  std::filesystem::path dir_;
  std::vector<int> held_, fds_;
  std::vector<ForeignClaim> foreign_;
};

/// $TMPDIR/bench_mps-<uid>/cores: where the claims of this user's sweeps live.
std::filesystem::path default_core_claims_dir();

/// A sweep's cores: the plan, the claims that keep other sweeps off them (held as long as this lives),
/// what meta.json records of them (`cpus`), and the warnings to print.
struct PinnedCpus {
  CpuPlan plan;
  CoreClaims claims;
  nlohmann::json meta = nlohmann::json::object();
  std::vector<std::string> warnings;
};

/// Plans the cores of a sweep of up to `max_procs` workers from `allowed`, claiming one core for the
/// harness and `cores_per_worker` per worker among those no other sweep holds. Too few free cores: the plan uses
/// the allowed ones, shared with the sweeps named in the warning; more workers' cores than cores: they share
/// (warned, and `workers_share_cores` in meta).
PinnedCpus pin_cpus(const std::filesystem::path& claims_dir, const std::vector<int>& allowed, int max_procs,
                    const std::string& what, int cores_per_worker = 1);

}  // namespace bench_mps::harness
