// predict's inputs checked before any work: see predict_inputs.hpp.
#include "harness/predict/predict_inputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/common/csv_table.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/summary_checks.hpp"
#include "harness/workers/workload_config.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// What a results folder is, as far as predict cares.
struct Folder {
  std::string gpu;                ///< meta.json's GPU name ("" where it ran on none)
  std::set<std::string> program;  ///< its exec runs' parameters (command, metric, check)
  int max_procs = 0;              ///< the largest N of its exec runs
  bool workloads_other = false;   ///< it ran other workloads too
};

Folder read_folder(const fs::path& dir, const std::string& option) {
  Folder f;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError(option + dir.string() + ": no such results folder");
  std::vector<SummaryRecord> rows;
  try {
    rows = read_summary(dir / "summary.csv");
  } catch (const ResultsError& e) {
    throw ResultsError(option + e.what());
  }
  for (const SummaryRecord& r : rows) {
    if (!runs_user_program(r.workload)) {
      f.workloads_other = true;
      continue;
    }
    f.program.insert(r.params);
    f.max_procs = std::max(f.max_procs, r.procs);
  }
  try {
    const SweepMeta meta = read_sweep_meta(dir);
    // No run of a program: a summary cut short is named as damaged, not taken for a folder of another workload (it
    // read "not a sweep of your program" for an exec sweep whose rows were gone).
    if (f.program.empty()) check_rows_match_meta(dir / "summary.csv", rows, meta);
    if (meta.gpu && meta.gpu->other.is_object()) f.gpu = meta.gpu->other.value("name", std::string());
  } catch (const ResultsError& e) {
    throw ResultsError(option + e.what());
  } catch (const nlohmann::json::exception&) {
    throw ResultsError(option + (dir / "meta.json").string() + ": the GPU's name is not a string");
  }
  return f;
}

/// The folders of `sweeps` (each a sweep of the --against folder), as one: their exec parameters together, the
/// largest N, and the GPU all of them ran on (ResultsError where two ran on different GPUs).
Folder read_sweeps(const std::vector<fs::path>& sweeps, const std::string& option) {
  Folder all;
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    const Folder f = read_folder(sweeps[i], option);
    all.program.insert(f.program.begin(), f.program.end());
    all.max_procs = std::max(all.max_procs, f.max_procs);
    all.workloads_other = all.workloads_other || f.workloads_other;
    if (i > 0 && f.gpu != all.gpu)
      throw ResultsError(option + sweeps[i].string() + ": ran on " + (f.gpu.empty() ? "no GPU" : f.gpu) + ", " +
                         sweeps.front().string() + " on " + (all.gpu.empty() ? "no GPU" : all.gpu));
    all.gpu = f.gpu;
  }
  return all;
}

std::string one_of(const std::set<std::string>& s) { return s.empty() ? std::string("none") : *s.begin(); }

/// --out not inside a folder predict reads (the alone folder, the X-ray, the ladder).
void check_out_apart(const PredictArgs& a) {
  for (const auto& [given, option] : {std::pair<const std::string*, const char*>{&a.alone, "the alone folder"},
                                      {&a.xray, "--xray"},
                                      {&a.against, "--against"}}) {
    std::error_code ec;
    if (given->empty() || !fs::is_directory(*given, ec)) continue;
    if (lies_inside(a.out, *given))
      throw UsageError("--out " + a.out + ": lies inside " + *given + ", " + option + ", which predict reads");
  }
}

}  // namespace

