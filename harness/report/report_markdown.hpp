#pragma once
// report.md of a results folder: a one-sentence verdict computed from the data (first line), the
// machine, the figures, the table per workload, mode and N, and our ratios beside the seed articles'.
#include "harness/report/wing.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/report/report_data.hpp"
#include "harness/report/report_plot_data.hpp"
#include "harness/report/report_seeds.hpp"
#include "harness/results/sweep_meta.hpp"

namespace bench_mps::harness {

/// One sentence naming the GPU and driver: per workload, at the largest N measured, the throughput
/// of N time-sliced processes and of N MPS clients relative to one process; and how many runs failed.
std::string results_verdict(const ReportData& data, const SweepMeta& meta);

/// The whole report.md; `folder_name` heads it, figures link to plots/<name>.png.
std::string render_results_report(const ReportData& data, const SweepMeta& meta, const std::vector<SeedRatio>& seeds,
                                  const PlotPlan& plan, const std::string& folder_name);

}  // namespace bench_mps::harness
