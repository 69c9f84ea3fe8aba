#pragma once
// report.md and its figures for the time-slice X-ray and the regime map (--scenario xray, regimes):
// the scheduler's slice, switch and turn costs; the grid of burst x duty cycle, time-sliced and under
// MPS, beside the regime model's predictions (report/regime_model); the workloads of other results
// folders placed on the map (`report DIR --place FOLDER`, remembered in DIR/places.json) and the
// seeds at the points their own numbers give. See docs/REGIMES.md.
#include "harness/report/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/report_plot_data.hpp"
#include "harness/report/report_seeds.hpp"
#include "harness/results/sweep_meta.hpp"

namespace bench_mps::harness {

/// True when meta.json says the folder holds --scenario xray or regimes.
bool is_regimes_folder(const SweepMeta& meta);

/// The folders whose workloads go on DIR's map: those DIR/places.json remembers, less `forget` (UsageError
/// naming places.json for one it does not hold), then those of `add` (--place: each must be a results
/// folder). `remembered` gets the list to store back; a remembered folder that is gone (moved, deleted) stays
/// in it but is not placed: `warnings` says so, naming places.json and --forget-place.
struct Places {
  std::vector<std::filesystem::path> placed, remembered;
  std::vector<std::string> warnings;
};
Places placed_folders(const std::filesystem::path& dir, const std::vector<std::string>& add,
                      const std::vector<std::string>& forget = {});
/// DIR/places.json's content for `folders` (as placed_folders gives them: relative to DIR where they can be).
std::string places_json(const std::vector<std::filesystem::path>& folders);

struct RegimesReport {
  PlotPlan plan;
  std::string markdown;
  std::vector<std::string> warnings;  ///< a placed folder of which nothing could be placed
};

/// The report of an X-ray or regimes folder; throws ResultsError for a folder it cannot read.
RegimesReport render_regimes_report(const std::filesystem::path& dir, const SweepMeta& meta, const std::string& name,
                                    const std::vector<std::filesystem::path>& places,
                                    const std::vector<SeedRatio>& seeds);

}  // namespace bench_mps::harness
