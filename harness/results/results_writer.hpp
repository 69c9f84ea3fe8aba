#pragma once
// Appends each finished run to runs.csv, summary.csv, tasks.csv and timeline.csv, and makes it
// durable (fsync) before the next run starts. summary.csv is written last: a run counts as recorded
// once its summary row is on disk.
#include "harness/results/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "harness/common/files.hpp"
#include "harness/results/run_record.hpp"

namespace bench_mps::harness {

/// Quotes a CSV cell when it holds a comma, a quote or a line break.
std::string csv_cell(const std::string& text);
std::string csv_line(const std::vector<std::string>& cells);

class ResultsWriter {
 public:
  /// Opens (creating with headers where new) the four CSV files in `dir`.
  explicit ResultsWriter(const std::filesystem::path& dir);
  /// Appends and fsyncs the run's rows; throws std::runtime_error on an I/O failure.
  void append(const RunRecord& record);

 private:
  std::filesystem::path dir_;
};

}  // namespace bench_mps::harness
