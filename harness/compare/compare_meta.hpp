#pragma once
// The metadata half of `bench_mps compare`: the meta.json keys that explain a difference between two
// results folders (driver, CUDA versions, GPU, compute mode, MPS, clocks, SMs), side by side, and the
// refusal to compare different GPU models unless asked to.
#include "harness/compare/wing.hpp"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bench_mps::harness {

/// One meta.json key of both folders; null where a folder lacks it (CPU-only test runs have no gpu).
struct MetaDiffRow {
  std::string key;  ///< dotted path, e.g. "gpu.driver_version"
  nlohmann::json base, next;
  bool differs = false;
  bool can_explain = false;  ///< differs, and is a setting that changes what a run measures (clocks, power, driver...)
};

/// Whether a difference in `key` can explain a change in the measurements (not the temperature or git sha).
bool can_explain_a_change(const std::string& key);

/// The dotted meta.json keys compare shows, in display order.
const std::vector<std::string>& compared_meta_keys();

/// Every key of compared_meta_keys() with both values. Never throws on odd shapes: a key whose path
/// does not lead to a value is null.
std::vector<MetaDiffRow> diff_metadata(const nlohmann::json& base, const nlohmann::json& next);

/// A value as shown in tables: strings bare, numbers and booleans as JSON, null as "-".
std::string meta_value_text(const nlohmann::json& value);

/// meta.json's section.key as text ("" where absent or null; a number as written).
std::string meta_text(const nlohmann::json& meta, const char* section, const char* key);

/// A folder's testbed (issue 46): GPU model, SM count, memory and host CPU model, "?" where meta.json does not
/// record one ("no GPU" for a CPU-only folder).
std::vector<std::string> testbed_of(const nlohmann::json& meta);
/// "NVIDIA H100 80GB HBM3, 132 SMs, 79.6 GiB; Intel(R) Xeon(R) Processor".
std::string testbed_text(const std::vector<std::string>& testbed);
/// Every field equal, or not recorded on one side.
bool same_testbed(const std::vector<std::string>& a, const std::vector<std::string>& b);
/// compare's testbed line: "same testbed (...)" or the fields that differ, each with both values.
std::string testbed_line(const nlohmann::json& base, const nlohmann::json& next);

/// Throws UsageError (one line) when gpu.name differs between the two folders and `allow` is false.
void check_same_gpu(const nlohmann::json& base, const nlohmann::json& next, bool allow);

}  // namespace bench_mps::harness
