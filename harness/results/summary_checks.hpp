#pragma once
// What makes a summary.csv damaged beyond one bad cell: a run id twice, a run the sweep never planned
// (a workload, mode, N or repeat meta.json does not list), or fewer or more rows than meta.json says
// the sweep recorded (a file cut short). Each is a ResultsError naming the file: such a folder is
// refused, never counted.
#include "harness/results/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// Throws ResultsError naming `file` at the first run id that appears twice.
void check_unique_run_ids(const std::filesystem::path& file, const std::vector<SummaryRecord>& rows);

/// Where tasks.csv holds another number of tasks of an ok run than its summary row's tasks_total (a file cut short
/// at a line's end reads as whole; a fixture trimmed on purpose), a sentence saying so for a report; "" where none.
std::string tasks_short_of_summary(const std::vector<SummaryRecord>& rows, const std::vector<TaskSample>& tasks);

/// The most tasks a second a run's throughput may be read as (a task is at least a synchronised step: far slower).
inline constexpr double kMostTasksPerSecond = 1e12;
/// The longest a run or a copy can last: --ready-timeout and --timeout, a day each at most.
inline constexpr double kLongestRunS = 2 * 86400.0;
/// Throws ResultsError naming the first run whose status is ok but whose throughput is missing, zero, negative
/// or beyond kMostTasksPerSecond: a rate no ok run measures (compare would read a fall to 0 as noise); or whose
/// makespan or task times (mean, p50, p99) are negative, infinite or longer than kLongestRunS, or whose fg_overlap
/// lies outside 0..1.
void check_ok_runs_measured(const std::filesystem::path& file, const std::vector<SummaryRecord>& rows);

/// Throws ResultsError naming `file` at the first row meta.json's sweep did not plan, or when the
/// number of rows differs from meta.json's runs_recorded. Only a plain sweep's plan is checked (the
/// other scenarios add runs of their own); runs_recorded is checked wherever meta.json has it.
void check_rows_match_meta(const std::filesystem::path& file, const std::vector<SummaryRecord>& rows,
                           const SweepMeta& meta);

}  // namespace bench_mps::harness
