#pragma once
// The columns of the results files, in one table per file: each column's name, unit, meaning, how
// the writer gets its cell from a run and how the reader puts it back. The writer, the reader,
// `bench_mps columns` (docs/RESULTS.md's lists) and the tests all take their columns from here.
// Readers ignore unknown columns, so the schema grows by appending columns; a change that breaks
// readers bumps kResultsSchemaVersion (stored in meta.json).
#include "harness/results/wing.hpp"

#include <array>
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/common/csv_table.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/run_record.hpp"

namespace bench_mps::harness {

inline constexpr int kResultsSchemaVersion = 1;

/// Versions of the files one command writes and another reads back; each reader refuses another
/// version with one line. comparison.json (and the comparison.csv beside it), written by compare, read
/// by report; plots/plot_data.json, written by report, read by scripts/plot_report.py (PLOT_DATA_VERSION).
inline constexpr int kComparisonFormatVersion = 1;
/// comparison.json's "statistic": what compare calls noise and how it tests (reports word a comparison
/// folder by it; one written before the key keeps the Mann-Whitney test's words, see report_comparison).
inline constexpr const char* kCompareStatistic =
    "noise = the width of the ~94% Student-t confidence interval of the mean of the worker sets' means, over that "
    "mean (a worker set: one set of worker processes and its rounds); p = Welch's t-test of the worker sets' means";
inline constexpr int kPlotDataFormatVersion = 1;

/// How many columns of each file bench_mps reads back (fast-cpp-csv-parser wants the count at compile
/// time); the reader checks them against the tables below.
inline constexpr std::size_t kSummaryReadColumns = 67;
inline constexpr std::size_t kRunsReadColumns = 18;
inline constexpr std::size_t kTasksReadColumns = 5;

/// One cell as the reader sees it, with where it came from for error messages.
struct Cell {
  const std::string& text;
  const std::string& at;     ///< "FILE line L COLUMN"
  double real() const;       ///< a number >= 0, or NaN when empty (every metric is a count, time, rate or fraction)
  double ratio() const;      ///< real(), and at most 1e6: a ratio of two measurements (its unit "x")
  double any_real() const;   ///< a number, any sign (times relative to GO); NaN when empty
  long whole() const;        ///< an integer >= 0 (throws when empty): every whole-number column is a count or an id
  int percent() const;       ///< an active thread percentage: a whole number 1..100 (throws when empty)
  double length() const;     ///< a number >= 0 that must be there (a task's duration)
  RunStatus status() const;  ///< a run status word bench_mps writes (throws when empty or unknown)
};

/// A column: `write` makes the cell from what the writer holds (In); `read`, where set, stores the
/// cell into the reader's record (Out). A column without `read` is written and documented only.
template <class In, class Out>
struct Column {
  std::string name;
  std::string unit;  ///< "" for text and identifiers
  std::string meaning;
  std::function<std::string(const In&)> write;
  std::function<void(Out&, const Cell&)> read;
  bool optional = false;  ///< read as empty from files written before the column existed
};

/// What one row of runs.csv, tasks.csv and timeline.csv is written from.
struct WorkerCells {
  const RunRecord& run;
  const WorkerRow& worker;
};
struct TaskCells {
  const RunRecord& run;
  const TaskRow& task;
};
struct SampleCells {
  const RunRecord& run;
  const GpuSample& sample;
};
struct NoRecord {};  ///< timeline.csv has no reader in bench_mps (the plotting script reads it)

const std::vector<Column<RunRecord, SummaryRecord>>& summary_schema();
const std::vector<Column<WorkerCells, WorkerRecord>>& runs_schema();
const std::vector<Column<TaskCells, TaskSample>>& tasks_schema();
const std::vector<Column<SampleCells, NoRecord>>& timeline_schema();

/// A planned run's configuration as summary.csv's reader will see it (the configuration columns
/// written and read back).
RunConfig run_config(const RunSpec& spec);
/// A finished run as summary.csv's reader will see it: the sweep's own list of what it recorded, the
/// same type a resumed sweep, report and compare read back.
SummaryRecord summary_record(const RunRecord& run);

std::vector<std::string> runs_columns();
std::vector<std::string> summary_columns();
std::vector<std::string> tasks_columns();
std::vector<std::string> timeline_columns();

/// docs/RESULTS.md's column lists: one markdown table per file (`bench_mps columns` prints them).
void print_column_docs(std::ostream& out);

/// Rows of `file` read through `schema`: every column with a reader, found by its name (N: how many have one;
/// fast-cpp-csv-parser wants it at compile time). ResultsError naming the file, line and column of a bad cell.
template <std::size_t N, class In, class Out>
std::vector<Out> read_columns(const std::filesystem::path& file, const std::vector<Column<In, Out>>& schema) {
  std::vector<const Column<In, Out>*> readable;
  for (const auto& c : schema)
    if (c.read) readable.push_back(&c);
  if (readable.size() != N)  // the schema and its reader's arity drifted apart: a bug, caught by the tests
    throw std::logic_error("results schema: " + std::to_string(readable.size()) + " readable columns, reader expects " +
                           std::to_string(N));
  std::array<const char*, N> names{};
  std::array<bool, N> optional{};
  for (std::size_t i = 0; i < N; ++i) {
    names[i] = readable[i]->name.c_str();
    optional[i] = readable[i]->optional;
  }
  std::vector<Out> out;
  std::size_t line = 1;
  for (const auto& cells : read_csv_columns(file, names, optional)) {
    const std::string at = file.string() + " line " + std::to_string(++line);
    Out record;
    for (std::size_t i = 0; i < N; ++i) {
      const std::string where = at + " " + readable[i]->name;
      readable[i]->read(record, Cell{cells[i], where});
    }
    out.push_back(std::move(record));
  }
  return out;
}

/// A table's column names, in order (its CSV header).
template <class In, class Out>
std::vector<std::string> column_names(const std::vector<Column<In, Out>>& cols) {
  std::vector<std::string> out;
  for (const auto& c : cols) out.push_back(c.name);
  return out;
}
/// The cells `cols` make of `in`, in order (one CSV line's, before quoting).
template <class In, class Out>
std::vector<std::string> column_cells(const std::vector<Column<In, Out>>& cols, const In& in) {
  std::vector<std::string> cells;
  cells.reserve(cols.size());
  for (const auto& column : cols) cells.push_back(column.write(in));
  return cells;
}
/// The markdown table (column, unit, meaning) of `cols` from the `skip`-th on, as docs/RESULTS.md lists them.
void print_column_table(std::ostream& out, const std::vector<std::string>& names, const std::vector<std::string>& units,
                        const std::vector<std::string>& meanings, std::size_t skip = 0);
template <class In, class Out>
void print_column_table(std::ostream& out, const std::vector<Column<In, Out>>& cols, std::size_t skip = 0) {
  std::vector<std::string> names, units, meanings;
  for (const auto& c : cols) {
    names.push_back(c.name);
    units.push_back(c.unit);
    meanings.push_back(c.meaning);
  }
  print_column_table(out, names, units, meanings, skip);
}

}  // namespace bench_mps::harness
