#pragma once
// --profile-gpu: every copy of an exec run loads the GPU profiler (harness/profiler/, found beside
// bench_mps like bench_worker) through CUDA_INJECTION64_PATH, and writes its profile, and its CUDA
// children theirs, to OUT/profiles/<run id>/w<i>/profile-<pid>.json (BENCH_MPS_PROFILE_DIR). After the
// run each copy's profiles are summarised (harness/results/gpu_profile.hpp) into its facts in
// runs.csv (profile_*; docs/PROFILE.md), with NVML's utilisation and GPM's metrics over the profile's
// steady part (harness/results/profile_window.hpp). A copy whose command never initialised CUDA wrote none: its
// row says so, and the run is not failed for it.
#include "harness/sweep/wing.hpp"

#include <filesystem>
#include <string>

namespace bench_mps::harness {

struct WorkerLaunch;
struct RunRecord;
struct RunSpec;

/// The profiler library: $BENCH_MPS_PROFILER, else libbench_mps_profiler.so beside this program;
/// EnvironmentError (exit 3) if it is not there.
std::string find_profiler_library();

/// Where copy `worker` of `run_id` writes its profiles.
std::filesystem::path profile_dir(const std::filesystem::path& out_dir, const std::string& run_id, int worker);

/// Creates each copy's profile folder and gives copy i CUDA_INJECTION64_PATH and BENCH_MPS_PROFILE_DIR; with a
/// `unit_range` (--exec-unit-range) also its name and NVTX_INJECTION64_PATH, the library again (NVTX's calls
/// handed to it: harness/profiler/nvtx_ranges.hpp).
void add_profiling_env(WorkerLaunch& launch, const RunSpec& run, const std::string& library,
                       const std::filesystem::path& out_dir, const std::string& unit_range = "");

/// Why a run has no NVML utilisation samples / GPM periods at all ("" where it has them).
struct WindowSources {
  std::string nvml_why, gpm_why;
};

/// Adds each copy's profile summary (bursts split at `gap_us`) to its row's facts, with NVML and GPM
/// over its steady part (from record.util_samples and record.gpm_periods); a copy without a profile, or
/// with an unreadable or failed one, gets a note in its reason (and the run's). Returns lines for the
/// screen: the copies' mean duty, burst p50 and fill, then each copy's steady part with NVML and GPM
/// beside its duty ("" where none has a profile).
std::string record_gpu_profiles(RunRecord& record, const std::filesystem::path& out_dir, double gap_us,
                                const WindowSources& sources = {});

}  // namespace bench_mps::harness
