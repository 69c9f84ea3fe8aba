#include "harness/sweep/start_meta.hpp"

#include "harness/mps/compute_mode.hpp"
#include "harness/results/meta.hpp"
#include "harness/sweep/gpu_select.hpp"

namespace bench_mps::harness {

nlohmann::json gpu_conditions_now(const Environment& env) {
  nlohmann::json c = conditions_json(env.nvml->conditions());
  if (const auto policy = read_timeslice_policy(find_nvidia_smi(), env.gpu ? env.gpu->index : -1, env.mps_base))
    c["timeslice_policy"] = *policy;
  return c;
}

void add_start_meta(SweepMeta& meta, const SweepSpec& spec, const Environment& env, const nlohmann::json& cpus) {
  for (const auto& [w, bytes] : env.footprint_bytes) {
    if (!meta.gpu) meta.gpu.emplace();
    if (!meta.gpu->footprint_bytes) meta.gpu->footprint_bytes.emplace();
    (*meta.gpu->footprint_bytes)[w] = static_cast<long>(bytes);
  }
  meta.cpus = cpus;
  if (spec.profile_gpu)  // docs/PROFILE.md
    meta.gpu_profile = nlohmann::json{{"library", env.profiler_library},
                                      {"gap_us", spec.profile_gap_us},
                                      {"folders", "profiles/<run_id>/w<worker>/profile-<pid>.json"}};
  if (spec.profile_gpu && !spec.exec_unit_range.empty()) (*meta.gpu_profile)["unit_range"] = spec.exec_unit_range;
  add_device_meta(meta, spec, env);  // --device, --cpus, --external-mps (harness/sweep/gpu_select)
  if (env.nvml && meta.gpu) {
    meta.gpu->conditions_start = gpu_conditions_now(env);
    const std::string gpm = env.nvml->gpm_unavailable();
    meta.gpu->gpm = gpm.empty() ? "available" : "unavailable: " + gpm;
  }
}

}  // namespace bench_mps::harness
