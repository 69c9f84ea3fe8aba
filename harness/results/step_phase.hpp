#pragma once
// One kind of step: where a steady part holds phases of another kind (a test pass after training, evaluation
// batches after training steps, a slow stretch at its start), the unit follows one. The steps are cut at the
// ends given (a copy's counted host waits, in order); the cumulative time over the step index is fitted with
// two lines, and the split whose fit is closest (least squares) among those where one line's slope is at least
// kPhaseSlopeRatio times the other's parts the steady part there. The part that took longer is kept, and split
// once more the same way (kMaxPhaseCuts). docs/PREDICT.md "One kind of step". `bench_mps predict --measure`
// and predict's unit alone both follow it, so a unit measured and a unit predicted are of the same steps.
// Which part took longer can change with contention (a head of short host waits slowed 14x by nine other
// copies outlasts the tail it was shorter than alone), so in a ladder every copy keeps the parts its runs alone
// kept, by a split that keeps at least half as large a share of its steps as they did (ladder_follow): one kind
// of step at every N; and the copies of one gated run keep the same steps
// (shared_phase), cut on their mean time to each step end. Where the program marks its steps with an NVTX range
// (--exec-unit-range, the profile's unit_range), the steps its occurrences open in or span are that kind instead
// (range_phase), whatever their lengths, and steps of another kind between them are left out of the unit, not
// out of the steady part; unit_phase chooses, and the words say which.
#include "harness/results/wing.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bench_mps::harness {

/// How much faster one phase's steps must be than the other's for the steady part to be parted there.
inline constexpr double kPhaseSlopeRatio = 2.0;
/// A phase holds at least this many step ends, and at least kMinPhaseShare of them.
inline constexpr std::size_t kMinPhaseEnds = 5;
inline constexpr double kMinPhaseShare = 0.05;
/// At most this many splits (a slow head and an evaluation tail, say).
inline constexpr int kMaxPhaseCuts = 2;

/// Which part of a steady part a cut keeps: the one before the cut (a tail left out) or after it (a head).
enum class PhaseSide : std::uint8_t { before, after };
/// The parts a copy's cuts kept, in order (empty: never parted).
using PhaseSides = std::vector<PhaseSide>;

struct StepPhase;

/// A following cut keeps at least this share of what the runs alone kept (their median share of a steady part's
/// steps; ladder_follow).
inline constexpr double kFollowKeptShare = 0.5;

/// What a ladder's copies follow (ladder_follow): the parts its runs alone kept, and the least share of a steady
/// part's steps a cut may leave kept. A cut on the side the runs alone kept can still keep a short stretch where that
/// stretch runs at another pace than the rest: under MPS on an H200 (results/2026-12-04-regate) dcgan's two copies
/// kept steps 118-212 of 835, the stretch before the bulk of their training steps, where its runs alone kept about
/// 70 % of theirs. A split that keeps less than `least_kept_share` is passed over for the best one that keeps enough.
struct PhaseFollow {
  PhaseSides sides;
  double least_kept_share = 0;  ///< of the steady part's steps (0: any)
  // Implicit from a list of sides: followed with no least share.
  PhaseFollow(PhaseSides s = {}, double least = 0) : sides(std::move(s)), least_kept_share(least) {}
  /// Whether `p` already is what following this would keep: the same sides, and at least the least share.
  bool kept_by(const StepPhase& p) const;
};

