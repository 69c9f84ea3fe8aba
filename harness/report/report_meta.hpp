#pragma once
// What meta.json says about the machine and the sweep, as report.md shows it: the GPU and driver
// for titles and the verdict, and the machine description table.
#include "harness/report/wing.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "harness/results/sweep_meta.hpp"

namespace bench_mps::harness {

/// The text at JSON pointer `pointer` ("/gpu/name"): strings as they are, numbers and booleans
/// printed, "-" where missing or null.
std::string meta_text(const nlohmann::json& meta, const std::string& pointer);

/// "NVIDIA H200 (driver 580.159.04)", or "no GPU (CPU-only run)" when meta.json has none.
std::string gpu_and_driver(const nlohmann::json& meta);

/// "NVIDIA H200, driver 580.159.04": for figure titles.
std::string gpu_title(const nlohmann::json& meta);

/// The machine and sweep description of report.md, a markdown table.
std::string machine_markdown(const nlohmann::json& meta);

/// Whether meta.json is a demo's (--demo: CPU stand-ins and a fake MPS daemon, no GPU data).
bool is_demo_folder(const SweepMeta& meta);

/// Stamps a demo's report: a banner above everything, and every figure's title (plot data's
/// figures[].title) prefixed, so no page or image of it can pass for GPU data.
void stamp_demo(std::string& markdown, nlohmann::json& plot_data);

}  // namespace bench_mps::harness
