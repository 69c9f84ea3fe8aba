#pragma once
// OUT/index.json (and index.md for people) of a --gpus run: which child folder measured which GPU,
// on which cores, how it ended. Written by the --gpus parent when it starts the children (status
// "running") and again when they are done; read back by `bench_mps report` for the fleet report.
// It carries a format version its reader checks.
#include "harness/results/wing.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bench_mps::harness {

inline constexpr const char* kGpusIndexFile = "index.json";
inline constexpr int kGpusIndexFormatVersion = 1;

struct GpusIndexEntry {
  std::string folder;            ///< relative to the index's folder, e.g. "0-h100-80gb-hbm3"
  std::string device;            ///< what the child got as --device (a UUID, or cpu-<n>)
  std::string gpu_name, uuid;    ///< empty without NVML
  int index = -1;                ///< NVML index; -1 without NVML
  std::string cpus;              ///< "0-7", or "" when not confined
  std::optional<int> exit_code;  ///< empty while it runs
  std::string status;            ///< "running", its meta.json status, or why there are no results
};

struct GpusIndex {
  std::vector<std::string> argv;
  std::string started_utc, finished_utc;
  std::string status;  ///< "running", "complete" (every child exited 0), "failed", "interrupted"
  std::vector<GpusIndexEntry> gpus;
};

/// Writes dir/index.json and dir/index.md, each atomically.
void write_gpus_index(const std::filesystem::path& dir, const GpusIndex& index);

/// Reads dir/index.json; a ResultsError (exit 2) names any defect.
GpusIndex read_gpus_index(const std::filesystem::path& dir);

}  // namespace bench_mps::harness
