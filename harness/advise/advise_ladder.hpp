#pragma once
// advise's child sweeps read back: one copy alone (its regime point, from the events bench_mps's
// workloads record or the CUPTI profile of a program), the X-ray's scheduler facts, and the ladder's
// cells (one mode at one N each).
#include "harness/advise/wing.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/advise/advise_model.hpp"
#include "harness/predict/prediction.hpp"  // read_scheduler
#include "harness/model/regime_model.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/results/profile_window.hpp"

namespace bench_mps::harness {

/// How the ladder times a unit of the subject.
struct UnitChoice {
  bool exec = false;    ///< a program (exec): its profile places it, its copies' facts time it
  bool metric = false;  ///< exec with --exec-metric: the program's steps are the unit
  /// exec without --exec-metric whose copy alone has a step between host waits: every child sweep is profiled
  /// and the unit is predict's (harness/predict/measured_units.hpp), over each run's common window, from the
  /// sweep's units.csv (write_ladder_units); a run whose copies did not run together has no unit (not co-run).
  bool profiled = false;
  /// --exec-metric-kind latency: a step's number is a request's latency; throughput is the lines' rate
  bool latency = false;
};

/// A program's UnitChoice from the workload options: profiled where it has no --exec-metric and `profiled`.
UnitChoice unit_choice(const SweepSpec& workload, bool profiled);

/// units.csv of a profiled child sweep in `dir`, measured from its profiles (measure_units) and written beside
/// them: what read_alone and read_cells read where the unit is profiled. ResultsError where it cannot be.
void write_ladder_units(const std::filesystem::path& dir, double gap_us);

/// One copy alone from the time-sliced N=1 run of the sweep in `dir` (ResultsError if unreadable). Profiled
/// (`unit.profiled`): its unit is its step from `dir`/units.csv (LadderUnit::step), or, where its copy has none,
/// its whole run (LadderUnit::run, AloneFacts::unit_basis says why).
/// `window` (where given): NVML and GPM over its profile's steady part, where its copy's facts hold them
/// (docs/PROFILE.md "One clock"); left empty otherwise.
AloneFacts read_alone(const std::filesystem::path& dir, const UnitChoice& unit, double gap_us,
                      std::optional<ProfileWindow>* window = nullptr);

/// Every (mode, N) run of the sweep in `dir`, appended to `cells` (losses not yet set).
void read_cells(const std::filesystem::path& dir, const UnitChoice& unit, std::vector<MeasuredCell>& cells);

/// One copy alone again after the ladder (sweeps/alone-last): each ok set of the sweep in `dir` appended to its mode's
/// N=1 cell in `ladder` (a set that failed is left out, so that one failed draw does not fail the anchor every ratio
/// divides by). Returns what was left out ("MPS: failed (...)"), "" where every set was added.
std::string add_alone_last(const std::filesystem::path& dir, const UnitChoice& unit, std::vector<MeasuredCell>& ladder);

}  // namespace bench_mps::harness
