#pragma once
// Which device a sweep measures (--device), and the GPUs --gpus spreads over. A GPU is named by its
// index (nvidia-smi's numbering, PCI bus order, counted within CUDA_VISIBLE_DEVICES where that is
// set) or its UUID, and resolved through NVML to its UUID. The sweep then points itself at that UUID
// (CUDA_VISIBLE_DEVICES=<uuid>, CUDA_DEVICE_ORDER=PCI_BUS_ID), so NVML, its workers and the MPS daemon
// it starts all see that one GPU; the lock and the daemon's folders are keyed by the UUID. Without
// NVML (CPU-only sweeps, in tests) the key is the name given: a pretend device cpu-<n>, or the first
// entry of CUDA_VISIBLE_DEVICES.
#include "harness/sweep/wing.hpp"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/gpu/nvml.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/results/sweep_meta.hpp"

namespace bench_mps::harness {

struct Environment;

/// The device one sweep measures.
struct DeviceChoice {
  MeasuredDevice id;      ///< key (the UUID where there is one), UUID, index, GPUs on the machine
  std::string name;       ///< the GPU's name; empty without NVML
  std::string requested;  ///< --device as given; empty: CUDA's device 0
  /// "GPU 1 (NVIDIA H200, GPU-8d3f...)" or "device cpu-0": for messages.
  std::string describe() const;
};

/// The GPUs CUDA would see here, in its numbering: the driver's GPUs in index order, narrowed by
/// CUDA_VISIBLE_DEVICES as CUDA reads it (indices or UUID prefixes, up to the first that names none).
/// Empty, with `why`, when there is no driver or no GPU. `driver_count` (optional) gets how many GPUs
/// the driver sees in all.
std::vector<GpuIdentity> visible_gpus(std::string& why, std::size_t* driver_count = nullptr);

/// Resolves a device name (validated by is_device_id) against `visible`: an index counts within
/// them, a UUID (prefix) must name exactly one. A pretend device cpu-<n> is taken as it is, and so is
/// any name when there is no GPU (`visible` empty) and the sweep needs none. Throws UsageError when it
/// names no visible GPU, or a pretend device for a sweep that needs a GPU.
DeviceChoice resolve_device(const std::string& id, bool needs_gpu, const std::vector<GpuIdentity>& visible,
                            int gpu_count);

/// Resolves spec.device (default: CUDA's device 0) and points this process, so its workers and
/// daemons too, at it. Throws UsageError (exit 2) for a device that is not there, EnvironmentError
/// (exit 3) when the sweep needs a GPU and there is none.
DeviceChoice select_device(const SweepSpec& spec);

/// "no GPU visible: WHY", with where a machine without one can try the flow (the one message of a sweep that needs
/// a GPU and has none).
std::string no_gpu_words(const std::string& why);

/// meta.json's "device" section (and "mps"."external" under --external-mps).
void add_device_meta(SweepMeta& meta, const SweepSpec& spec, const Environment& env);

/// A file-name-safe label for a device's results folder: "0-h100-80gb-hbm3" or "cpu-1".
std::string device_folder_name(const DeviceChoice& device);

}  // namespace bench_mps::harness