/// The kept phase: the steps between ends[first] and ends[last] (first <= last; every end where none was left
/// out). `left_out_head`/`left_out_tail`: step ends before first / after last.
struct StepPhase {
  std::size_t first = 0, last = 0, ends = 0;
  double head_ratio = 0, tail_ratio = 0;  ///< the left-out head's / tail's step over the kept one's (0: none)
  PhaseSides sides;                       ///< the part each cut kept
  std::string range;                      ///< the NVTX range whose steps were kept ("" where the steps' lengths chose)
  /// With a range: of the steps between ends[first] and ends[last], which the unit counts (counted[i]: the step
  /// ending at ends[first + 1 + i]); the others, steps of another kind between the range's, stay in the steady
  /// part (they run, and share the GPU) but not in the unit. Empty: every step counts.
  std::vector<bool> counted;
  std::string note;  ///< why an NVTX range asked for did not choose ("" where none was asked or it chose)
  bool cut() const { return first > 0 || last + 1 < ends; }
  /// The kept steps' share of the steady part's (1 where it has no step).
  double kept_share() const { return ends > 1 ? static_cast<double>(last - first) / static_cast<double>(ends - 1) : 1; }
  /// Whether the unit counts the step ending at ends[k] (first < k <= last).
  bool counts(std::size_t k) const { return counted.empty() || counted[k - first - 1]; }
  /// "whole steady part", "steps 38-755 of 755 (left out: a head of 37 ends at 4.40x the step)", or with a
  /// range "steps 2-41 of 60 in NVTX range 'train'" (and where steps of another kind lie between its steps,
  /// "(32 of them; 8 others between left out)"); a note before them where a range asked for did not choose.
  std::string words() const;
};

/// The sides a phase's words (StepPhase::words) say its cuts kept: {after} where they left out a head alone, {before}
/// a tail alone, {after, before} both, {} the whole steady part; none where they do not say (an NVTX range chose, no
/// words, words of another kind). What a stored units.csv, which keeps the words alone, can tell of its copies' sides.
std::optional<PhaseSides> sides_in_words(const std::string& words);

/// A span on the ends' clock: one occurrence of an NVTX range, {start, end}.
using RangeSpan = std::pair<std::int64_t, std::int64_t>;

/// `ends`: step ends in order (ns, any origin). Fewer than 2 x kMinPhaseEnds + 2 ends are never parted.
/// `follow` (a ladder's runs alone's sides): each cut keeps the part it names, not the longer one, among the splits
/// that leave at least its least share of the steps kept, and no more cuts are made than it holds (none where the
/// runs alone were never parted).
StepPhase main_phase(const std::vector<std::int64_t>& ends, const std::optional<PhaseFollow>& follow = std::nullopt);

/// Of the steps between `ends` (step k from ends[k-1] to ends[k]), the range's: those in which an occurrence of
/// `name` in `ranges` (on the ends' clock, any order) opens, or which one opened before spans to their end (one
/// that closes a sliver into a step does not make it the range's): kept from the first of them to the last, the
/// unit counting them alone (StepPhase::counted). None where no step is the range's.
std::optional<StepPhase> range_phase(const std::vector<std::int64_t>& ends, std::vector<RangeSpan> ranges,
                                     const std::string& name);

/// The NVTX range a profile followed, for unit_phase: its name ("" where none was asked), whether its
/// occurrences were recorded (`why_not` otherwise) and they, on the ends' clock.
struct FollowedRange {
  std::string name, why_not;
  std::vector<RangeSpan> spans;
};

/// The kept phase of a steady part: the range's steps where the range was recorded and a step is its
/// (range_phase), else main_phase(ends, follow) with a note saying why the range did not choose.
StepPhase unit_phase(const std::vector<std::int64_t>& ends, const FollowedRange& range,
                     const std::optional<PhaseFollow>& follow = std::nullopt);

/// The phase a run's copies share: `ends` holds each copy's step ends (ns, each on its own origin), the copies held
/// at one start gate and released together, so that where each has as many ends its k-th closes the same step of the
/// program in every copy. main_phase(the copies' mean time from their first end to each, follow). None where fewer
/// than two copies or their counts differ.
std::optional<StepPhase> shared_phase(const std::vector<std::vector<std::int64_t>>& ends,
                                      const std::optional<PhaseFollow>& follow = std::nullopt);

/// The sides most of a ladder's runs alone kept (a tie: the earliest run's of them); none without a run alone.
std::optional<PhaseSides> ladder_sides(const std::vector<PhaseSides>& alone);

/// What a ladder's copies follow, from its runs alone's phases: the sides most of them kept (ladder_sides), and
/// kFollowKeptShare of the median share of their steps that those which kept them kept. None without a run alone.
std::optional<PhaseFollow> ladder_follow(const std::vector<StepPhase>& alone);

}  // namespace bench_mps::harness
