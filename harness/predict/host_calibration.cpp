#include "harness/predict/host_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "harness/common/csv_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/predict/calibration_ratio.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/workers/workload_kind.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The exec command of a run's params ("metric=...;command=..."): what follows "command=".
std::string command_of(const std::string& params) {
  const std::size_t at = params.find("command=");
  return at == std::string::npos ? std::string() : params.substr(at + 8);
}

}  // namespace

double HostCalibration::at(ModeKind mode, int n) const {
  if (n <= 1) return 1;
  double below_n = 1, below = 1, above_n = 0, above = 1;  // N = 1 is 1 by definition
  for (const HostFactor& f : factors) {
    if (f.mode != mode) continue;
    if (f.procs == n) return f.factor;
    if (f.procs < n && f.procs > below_n) below_n = f.procs, below = f.factor;
    if (f.procs > n && (above_n == 0 || f.procs < above_n)) above_n = f.procs, above = f.factor;
  }
  if (above_n == 0) return below;  // past the largest calibrated N: the largest's
  return below + (above - below) * (n - below_n) / (above_n - below_n);
}

std::string cpu_model_of(const fs::path& dir) {
  try {
    const nlohmann::json meta = read_meta(dir);
    if (meta.contains("host") && meta["host"].contains("cpu_model") && meta["host"]["cpu_model"].is_string())
      return meta["host"]["cpu_model"].get<std::string>();
  } catch (const ResultsError&) {
    // a folder without meta.json names no CPU
  }
  return "";
}

HostCalibration read_host_calibration(const fs::path& dir) {
  const std::string where = "--host-calibration " + dir.string();
  std::vector<WorkerRecord> runs;
  try {
    runs = read_runs(dir / "runs.csv");
  } catch (const ResultsError& e) {
    throw ResultsError(where + ": " + e.what());
  }
  HostCalibration c;
  c.folder = dir.string();
  c.cpu = cpu_model_of(dir);
  // Per mode and N: every ok copy's unit (each alone run is one copy).
  std::map<std::pair<ModeKind, int>, std::vector<double>> units;
  for (const WorkerRecord& w : runs) {
    if (parse_workload_kind(w.workload) != WorkloadKind::exec)
      throw ResultsError(where + ": run " + w.run_id + " is not an exec run");
    const std::optional<Mode> mode = mode_in_results(w.mode);
    if (!mode) throw ResultsError(where + ": run " + w.run_id + ": unknown mode '" + w.mode + "'");
    if (c.command.empty()) c.command = command_of(w.params);
    const double unit = w.fact("step_mean_ms");
    if (w.status != RunStatus::ok || !(unit > 0)) continue;
    for (const ModeKind kind : kLadderModes)
      if (is_plain(*mode, kind)) units[{kind, w.procs}].push_back(unit);
  }
  for (const ModeKind kind : kLadderModes) {
    const auto alone = units.find({kind, 1});
    if (alone == units.end()) continue;
    const double alone_ms = median(alone->second);
    for (const auto& [key, at_n] : units) {
      if (key.first != kind || key.second < 2) continue;
      HostFactor f;
      f.mode = kind;
      f.procs = key.second;
      f.alone_ms = alone_ms;
      f.at_n_ms = median(at_n);
      f.factor = calibration_ratio(f.at_n_ms, alone_ms, f.procs, where);
      f.copies = static_cast<int>(at_n.size());
      f.alone_runs = static_cast<int>(alone->second.size());
      c.factors.push_back(f);
    }
  }
  if (c.factors.empty())
    throw ResultsError(where +
                       ": no ok run alone and at N >= 2 in one mode with a unit (step_mean_ms: run it with "
                       "--exec-metric; scripts/device_steps/hostcal.sh)");
  return c;
}

}  // namespace bench_mps::harness
