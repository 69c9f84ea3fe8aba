#pragma once
// The regimes report's parts (report_regimes.cpp puts them together): what both read, its figures'
// data, and its markdown.
#include "harness/report/wing.hpp"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/regime_evaluation.hpp"
#include "harness/report/report_plot_data.hpp"
#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

struct RegimesInput {
  std::filesystem::path dir;
  SweepMeta meta;
  std::string name;
  std::vector<SummaryRecord> rows;
  std::vector<TaskSample> tasks;  ///< the X-ray's busy runs' intervals (its timeline)
  std::vector<XrayCell> xray;
  SchedulerFacts sched;
  std::vector<Evaluated> evaluated;                       ///< grid, placed workloads, seeds
  std::vector<std::pair<std::string, SweepMeta>> places;  ///< placed folders: path, meta.json
  std::vector<std::string> unplaced;  ///< placed folders with no cell the map can show (no burst measured alone)
};

/// Why a placed folder shows nothing on the map.
inline constexpr const char* kUnplacedWhy =
    "it has no time-sliced run alone with a measured burst beside runs at N >= 2 time-sliced or under plain MPS "
    "(workloads that measure their burst, such as duty, are placed; cpu and exec are not)";

/// The figures: the X-ray's timeline and waits, the regime map, predicted against measured.
PlotPlan regimes_plot_plan(const RegimesInput& in);
/// report.md, with the plan's figures.
std::string regimes_markdown(const RegimesInput& in, const PlotPlan& plan);

}  // namespace bench_mps::harness
