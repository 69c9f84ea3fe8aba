#include "harness/results/results_writer.hpp"

#include <stdexcept>

#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/results/results_schema.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// One CSV line of the cells `schema` makes from `in`.
template <class In, class Out>
std::string line_of(const std::vector<Column<In, Out>>& schema, const In& in) {
  return csv_line(column_cells(schema, in));
}

}  // namespace

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + csv_cell(cells[i]);
  return line + "\n";
}

ResultsWriter::ResultsWriter(const fs::path& dir) : dir_(dir) {
  append_durably(dir_ / "tasks.csv", csv_line(tasks_columns()), "");
  append_durably(dir_ / "runs.csv", csv_line(runs_columns()), "");
  append_durably(dir_ / "timeline.csv", csv_line(timeline_columns()), "");
  append_durably(dir_ / "summary.csv", csv_line(summary_columns()), "");
}

void ResultsWriter::append(const RunRecord& r) {
  std::string tasks, runs, timeline;
  for (const TaskRow& t : r.tasks) tasks += line_of(tasks_schema(), TaskCells{r, t});
  for (const WorkerRow& w : r.workers) runs += line_of(runs_schema(), WorkerCells{r, w});
  for (const GpuSample& g : r.samples) timeline += line_of(timeline_schema(), SampleCells{r, g});
  const std::string summary = line_of(summary_schema(), r);

  append_durably(dir_ / "tasks.csv", csv_line(tasks_columns()), tasks);
  append_durably(dir_ / "runs.csv", csv_line(runs_columns()), runs);
  append_durably(dir_ / "timeline.csv", csv_line(timeline_columns()), timeline);
  append_durably(dir_ / "summary.csv", csv_line(summary_columns()), summary);
}

}  // namespace bench_mps::harness
