#pragma once
// `bench_mps history`: one configuration's worker-set means across many results folders (driver versions,
// dates), and where they changed. The method (docs/COMPARE.md "history"): a sequential test against the
// segment since the last change. Each folder in turn is judged against the pooled worker-set means of the
// folders since the last change, with compare's own verdict rule (Welch's test of the sets' means, the
// threshold, each side's noise); a FASTER or SLOWER folder is a change only when the next folder, judged
// against the same segment, says the same (it persists): the change is then called at that folder, with the
// ratio of the two folders' means to the segment's and its ~94 % interval (the worker sets' noise and the spread
// between the segment's folders, where it has two or more), and a new segment starts there.
// A folder the next one contradicts is a blip (not called, left out of the segment); a FASTER/SLOWER last
// folder is pending. A folder with under two worker sets or runs not ok is INSUFFICIENT: shown, never judged.
// No I/O here.
#include "harness/report/wing.hpp"

#include <cstddef>
#include <string>
#include <vector>

#include "harness/compare/compare_runs.hpp"

namespace bench_mps::harness {

/// One configuration in one folder.
struct HistoryPoint {
  std::size_t folder = 0;         ///< index into the history's folders
  std::vector<double> set_means;  ///< its worker sets' means of the metric
  std::size_t not_ok = 0;         ///< its runs that failed or were left out
  double mean = 0;                ///< the mean of set_means (NaN: none)
  double lower = 0, upper = 0;    ///< its ~94 % Student-t interval (NaN below two sets)
  bool sufficient() const;        ///< two sets or more and every run ok
};

/// A change that persisted: called at `at` (a folder index), confirmed by `confirmed_by` (the next folder).
struct HistoryChange {
  std::size_t at = 0, confirmed_by = 0, segment_from = 0;  ///< folder indices; the segment it is measured against
  Verdict direction = Verdict::same;                       ///< FASTER or SLOWER
  double ratio = 1, lower = 1, upper = 1;  ///< (at and confirmed_by's sets) over the segment's, ~94 % interval
  bool pending = false;                    ///< the last folder, not yet confirmed (confirmed_by: itself)
};

/// What the method found in one series.
struct SeriesChanges {
  std::vector<HistoryChange> changes;
  std::vector<std::size_t> blips;    ///< FASTER/SLOWER folders the next one did not confirm (not called)
  std::vector<std::size_t> pending;  ///< a FASTER/SLOWER last folder: the next folder must agree
  /// Each pending folder sized as a change would be, against its segment alone (confirmed_by: itself, not yet).
  std::vector<HistoryChange> pending_changes;
};

/// The method on one series, points in history order (see above).
SeriesChanges find_changes(const std::vector<HistoryPoint>& points, const CompareOptions& options);

/// A point of `set_means` and `not_ok` with its mean and interval filled in.
HistoryPoint make_point(std::size_t folder, std::vector<double> set_means, std::size_t not_ok);

}  // namespace bench_mps::harness
