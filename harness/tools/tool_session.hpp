#pragma once
// One session of a verb built on child sweeps (conform, advise, advise --beside): the skeleton they share, once.
// Made before the first child sweep: the device resolved (exit 2 / 3 as a sweep would), the GPU read,
// nvidia-cuda-mps-control found, the results folder made and claimed, Ctrl-C and SIGTERM caught, the machine and
// the invocation in meta. finish() after the last: what a child stopped at the budget's end could not undo itself
// (its MPS daemon, a compute mode it set) undone, and meta's status and finish time set.
#include "harness/tools/wing.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/gpu/nvml.hpp"
#include "harness/sweep/gpu_select.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/tools/tool_setup.hpp"

namespace bench_mps::harness {

struct ToolSessionSpec {
  std::string command;              ///< "conform", "advise": who needs the GPU and MPS, in its messages
  std::vector<std::string> argv;    ///< the invocation, into meta
  std::string device;               ///< --device ("": CUDA's device 0)
  bool cpu_stand_in = false;        ///< --cpu-stand-in: no GPU read
  std::string out_dir;              ///< --out ("": results/<date>-<gpu>-<label>)
  std::string label;                ///< the default folder's last part
  std::string marker_file;          ///< the verb's own file: a folder holding it is another run's (make_tool_out_dir)
  std::string what;                 ///< the verb's results, in words ("advice", "conform results")
  std::vector<std::string> writes;  ///< the other files and folders it writes there
};

/// make_tool_out_dir's checks of `spec`'s --out (check_tool_out_dir), before the machine is looked at.
void check_session_out_dir(const ToolSessionSpec& spec);

class ToolSession {
 public:
  explicit ToolSession(const ToolSessionSpec& spec);
  const DeviceChoice& device() const { return device_; }
  /// The --device key every child sweep gets: the resolved device's where --device named one, else "".
  std::string device_key() const { return spec_.device.empty() ? std::string() : device_.id.key; }
  const std::optional<GpuStaticInfo>& gpu() const { return gpu_; }
  const std::string& mps_control() const { return mps_control_; }
  const std::filesystem::path& out() const { return out_.path; }
  nlohmann::json& meta() { return meta_; }
  /// After the last child sweep: stale MPS daemons stopped and stale compute modes restored (each said on
  /// stderr), meta's status ("interrupted" or "complete") and finished_utc.
  void finish();
  /// 128 + the signal that stopped the verb; 0 where none did.
  static int signal_exit();

 private:
  ToolSessionSpec spec_;
  DeviceChoice device_;
  std::optional<GpuStaticInfo> gpu_;
  std::string mps_control_;
  ToolOutDir out_;
  OutDirClaim claim_;
  nlohmann::json meta_;
};

}  // namespace bench_mps::harness
