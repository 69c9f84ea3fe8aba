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
#include "harness/results/profile_window.hpp"

namespace bench_mps::harness {

/// How the ladder times a unit of the subject.
struct UnitChoice {
  bool exec = false;    ///< a program (exec): its profile places it, its copies' facts time it
  bool metric = false;  ///< exec with --exec-metric: the program's steps are the unit
};

/// One copy alone from the time-sliced N=1 run of the sweep in `dir` (ResultsError if unreadable).
/// `window` (where given): NVML and GPM over its profile's steady part, where its copy's facts hold them
/// (docs/PROFILE.md "One clock"); left empty otherwise.
AloneFacts read_alone(const std::filesystem::path& dir, const UnitChoice& unit, double gap_us,
                      std::optional<ProfileWindow>* window = nullptr);

/// Every (mode, N) run of the sweep in `dir`, appended to `cells` (losses not yet set).
void read_cells(const std::filesystem::path& dir, const UnitChoice& unit, std::vector<MeasuredCell>& cells);

}  // namespace bench_mps::harness
