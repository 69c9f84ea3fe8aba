#pragma once
// Everything checked before a sweep writes anything: the output folder (exit 2), then the machine
// (exit 3): the device (--device) and its lock (no other bench_mps measures it), a GPU for GPU
// workloads, nvidia-cuda-mps-control for MPS modes, no MPS daemon that may serve this GPU and is not
// ours (stale ones of killed bench_mps runs are stopped first; under --external-mps the site's daemon is
// the point; exec commands a killed bench_mps left running are ended too, with a line saying so), a
// compute mode that allows the runs, and enough free GPU memory for the largest N (each
// workload's footprint measured once).
#include "harness/sweep/wing.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/gpu/nvml.hpp"
#include "harness/mps/gpu_lock.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/sweep/gpu_select.hpp"

namespace bench_mps::harness {

struct Environment {
  std::unique_ptr<Nvml> nvml;
  std::optional<GpuStaticInfo> gpu;
  std::string mps_control;         ///< nvidia-cuda-mps-control, if on PATH
  std::string nvidia_smi;          ///< for --set-exclusive
  std::filesystem::path mps_base;  ///< private folder for MPS sessions and restore files
  std::string worker_exe;
  std::string profiler_library;  ///< --profile-gpu: the CUPTI injection library (gpu_profiling.hpp)
  std::map<std::string, std::uint64_t> footprint_bytes;  ///< GPU memory one worker of a workload takes
  std::vector<int> worker_cpus;   ///< worker i is pinned to worker_cpus[i % size]; empty: not pinned
  DeviceChoice device;            ///< the device measured (--device); mps_base is its own folder
  std::unique_ptr<GpuLock> lock;  ///< held for the whole sweep: one bench_mps per device
};

bool sweep_has_mps_mode(const SweepSpec& spec);

/// --out must be creatable and must not hold results already (not checked when resuming).
void check_out_dir(const SweepSpec& spec);
/// Throws UsageError unless `out` is missing, or a folder without meta.json and without any file of
/// the names a sweep writes (someone else's tasks.csv is not appended to).
void check_fresh_out_dir(const std::filesystem::path& out);

/// Throws EnvironmentError (exit 3) with one line naming the problem.
Environment preflight(const SweepSpec& spec);

/// The pipe folder time-sliced workers get: no daemon listens there, so no MPS daemon can capture them.
std::filesystem::path no_mps_pipe_dir(const Environment& env);

}  // namespace bench_mps::harness
