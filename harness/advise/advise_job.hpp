#pragma once
// A job longer (or shorter) than the command advise timed: each N's measured start-up and unit composed into
// the job's time per copy (start-up + length x unit), so that a user who tests with one epoch hears what a
// hundred epochs get (docs/ADVISE.md "A longer job"). Pure arithmetic on the ladder's worker sets.
#include "harness/advise/wing.hpp"

#include <optional>
#include <string>
#include <vector>

#include "harness/advise/advise_model.hpp"
#include "harness/common/stats.hpp"

namespace bench_mps::harness {

/// A job's length as --job-length takes it: a number of the ladder's units per copy (`20000`), a multiple of the
/// command as given (`100x`), or how long one copy alone would run (`90s`, `45m`, `2h`).
struct JobLength {
  enum class Kind { units, times, seconds };
  Kind kind = Kind::times;
  double value = 1;
  std::string text;  ///< as given
};
/// The longest job --job-length takes, in units, multiples or seconds (31 years of one copy alone).
inline constexpr double kMaxJobLength = 1e9;
/// Nullopt for anything else (a sign, a zero, no decimal number, an unknown suffix, a part of a unit, over
/// kMaxJobLength once scaled), with why in `why` where given.
std::optional<JobLength> parse_job_length(const std::string& text, std::string* why = nullptr);
/// "100x the command as given", "20000 steps a copy", "2h of one copy alone".
std::string job_length_words(const JobLength& length, LadderUnit unit);

/// The ladder's answer for a job of one length: per mode the N whose copies finish the most jobs per second
/// (each set's copies over start-up + units x unit time), MPS's best over time-slicing's best with its interval.
struct JobVerdict {
  JobLength length;
  double units = NAN;               ///< the job's units per copy
  int ts_procs = 0, mps_procs = 0;  ///< each mode's best cell for the job
  /// Each mode's knee for the job: its fewest copies within kKneeGain of its best (the N advised; 1: one copy)
  int ts_knee = 0, mps_knee = 0;
  double ts_jobs = NAN, mps_jobs = NAN;  ///< the best cells' throughput in jobs of one copy alone (time-sliced)
  RatioInterval gain{NAN, NAN, NAN};     ///< MPS's best over time-slicing's best, per job
  std::string problem;                   ///< why there is no verdict ("": one)
  /// 1: MPS (the interval above 1 + kDecisionBand), -1: time-slicing (below), 0: can't tell.
  int side() const;
};
/// Cells over --slo-p99-ms (`slo_p99_ms`; NaN: none) are not advised for a job either: a step's p99 is the same
/// however long the job.
JobVerdict job_verdict(const std::vector<MeasuredCell>& ladder, LadderUnit unit, const JobLength& length,
                       double slo_p99_ms = NAN);

/// "For a job of 100x the command as given (31500 steps a copy): MPS at N=4, 1.21x (1.15-1.27) time-slicing's best
/// (N=4) per job." or why it cannot be said.
std::string job_sentence(const JobVerdict& v, LadderUnit unit);

/// The lengths advice.md states: the command as given, 10x and 100x, and `asked` where given.
std::vector<JobLength> stated_job_lengths(const std::optional<JobLength>& asked);

}  // namespace bench_mps::harness
