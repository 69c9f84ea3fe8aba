#pragma once
// report.md and its figure for an interference folder (bench_mps --scenario interference): per mode
// and N, the foreground's latency and throughput beside N-1 background jobs against its own alone,
// and the share of their throughput the background jobs keep, with the verdict which mode protects
// the foreground and at what cost.
#include "harness/report/wing.hpp"

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/report/report_plot_data.hpp"
#include "harness/results/sweep_meta.hpp"

namespace bench_mps::harness {

/// True when meta.json says the folder holds the interference scenario.
bool is_interference_folder(const SweepMeta& meta);

struct InterferenceReport {
  PlotPlan plan;
  std::string markdown;
};

/// The report of an interference folder; throws ResultsError for a folder it cannot read.
InterferenceReport render_interference_report(const std::filesystem::path& dir, const SweepMeta& meta,
                                              const std::string& name);

}  // namespace bench_mps::harness
