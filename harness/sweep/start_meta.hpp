#pragma once
// meta.json's facts about the machine that a sweep knows before its first run: each workload's device
// memory, the cores it was given, the profiler's folders, the device section, and the GPU's conditions
// (NVML's and the time-slice policy) with GPM's availability; the same conditions again at its end.
#include "harness/sweep/wing.hpp"

#include <nlohmann/json.hpp>

#include "harness/plan/sweep_spec.hpp"
#include "harness/results/sweep_meta.hpp"
#include "harness/sweep/preflight.hpp"

namespace bench_mps::harness {

/// The GPU's conditions for meta.json: NVML's, and the time-slice policy nvidia-smi lists (env.nvml set).
nlohmann::json gpu_conditions_now(const Environment& env);

/// Adds what the sweep knows of its machine at the start to `meta` (fresh or resumed); `cpus` is the cores
/// section (harness/sweep/cpu_affinity).
void add_start_meta(SweepMeta& meta, const SweepSpec& spec, const Environment& env, const nlohmann::json& cpus);

}  // namespace bench_mps::harness
