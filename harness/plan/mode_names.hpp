#pragma once
// A mode as results files name it (the canonical name of Mode::name, the `mode` column): the names the
// readers compare against, and the name parsed back into its Mode for the questions they ask of it.
#include "harness/plan/wing.hpp"

#include <optional>
#include <string>

#include "harness/plan/sweep_spec.hpp"

namespace bench_mps::harness {

/// The canonical names of the two modes ratios are taken against: time-slicing, and MPS without limits.
inline const std::string kTimesliceMode = "timeslice";
inline const std::string kMpsMode = "mps";

/// A mode name parsed back: its Mode, and whether it was an --external-mps run ("external-<mode>").
struct NamedMode {
  Mode mode;
  bool external = false;
};
/// Nullopt for a name no sweep writes.
std::optional<NamedMode> mode_of_name(const std::string& name);

/// Any MPS option (+prio, +prio=, +mem=) or client list: what makes a mode more than its kind and percentage.
bool has_mps_options(const Mode& mode);
/// MPS with active-thread limits: mps:<pct>, mps:auto, mps:<p0>/<p1>/... (with any options).
bool is_limited_mps(const Mode& mode);
/// The same, of a name (false for a name no sweep writes).
bool is_limited_mps_mode(const std::string& name);

}  // namespace bench_mps::harness
