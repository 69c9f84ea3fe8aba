#pragma once
// What the commands built on child sweeps (conform, advise, advise --beside) do before their first sweep: resolve the
// device once (exit 2 / 3 as a sweep would), read the GPU, find nvidia-cuda-mps-control and make the
// results folder.
#include "harness/tools/wing.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/gpu/nvml.hpp"
#include "harness/sweep/gpu_select.hpp"

namespace bench_mps::harness {

/// The device every child sweep measures: `device` (--device; empty: CUDA's device 0).
DeviceChoice choose_tool_device(const std::string& device, bool cpu_stand_in);

/// The GPU's static facts; none with the CPU stand-ins. EnvironmentError when no GPU is visible
/// (`command` names who needs one).
std::optional<GpuStaticInfo> read_tool_gpu(bool cpu_stand_in, const std::string& command);

/// nvidia-cuda-mps-control's path; EnvironmentError when it is not on PATH.
std::string require_mps_control(const std::string& command);

/// A verb's output folder and the first folder made for it (empty where it was there already): what its
/// OutDirClaim removes again where it cannot claim the folder.
struct ToolOutDir {
  std::filesystem::path path;
  std::filesystem::path made;
};

/// `out_dir`, made (UsageError where it already holds `marker_file`, a sweep's results, a file of a name in
/// `writes` that is not the verb's, or is not a folder); empty: a new results/<date>-<gpu>-<label>.
ToolOutDir make_tool_out_dir(const std::string& out_dir, const std::optional<GpuStaticInfo>& gpu,
                             const std::string& label, const std::string& marker_file, const std::string& what,
                             const std::vector<std::string>& writes = {});

/// The checks of make_tool_out_dir on a given `out_dir`, and that it can be made and written there
/// (check_folder_creatable), without making it: a verb calls it before it looks at the machine, so a folder that
/// cannot be used is exit 2 on a machine without a GPU too. Nothing where `out_dir` is empty.
void check_tool_out_dir(const std::string& out_dir, const std::string& marker_file, const std::string& what,
                        const std::vector<std::string>& writes = {});

}  // namespace bench_mps::harness
