#include "harness/results/summary_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"

namespace bench_mps::harness {
namespace {

struct Cell {
  std::vector<double> task_ms, throughput;
  int runs = 0, failed = 0;
};

std::string line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

}  // namespace

void print_summary_table(std::ostream& out, const std::vector<SummaryRecord>& rows) {
  using Key = std::tuple<std::string, std::string, std::string, int>;  // workload, params, mode, N
  std::map<Key, Cell> cells;
  std::vector<std::string> mode_order;
  for (const SummaryRecord& e : rows) {
    Cell& c = cells[{e.workload, e.params, e.mode, e.procs}];
    ++c.runs;
    bool known = false;
    for (const auto& m : mode_order) known |= m == e.mode;
    if (!known) mode_order.push_back(e.mode);
    if (e.status != RunStatus::ok) {
      ++c.failed;
      continue;
    }
    c.task_ms.push_back(e.task_mean_ms);
    c.throughput.push_back(e.throughput_tasks_per_s);
  }
  if (cells.empty()) return;

  int mode_width = 11;  // the longest mode name (mps:auto+prio, ...) keeps the columns in line
  for (const std::string& m : mode_order) mode_width = std::max(mode_width, static_cast<int>(m.size()));
  int workload_width = 8;
  for (const auto& [key, cell] : cells)
    workload_width = std::max(workload_width, static_cast<int>(std::get<0>(key).size()));
  out << line("%-*s %-*s %5s %13s %9s %12s %14s %s\n", workload_width, "workload", mode_width, "mode", "N",
              "per-task ms", "ms vs N=1", "tasks/s", "vs timeslice", "runs");
  std::set<std::pair<std::string, std::string>> workloads;
  for (const auto& [key, cell] : cells) workloads.insert({std::get<0>(key), std::get<1>(key)});
  for (const auto& [workload, params] : workloads) {
    for (const std::string& mode : mode_order) {
      for (const auto& [key, c] : cells) {
        if (std::get<0>(key) != workload || std::get<1>(key) != params || std::get<2>(key) != mode) continue;
        const int n = std::get<3>(key);
        const double tput = c.throughput.empty() ? NAN : median(c.throughput);
        std::string speedup = "";
        if (mode != kTimesliceMode && !c.throughput.empty()) {  // a cell with no ok run has no ratio, not "-x"
          auto ts = cells.find({workload, params, kTimesliceMode, n});
          if (ts != cells.end() && !ts->second.throughput.empty())
            speedup = fmt_fixed(tput / median(ts->second.throughput), 2) + "x";
        }
        // vs N=1: the ratio of the medians printed (the report's "per-task time vs N=1, same mode"), so a
        // ratio agrees with the cells it is computed from, here and in the report.
        std::string vs_alone = "-";
        auto alone = cells.find({workload, params, mode, 1});
        if (alone != cells.end() && !alone->second.task_ms.empty() && !c.task_ms.empty())
          vs_alone = fmt_fixed(median(c.task_ms) / median(alone->second.task_ms), 2) + "x";
        const std::string runs = c.failed ? std::to_string(c.runs - c.failed) + "/" + std::to_string(c.runs) + " ok"
                                          : std::to_string(c.runs);
        out << line("%-*s %-*s %5d %13s %9s %12s %14s %s\n", workload_width, workload.c_str(), mode_width, mode.c_str(),
                    n, c.task_ms.empty() ? "-" : fmt_fixed(median(c.task_ms), 3).c_str(), vs_alone.c_str(),
                    fmt_fixed(tput, 1).c_str(), speedup.c_str(), runs.c_str());
      }
    }
  }
}

}  // namespace bench_mps::harness
