#pragma once
// A mode as results files name it (the canonical name of Mode::name, the `mode` column): the names the
// readers compare against, and the name parsed back into its Mode for the questions they ask of it.
#include "harness/plan/wing.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "harness/plan/sweep_spec.hpp"

namespace bench_mps::harness {

/// The canonical names of the two modes ratios are taken against: time-slicing, and MPS without limits.
inline const std::string kTimesliceMode = "timeslice";
inline const std::string kMpsMode = "mps";

/// The two modes a ladder runs and every ratio is taken against, as the type advise and predict hold them.
inline constexpr std::array<ModeKind, 2> kLadderModes{ModeKind::timeslice, ModeKind::mps};
/// The --modes word of a mode kind: "timeslice", "mps", "streams", "threads", "green".
std::string_view mode_kind_word(ModeKind kind);
/// Whether `mode` is the plain `kind` (no limit, no options, not external): `timeslice` or `mps` as a ladder
/// runs it, not `mps:auto` or `mps+prio`.
bool is_plain(const Mode& mode, ModeKind kind);

/// A mode name parsed back: its Mode, and whether it was an --external-mps run ("external-<mode>").
struct NamedMode {
  Mode mode;
  bool external = false;
};
/// Nullopt for a name no sweep writes.
std::optional<NamedMode> mode_of_name(const std::string& name);

/// The Mode a results file's `mode` column names (an external run's too); nullopt for a name no sweep writes.
std::optional<Mode> mode_in_results(const std::string& name);

/// Any MPS option (+prio, +prio=, +mem=) or client list: what makes a mode more than its kind and percentage.
bool has_mps_options(const Mode& mode);
/// MPS with active-thread limits: mps:<pct>, mps:auto, mps:<p0>/<p1>/... (with any options).
bool is_limited_mps(const Mode& mode);
/// The same, of a name (false for a name no sweep writes).
bool is_limited_mps_mode(const std::string& name);

}  // namespace bench_mps::harness
