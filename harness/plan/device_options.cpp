#include "harness/plan/device_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <set>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/plan/sweep_cli.hpp"

namespace bench_mps::harness {
namespace {

constexpr int kMaxCpu = 4095;  // CPU numbers past this are not ones Linux hands out by default
constexpr int kMaxDeviceIndex = 1023;

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool given(const CLI::Option* option) { return option && option->count() > 0; }

int parse_cpu(const std::string& item, const std::string& what) {
  if (!all_digits(item) || item.size() > 4 || std::stoi(item) > kMaxCpu)
    throw UsageError(what + ": '" + item.substr(0, 40) + "' is not a CPU number in 0.." + std::to_string(kMaxCpu));
  return std::stoi(item);
}

}  // namespace

bool is_pretend_device(const std::string& id) {
  return id.size() > 4 && id.size() <= 8 && id.rfind("cpu-", 0) == 0 && all_digits(id.substr(4));
}

bool is_device_id(const std::string& id, std::string& why) {
  if (all_digits(id)) {
    if (id.size() <= 4 && std::stoi(id) <= kMaxDeviceIndex) return true;
    why = "'" + id.substr(0, 40) + "' is not a GPU index in 0.." + std::to_string(kMaxDeviceIndex);
    return false;
  }
  if (id.rfind("GPU-", 0) == 0 && id.size() > 4 && id.size() <= 64 &&
      std::all_of(id.begin() + 4, id.end(), [](unsigned char c) { return std::isxdigit(c) || c == '-'; }))
    return true;
  if (is_pretend_device(id)) return true;
  why = "'" + id.substr(0, 40) +
        "' is not a GPU index, a GPU UUID (GPU-...) or a pretend device cpu-<n> (CPU-only sweeps)";
  return false;
}

std::vector<int> parse_cpu_list(const std::string& text, const std::string& what) {
  if (trim(text).empty()) throw UsageError(what + ": empty list");
  std::set<int> cpus;
  for (const std::string& raw : split(text, ',')) {
    const std::string item = trim(raw);
    if (item.empty()) throw UsageError(what + ": empty item in '" + text.substr(0, 40) + "'");
    const auto dash = item.find('-', 1);  // a leading '-' is a sign, refused by parse_cpu
    const int lo = parse_cpu(item.substr(0, dash), what);
    const int hi = dash == std::string::npos ? lo : parse_cpu(item.substr(dash + 1), what);
    if (hi < lo) throw UsageError(what + ": '" + item + "' is a range that runs backwards");
    for (int c = lo; c <= hi; ++c)
      if (!cpus.insert(c).second) throw UsageError(what + ": CPU " + std::to_string(c) + " is listed twice");
  }
  return {cpus.begin(), cpus.end()};
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]) + (j > i ? "-" + std::to_string(cpus[j]) : "");
    i = j + 1;
  }
  return out;
}

void add_device_options(CLI::App& app, SweepSpec& spec, DeviceCliValues& raw) {
  const std::string group = "GPUs and clusters";
  CLI::Option* device =
      app.add_option("--device", raw.device,
                     "the GPU to measure: index (nvidia-smi's numbering, within CUDA_VISIBLE_DEVICES) "
                     "or UUID (default: CUDA's device 0)")
          ->group(group);
  CLI::Option* gpus =
      app.add_option("--gpus", raw.gpus,
                     "all, or a list of indices/UUIDs: one sweep per GPU at once, each in --out/<i>-<gpu>/ "
                     "(cpu-<n>/ for a stand-in device), plus index.json (then `bench_mps report` on --out compares "
                     "them; --resume each GPU's folder on its own)")
          ->group(group);
  raw.cpus_option =
      app.add_option("--cpus", raw.cpus, "the CPU cores this sweep may use, e.g. 0-7 (default: all it is allowed)")
          ->group(group);
  app.add_flag("--external-mps", spec.external_mps,
               "measure as clients of the MPS daemon the site runs (CUDA_MPS_PIPE_DIRECTORY, as Slurm's prolog or "
               "the device plugin set it): MPS modes only (default mps), no daemon of our own")
      ->group(group);
  device->excludes(gpus);
  raw.device_option = device;
  raw.gpus_option = gpus;
  raw.modes_option = app.get_option_no_throw("--modes");
}

void finalize_device_options(SweepSpec& spec, const DeviceCliValues& raw) {
  std::string why;
  if (given(raw.device_option)) {
    spec.device = trim(raw.device);
    if (spec.device.empty()) throw UsageError("--device: empty");
    if (!is_device_id(spec.device, why)) throw UsageError("--device: " + why);
  }
  if (given(raw.gpus_option)) {
    if (trim(raw.gpus).empty()) throw UsageError("--gpus: empty list");
    for (const std::string& item : split(raw.gpus, ',')) {
      const std::string id = trim(item);
      if (id.empty()) throw UsageError("--gpus: empty item in '" + raw.gpus.substr(0, 40) + "'");
      if (id == "all" && split(raw.gpus, ',').size() > 1) throw UsageError("--gpus: 'all' is a list of its own");
      if (id != "all" && !is_device_id(id, why)) throw UsageError("--gpus: " + why);
      if (std::find(spec.gpus.begin(), spec.gpus.end(), id) != spec.gpus.end())
        throw UsageError("--gpus: '" + id + "' is listed twice");
      spec.gpus.push_back(id);
    }
    if (spec.resume) throw UsageError("--gpus: resume each GPU's folder on its own (--resume OUT/<i>-<gpu>)");
  }
  if (given(raw.cpus_option)) spec.cpus = parse_cpu_list(raw.cpus, "--cpus");
  if (!spec.external_mps) return;
  if (!given(raw.modes_option)) spec.modes = parse_modes("mps");
  for (Mode& m : spec.modes) {
    if (!m.mps)
      throw UsageError("--external-mps: mode '" + m.name +
                       "' is not an MPS mode: the site's daemon serves the GPU, so no time-sliced baseline can be "
                       "measured beside it (use --modes mps)");
    m.name = kExternalModePrefix + m.name;
  }
  if (spec.set_exclusive)
    throw UsageError("--external-mps: --set-exclusive would change the compute mode under the site's daemon");
  if (spec.scenario == Scenario::fault)
    throw UsageError("--external-mps: --scenario fault would fault the site's MPS server and every client on it");
}

void add_one_device_option(CLI::App& cmd, std::string& device) {
  cmd.add_option("--device", device, "the GPU: its index or UUID (default: CUDA's device 0)")
      ->check(CLI::Validator(
          [](std::string& id) {
            std::string why;
            return is_device_id(id, why) ? std::string() : why;
          },
          "DEVICE"));
}

}  // namespace bench_mps::harness
