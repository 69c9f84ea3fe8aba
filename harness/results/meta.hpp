#pragma once
// meta.json: everything needed to interpret a results folder later (schema version, argv, git sha,
// host and CPU, GPU and its conditions, driver and CUDA versions, the build, CUDA_* variables, compute
// mode, MPS settings, the sweep as asked).
#include "harness/results/wing.hpp"

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/gpu/nvml.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/results/sweep_meta.hpp"

namespace bench_mps::harness {

/// The machine a tool's meta (make_machine_meta) names, in a line: "<GPU name>, driver <version>", or `without_gpu`
/// where its `gpu` is not an object (CPU stand-ins).
std::string machine_line(const nlohmann::json& meta, const std::string& without_gpu);

/// What every results folder records about the machine and the invocation, before anything ran: the
/// tool and build, CUDA_* variables, argv, host, start time, status "running", GPU, MPS control and version.
nlohmann::json make_machine_meta(const std::vector<std::string>& argv, const std::optional<GpuStaticInfo>& gpu,
                                 const std::string& mps_control_path);

/// The metadata known before the first run; status "running".
SweepMeta make_meta(const SweepSpec& spec, const std::optional<GpuStaticInfo>& gpu,
                    const std::string& mps_control_path);

/// meta_scenario (sweep_meta.hpp) of a meta.json held as JSON.
std::optional<Scenario> meta_scenario(const nlohmann::json& meta);

/// A GPU's conditions (power limit, persistence, clocks, ECC, temperature, clock-event reasons) for
/// meta.json's gpu.conditions_start / gpu.conditions_end.
nlohmann::json conditions_json(const GpuConditions& conditions);

/// "bench_mps 0.1.0 (git <sha>[, dirty]; built with CUDA 13.0)": what --version prints.
std::string version_line();

/// Short file-name-safe GPU name: "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3".
std::string gpu_slug(const std::string& gpu_name);

}  // namespace bench_mps::harness
