#include "harness/tools/tool_setup.hpp"

#include <memory>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/results/meta.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/sweep/preflight.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

DeviceChoice choose_tool_device(const std::string& device, bool cpu_stand_in) {
  SweepSpec probe;
  probe.device = device;
  probe.workloads = {cpu_stand_in ? "cpu" : "spin"};
  return select_device(probe);
}

std::optional<GpuStaticInfo> read_tool_gpu(bool cpu_stand_in, const std::string& command) {
  if (cpu_stand_in) return std::nullopt;
  std::string why;
  const std::unique_ptr<Nvml> nvml = Nvml::open(why);
  if (!nvml) throw EnvironmentError("no GPU visible: " + why + " (" + command + " measures a GPU)");
  return nvml->static_info();
}

std::string require_mps_control(const std::string& command) {
  const std::string path = find_mps_control();
  if (path.empty()) throw EnvironmentError("nvidia-cuda-mps-control is not on PATH: " + command + " needs MPS");
  return path;
}

ToolOutDir make_tool_out_dir(const std::string& out_dir, const std::optional<GpuStaticInfo>& gpu,
                             const std::string& label, const std::string& marker_file, const std::string& what,
                             const std::vector<std::string>& writes) {
  if (out_dir.empty()) {
    const fs::path made = make_new_results_dir((gpu ? gpu_slug(gpu->name) : std::string("cpu")) + "-" + label);
    return {made, made};
  }
  check_tool_out_dir(out_dir, marker_file, what, writes);
  const fs::path out = out_dir;
  std::error_code ec;
  const fs::path made = first_missing_folder(out);
  fs::create_directories(out, ec);
  if (ec) throw UsageError("--out: cannot create " + out.string() + ": " + ec.message());
  return {out, made};
}

void check_tool_out_dir(const std::string& out_dir, const std::string& marker_file, const std::string& what,
                        const std::vector<std::string>& writes) {
  if (out_dir.empty()) return;
  const fs::path out = out_dir;
  std::error_code ec;
  if (fs::exists(out / marker_file, ec))
    throw UsageError("--out: " + out.string() + " already holds " + what + "; choose a new folder");
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw UsageError("--out: " + out.string() + " is not a folder");
  // A file of a name it writes, without its marker: someone else's (issue 35: one rule for every verb's folder,
  // never overwrite what the verb did not write).
  for (const std::string& name : writes)
    if (fs::exists(out / name, ec))
      throw UsageError("--out: " + out.string() + " holds a " + name + " that bench_mps did not write there (no " +
                       marker_file + "); choose a new folder");
  check_fresh_out_dir(out);  // a sweep's results folder is not one of these either
  check_folder_creatable(out, "--out");
}

}  // namespace bench_mps::harness