void check_predict_inputs(const PredictArgs& a) {
  std::error_code ec;
  const bool alone_folder = fs::is_directory(a.alone, ec);
  Folder alone;
  if (alone_folder) {
    alone = read_folder(a.alone, "");
    if (alone.program.empty())
      throw UsageError(a.alone + ": not a sweep of your program (it ran no --workloads exec run)");
  }
  if (!a.xray.empty()) {
    const Folder x = read_folder(a.xray, "--xray ");
    if (alone_folder && !alone.gpu.empty() && x.gpu.empty())
      throw UsageError("--xray " + a.xray + ": an X-ray of CPU stand-ins; the program ran on " + alone.gpu);
    if (alone_folder && !alone.gpu.empty() && x.gpu != alone.gpu)
      throw UsageError("--xray " + a.xray + ": an X-ray of " + x.gpu + "; the program ran on " + alone.gpu);
  }
  if (!alone_folder && !a.against.empty())
    throw UsageError("--against " + a.against + ": " + a.alone +
                     " is a profile alone, which names no program to check the ladder against (give the results "
                     "folder it was recorded in)");
  if (!a.out.empty()) check_out_apart(a);
  if (!a.against.empty()) {
    const Folder l = read_sweeps(against_sweeps(a.against), "--against ");
    // A ladder with its own runs alone (--exec-alone-runs) is both: its N=1 runs feed the prediction, its runs
    // of N >= 2 score it. A folder of runs alone only is refused as the alone folder itself.
    if (alone_folder && fs::equivalent(a.against, a.alone, ec) && l.max_procs < 2)
      throw UsageError("--against " + a.against + ": is the alone folder itself (give the ladder of N >= 2 copies)");
    if (l.program.empty())
      throw UsageError("--against " + a.against + ": not a sweep of your program (it ran no --workloads exec run)");
    if (l.max_procs < 2)
      throw UsageError("--against " + a.against + ": holds no run of N >= 2 copies (give the ladder, not a run alone)");
    if (alone_folder && l.program != alone.program)
      throw UsageError("--against " + a.against + ": another program (" + one_of(l.program) + ") than " + a.alone +
                       "'s (" + one_of(alone.program) + ")");
    if (alone_folder && l.gpu != alone.gpu)
      throw UsageError("--against " + a.against + ": ran on " + (l.gpu.empty() ? std::string("no GPU") : l.gpu) +
                       "; the program alone on " + (alone.gpu.empty() ? std::string("no GPU") : alone.gpu));
  }
  if (!a.out.empty()) check_folder_creatable(a.out, "--out");
}

void check_profiles_gpu(const PredictArgs& a, const std::vector<std::string>& profiles_gpu) {
  std::error_code ec;
  const bool alone_folder = fs::is_directory(a.alone, ec);
  const std::string meta_gpu = alone_folder ? read_folder(a.alone, "").gpu : std::string();
  std::string gpu = meta_gpu;  // what the program ran on: its folder's meta.json, else its profiles
  for (const std::string& g : profiles_gpu) {
    if (g.empty()) continue;
    if (!gpu.empty() && g != gpu)
      throw UsageError(a.alone + ": a profile of " + g + " among runs on " + gpu +
                       " (a profile of another GPU copied in)");
    gpu = g;
  }
  if (gpu.empty() || !meta_gpu.empty()) return;  // a folder naming its GPU was checked against --xray and --against
  const Folder x = read_folder(a.xray, "--xray ");
  if (x.gpu != gpu)
    throw UsageError("--xray " + a.xray + ": an X-ray of " + (x.gpu.empty() ? std::string("CPU stand-ins") : x.gpu) +
                     "; the program's profiles ran on " + gpu);
  if (!a.against.empty()) {
    const Folder l = read_sweeps(against_sweeps(a.against), "--against ");
    if (l.gpu != gpu)
      throw UsageError("--against " + a.against + ": ran on " + (l.gpu.empty() ? std::string("no GPU") : l.gpu) +
                       "; the program's profiles on " + gpu);
  }
}

std::vector<fs::path> against_sweeps(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "advice.json", ec) || !fs::is_directory(dir / "sweeps", ec)) return {dir};
  std::vector<fs::path> sweeps;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "sweeps", ec)) {
    const std::string name = e.path().filename().string();
    if ((name.rfind("ladder-", 0) == 0 || name.rfind("more-", 0) == 0) &&
        fs::is_regular_file(e.path() / "summary.csv", ec))
      sweeps.push_back(e.path());
  }
  if (sweeps.empty())
    throw UsageError("--against " + dir.string() +
                     ": an advise folder whose ladder wrote no summary.csv (sweeps/ladder-N)");
  std::sort(sweeps.begin(), sweeps.end());
  return sweeps;
}

}  // namespace bench_mps::harness
