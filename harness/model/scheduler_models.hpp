#pragma once
// The scheduler models, one row each (as nvbench registers its stopping criteria): the sharing mode a model
// covers, its arbiter in the simulator (harness/simulate/), its naive rule and its regime rule
// (regime_model.hpp). predict and advise look a mode's model up here instead of branching on the mode, so a new
// scheduler model is a row here, its arbiter, and its mode's word (docs/ARCHITECTURE.md "Recipes").
#include "harness/model/wing.hpp"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "harness/model/regime_model.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/simulate/gpu_models.hpp"
#include "harness/simulate/replay.hpp"

namespace bench_mps::harness {

struct SchedulerModel {
  ModeKind mode = ModeKind::timeslice;
  std::string_view name;  ///< in words: "time-slicing", "MPS"
  /// The simulator's arbiter of `copies` copies, given the X-ray's scheduler.
  std::unique_ptr<Arbiter> (*arbiter)(const SchedulerFacts& s, int copies) = nullptr;
  /// The naive rule: N copies' step over one copy's alone, from its busy share alone (`duty`).
  double (*naive)(double duty, int n) = nullptr;
  /// The regime model at N, from a turn per host wait (`waits`) and, where known, per idle-gap burst (`gaps`).
  Prediction (*regime)(const RegimePoint& waits, const std::optional<RegimePoint>& gaps, int n,
                       const SchedulerFacts& s) = nullptr;
  /// Whether the regime rule gives a bracket (Prediction::upper) that predict reports as its range.
  bool regime_bracket = false;
};

/// Every model, in kLadderModes' order (time-slicing, then MPS).
const std::vector<SchedulerModel>& scheduler_models();
/// The model of `mode`; std::invalid_argument naming the mode where none covers it.
const SchedulerModel& scheduler_model(ModeKind mode);

/// The time-slicing arbiter's parameters from the X-ray's scheduler (a hold the X-ray did not probe: none).
TimeSliceModel timeslice_model(const SchedulerFacts& s);

}  // namespace bench_mps::harness
