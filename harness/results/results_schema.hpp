#pragma once
// Column lists of the results files: one source for the writer, the readers and docs/RESULTS.md.
// Readers ignore unknown columns, so the schema grows by appending columns; a change that breaks
// readers bumps kResultsSchemaVersion (stored in meta.json).
#include "harness/results/wing.hpp"

#include <string>
#include <vector>

namespace bench_mps::harness {

inline constexpr int kResultsSchemaVersion = 1;

/// Columns that identify a run's configuration (compare pairs runs on these, minus run_id and repeat).
const std::vector<std::string>& config_columns();
const std::vector<std::string>& runs_columns();
const std::vector<std::string>& summary_columns();
const std::vector<std::string>& tasks_columns();
const std::vector<std::string>& timeline_columns();

}  // namespace bench_mps::harness
