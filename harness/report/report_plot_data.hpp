#pragma once
// plots/plot_data.json: everything scripts/plot_report.py draws, already aggregated (the script
// computes no statistic). One entry per figure; figures with nothing to draw are left out.
#include "harness/report/wing.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/report/report_data.hpp"
#include "harness/report/report_seeds.hpp"

namespace bench_mps::harness {

/// A figure the script writes as plots/<name>.png.
struct FigureInfo {
  std::string name, title;
  std::string how_to_read;  ///< one paragraph for report.md
};
/// A figure in report.md: its image (plots/<name>.png) and how to read it.
inline std::string figure_markdown(const FigureInfo& f) {
  return "![" + f.title + "](plots/" + f.name + ".png)\n\n" + f.how_to_read + "\n\n";
}

struct PlotPlan {
  nlohmann::json data;                 ///< the content of plot_data.json
  std::vector<FigureInfo> figures;     ///< drawn, in report order
  std::vector<std::string> not_drawn;  ///< "title: why", for figures without data
};

/// The figures of a results folder; `machine` ("NVIDIA H200, driver 580.159.04") goes in every title.
PlotPlan results_plot_plan(const ReportData& data, const std::vector<SeedRatio>& seeds, const std::string& machine);

}  // namespace bench_mps::harness
