#pragma once
// `bench_mps report DIR` where DIR holds many results folders (at any depth: a Slurm job array's
// results/<cluster>/<node>-<gpu>/, a --gpus run's OUT/<i>-<gpu>/): the fleet report. One table per
// configuration (workload, parameters, mode, N) with a row per GPU: its median over its ok repeats,
// the fleet's median (the median of the GPUs' medians) and its deviation from it. A GPU is an outlier
// where its mean over its ok repeats, over the fleet median, has its ~94 % interval (Student's t) wholly beyond
// compare's threshold (--threshold, default as `bench_mps compare`); beyond it by the point alone it
// is "unsure". The statistics are compare's (metric_value, relative_spread, median). A folder that cannot be read
// is listed with the reason, never skipped. See docs/REPORT.md.
#include "harness/report/wing.hpp"

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/common/stats.hpp"
#include "harness/compare/compare_runs.hpp"
#include "harness/report/report.hpp"
#include "harness/report/report_fleet_conform.hpp"
#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// Registers the report subcommand's fleet options: --threshold, --metric.
void add_fleet_report_options(CLI::App& report_cmd, ReportArgs& args);
/// UsageError when a fleet option was given for a single results or comparison folder.
void check_no_fleet_options(const ReportArgs& args);
/// Reads the fleet below args.dir and writes args.dir/report.md; returns the exit code (2 when no
/// results folder is found at all; folders that cannot be read are listed in the report and on stderr).
int run_fleet_report(const ReportArgs& args, const std::string& title);

/// True where DIR is neither a results folder (meta.json, summary.csv) nor a comparison folder.
bool is_fleet_folder(const std::filesystem::path& dir);

/// One results folder of the fleet: where it is, the GPU and host it measured, its runs.
struct FleetMember {
  std::string label;                                      ///< its path below DIR, e.g. "cluster-a/node1-gpu0"
  std::string host, gpu_name, uuid, driver, status, mps;  ///< "-" where meta.json does not say
  std::vector<SummaryRecord> runs;
};

/// A folder that holds (or should hold) results but could not be read, and why.
struct FleetProblem {
  std::string label, reason;
};

struct FleetFolder {
  std::vector<FleetMember> members;
  std::vector<FleetConform> conforms;  ///< conform folders (conform.json), their own sweeps not counted as members
  std::vector<FleetProblem> problems;
};

/// Finds every results folder below `dir` (a folder with meta.json or summary.csv; not searched
/// further), every conform folder (conform.json; its sweeps/ are its own, not searched) and the
/// folders a --gpus index.json names, and reads each; defects become problems. `dir` itself may be
/// a conform folder.
FleetFolder read_fleet(const std::filesystem::path& dir);

/// One GPU's value of one configuration against the fleet.
struct FleetCell {
  std::size_t member = 0;           ///< index into FleetFolder::members
  SideSummary side;                 ///< its ok repeats: values, median, spread
  double deviation = std::nan("");  ///< (median - fleet median) / |fleet median|
  /// Its ok repeats' mean over the fleet median, with the mean's ~94 % interval (none with one repeat)
  RatioInterval vs_fleet{std::nan(""), std::nan(""), std::nan("")};
  bool outlier = false;  ///< vs_fleet's interval wholly beyond 1 +- the threshold
  bool unsure = false;   ///< vs_fleet beyond it by the point, its interval (or none) not wholly
};

struct FleetConfig {
  RunConfig config;  ///< workload, params, mode, active_thread_pct, procs (of its first run: repeat and id aside)
  double fleet_median = std::nan("");
  std::vector<FleetCell> cells;  ///< in member order
};

/// Every configuration found in the fleet (in order of first appearance), each GPU judged against
/// the median of the GPUs' medians with `options.metric` and `options.threshold_pct`.
std::vector<FleetConfig> judge_fleet(const FleetFolder& fleet, const CompareOptions& options);

/// report.md of the fleet.
std::string render_fleet_report(const FleetFolder& fleet, const std::vector<FleetConfig>& configs,
                                const CompareOptions& options, const std::string& title);

}  // namespace bench_mps::harness
