#pragma once
// Which GPU a sweep measures and how it reaches MPS: --device, --gpus (one child sweep per GPU),
// --cpus (the cores a sweep may use) and --external-mps (clients of a daemon the site runs), with
// their validation. What they mean at run time is in harness/sweep/gpu_select and multi_gpu.
#include "harness/plan/wing.hpp"

#include <string>
#include <vector>

#include "harness/plan/sweep_spec.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace bench_mps::harness {

/// Raw values of the device options, validated by finalize_device_options.
struct DeviceCliValues {
  std::string device, gpus, cpus;
  const CLI::Option* device_option = nullptr;  ///< tells "not given" from "given empty"
  const CLI::Option* gpus_option = nullptr;
  const CLI::Option* cpus_option = nullptr;
  const CLI::Option* modes_option = nullptr;  ///< --external-mps changes the default modes to `mps`
};

/// Registers --device, --gpus, --cpus and --external-mps.
void add_device_options(CLI::App& app, SweepSpec& spec, DeviceCliValues& raw);

/// Registers --device alone (commands built on child sweeps: conform, advise): an index, UUID or pretend
/// device, checked by is_device_id.
void add_one_device_option(CLI::App& cmd, std::string& device);

/// Validates them into `spec` (after the modes are parsed); throws UsageError with one line. Under
/// --external-mps every mode becomes its "external-" twin (external-mps, external-mps:50) with the
/// active-thread percentage of CUDA_MPS_ACTIVE_THREAD_PERCENTAGE when the mode sets none (an
/// unusable value there is an EnvironmentError).
void finalize_device_options(SweepSpec& spec, const DeviceCliValues& raw);

/// True for "cpu-<n>": a pretend device of CPU-only sweeps (--workloads cpu), for tests and dry runs.
bool is_pretend_device(const std::string& id);
/// True for an index ("0"), a GPU UUID ("GPU-8d3f...") or a pretend device; `why` says what is wrong.
bool is_device_id(const std::string& id, std::string& why);

/// "0-3,8" (a Linux CPU list) -> {0, 1, 2, 3, 8}: ascending, no CPU twice. `what` names the option.
std::vector<int> parse_cpu_list(const std::string& text, const std::string& what);
/// {0, 1, 2, 3, 8} -> "0-3,8".
std::string format_cpu_list(const std::vector<int>& cpus);

/// The prefix that marks a mode measured against the site's MPS daemon (--external-mps).
inline constexpr const char* kExternalModePrefix = "external-";

}  // namespace bench_mps::harness
