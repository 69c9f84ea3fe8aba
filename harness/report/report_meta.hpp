#pragma once
// What meta.json says about the machine and the sweep, as report.md shows it: the GPU and driver
// for titles and the verdict, and the machine description table. Everything is read from one SweepMeta
// (results/sweep_meta): a field it has as a member through that member; only the shown-only parts (the
// sections' `other`: tool, host, the GPU's static facts, MPS control and version, the sweep's run lengths
// and roles; and the sections it keeps whole as JSON: device, cpus, timing) by JSON pointer.
#include "harness/report/wing.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/results/sweep_meta.hpp"

namespace bench_mps::harness {

/// The text at JSON pointer `pointer` ("/name") in a shown-only part of meta.json: strings as they are,
/// numbers and booleans printed, "-" where missing or null.
std::string meta_text(const nlohmann::json& shown, const std::string& pointer);
/// Not on a whole SweepMeta (it would be turned back into JSON): its members are read as members, its
/// shown-only parts through shown_of or `other`.
std::string meta_text(const SweepMeta& meta, const std::string& pointer) = delete;

/// What SweepMeta keeps of a section as JSON (its `other`: the fields it has no member for), or an empty
/// object where meta.json has no such section (gpu null: a CPU-only run).
template <class Section>
const nlohmann::json& shown_of(const std::optional<Section>& section) {
  static const nlohmann::json none = nlohmann::json::object();
  return section ? section->other : none;
}

/// sweep.params' parameter string of `workload` ("-" where meta.json has none).
std::string workload_params(const SweepMeta& meta, const std::string& workload);

/// "NVIDIA H200 (driver 580.159.04)", or "no GPU (CPU-only run)" when meta.json has none.
std::string gpu_and_driver(const SweepMeta& meta);

/// "NVIDIA H200, driver 580.159.04": for figure titles.
std::string gpu_title(const SweepMeta& meta);

/// The machine and sweep description of report.md, a markdown table.
std::string machine_markdown(const SweepMeta& meta);

/// Whether meta.json is a demo's (--demo: CPU stand-ins and a fake MPS daemon, no GPU data).
bool is_demo_folder(const SweepMeta& meta);

/// Stamps a demo's report: a banner above everything, and every figure's title (plot data's
/// figures[].title) prefixed, so no page or image of it can pass for GPU data.
void stamp_demo(std::string& markdown, nlohmann::json& plot_data);

}  // namespace bench_mps::harness
