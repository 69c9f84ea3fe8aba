#pragma once
// hyperfine's "the first run was significantly slower than the rest", for the exec workload: a
// program's first run may pay for cold caches (its libraries and data in the page cache, CUDA's JIT
// and kernel caches, Python's bytecode) that later runs do not, and a mode measured first would look
// slower. Per exec configuration (mode, N) with at least 3 ok repeats, the first ok repeat's completion
// time (the mean over its copies) is compared with the median of the others. The sweep says it at
// its end and in meta.json (exec_slow_first_runs); the report's exec section under its table.
#include "harness/results/wing.hpp"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// A first repeat slower than this times the median of the others is called slow.
inline constexpr double kSlowFirstRunRatio = 1.25;

struct SlowFirstRun {
  std::string mode;
  int procs = 0;
  int first_repeat = 0;        ///< the first ok repeat
  int others = 0;              ///< ok repeats after it
  double first_s = 0;          ///< its completion time, mean over its copies
  double others_median_s = 0;  ///< the median of the others' completion times
};

/// The slow first runs among summary.csv's exec rows (plain runs, not the interference scenario's).
std::vector<SlowFirstRun> find_slow_first_runs(const std::vector<SummaryRecord>& rows);

/// One line: "exec mps N=1: its first repeat (r1) took 1.52 s, 1.40x the median of the other 4 (1.09 s)".
std::string describe_slow_first_run(const SlowFirstRun& slow);

/// For meta.json: {mode, procs, first_repeat, others, first_s, others_median_s, ratio}.
nlohmann::json slow_first_run_json(const SlowFirstRun& slow);

}  // namespace bench_mps::harness
