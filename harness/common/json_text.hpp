#pragma once
// Every JSON the tools write (results' meta.json, advice.json, conform.json, predict.json, index.json,
// places.json, plot data, the worker protocol's lines) goes through here: text from outside (a program's
// stderr and stdout, paths, the environment) may hold bytes that are not UTF-8, and nlohmann's dump throws
// on them. They are written as U+FFFD instead, so a writer never fails on what it was handed.
#include "harness/common/wing.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "harness/common/stats.hpp"

namespace bench_mps::harness {

/// `j` as text, indented by `indent` (-1: one line); invalid UTF-8 in its strings replaced by U+FFFD.
std::string json_text(const nlohmann::json& j, int indent = -1);

/// A measured number as JSON: null where it is not finite (JSON has no NaN or infinity).
nlohmann::json json_number(double v);
/// A ratio with its interval: {"ratio", "lo", "hi"}, each a json_number.
nlohmann::json interval_json(const RatioInterval& r);

}  // namespace bench_mps::harness
