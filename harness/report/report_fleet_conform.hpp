#pragma once
// The fleet report's conform section: where a fleet folder holds `bench_mps conform` results (a
// conform.json), one table with a column per GPU and a row per MPS lever (its verdict), and the
// evidence of every row that did not PASS or SKIP.
#include "harness/report/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "harness/results/conform_rows.hpp"

namespace bench_mps::harness {

/// One conform folder of the fleet.
struct FleetConform {
  std::string label;                   ///< its path below the fleet folder
  std::string host, gpu_name, driver;  ///< "-" where conform.json does not say
  std::vector<ConformRow> rows;
};

/// Reads the conform folder `dir`; a ResultsError names what is wrong.
FleetConform read_fleet_conform(const std::filesystem::path& dir, const std::string& label);

/// "## MPS levers per GPU (conform)" and its tables; "" when there are none.
std::string render_fleet_conform(const std::vector<FleetConform>& conforms);

}  // namespace bench_mps::harness
