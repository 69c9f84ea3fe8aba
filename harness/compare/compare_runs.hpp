#pragma once
// The core of `bench_mps compare`: pairs the ok runs of two results folders by configuration,
// summarises each side's repeats (median, worker sets, noise), tests the difference of the worker sets'
// means (Welch's t-test) and gives each pair a verdict. No I/O here; docs/COMPARE.md states the verdict rule.
#include "harness/compare/wing.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// What compare looks at in summary.csv.
enum class CompareMetric { throughput, p50, p99 };

/// "throughput", "p50" or "p99"; anything else is a UsageError.
CompareMetric parse_compare_metric(const std::string& name);
std::string metric_name(CompareMetric metric);
/// The summary.csv column: throughput_tasks_per_s, task_p50_ms or task_p99_ms.
std::string metric_column(CompareMetric metric);
/// Throughput: higher is better; per-task latencies: lower is better.
bool higher_is_better(CompareMetric metric);
double metric_value(const SummaryRecord& run, CompareMetric metric);

/// UNSURE: measured enough, too noisy (or not significant) to call; INSUFFICIENT: not measured enough to say
/// (fewer than two worker sets on a side, or runs of the configuration failed or were left out).
enum class Verdict { same, faster, slower, unsure, insufficient };
inline constexpr std::array<Verdict, 5> kAllVerdicts{Verdict::same, Verdict::faster, Verdict::slower, Verdict::unsure,
                                                     Verdict::insufficient};
/// "SAME", "FASTER", "SLOWER", "UNSURE", "INSUFFICIENT".
std::string verdict_name(Verdict verdict);

/// The default --threshold: 1%. It must stay below what a 3% slower kernel changes (2.4-3.2% of the
/// spin rows' throughput on an H100) and what a 5% slower mlp step changes once diluted by sharing
/// (1.4-3.0% at N>=4), and above what two runs of one build differ by where their repeats are tight
/// (at most 0.7% on the H100, docs/NOISE.md). A change inside the repeats' own range is never called
/// either way: noisy rows are UNSURE, not FASTER or SLOWER.
inline constexpr double kDefaultThresholdPct = 1;

struct CompareOptions {
  CompareMetric metric = CompareMetric::throughput;
  double threshold_pct =
      kDefaultThresholdPct;    ///< smallest change, in percent of the base median, worth a FASTER/SLOWER
  double alpha = 0.05;         ///< significance level of the Welch test on the worker sets' means
  bool ignore_params = false;  ///< pair on workload + mode + N alone (e.g. to compare a changed kernel)
};

/// Mean SM clocks of a pair farther apart than this fraction get flagged.
inline constexpr double kClockFlagFraction = 0.02;

/// One side's repeats of one configuration.
struct SideSummary {
  std::vector<double> values;     ///< the metric of every ok run (empty cells left out)
  double median = 0;              ///< NaN when there are no values
  std::vector<double> set_means;  ///< the metric's mean over each worker set (harness/results/worker_sets.hpp)
  std::size_t not_ok = 0;         ///< runs of this configuration that failed or were left out (status not ok)
  double spread = 0;        ///< configuration_noise: the ~94 % interval of the sets' mean, over it; NaN below two sets
  double sm_clock_mhz = 0;  ///< mean of the runs' sm_clock_mean_mhz; NaN when none was measured
};

struct ComparedPair {
  std::string workload, params, mode;
  int active_thread_pct = 0;  ///< 0 when time-sliced
  int procs = 0;
  SideSummary base, next;
  double change = 0;   ///< (new - base) / |base| of the medians; NaN when unknown
  double p_value = 0;  ///< two-sided Welch t-test of the worker sets' means; NaN when a side has fewer than two sets
  Verdict verdict = Verdict::unsure;
  std::string note;  ///< why, when UNSURE or INSUFFICIENT ("noise 12% > threshold", "too few worker sets", ...)
  /// The smallest change this pair could have called FASTER or SLOWER: the threshold, or the larger
  /// of the two sides' spreads where that is wider; NaN when a side has fewer than two worker sets.
  double detectable = 0;
  bool clock_flag = false;  ///< mean SM clocks differ by more than kClockFlagFraction
};

struct RunComparison {
  std::vector<ComparedPair> pairs;                     ///< grouped by workload + params, then mode, then N
  std::vector<std::string> only_in_base, only_in_new;  ///< configuration labels
  std::size_t base_not_ok = 0, new_not_ok = 0;         ///< runs left out for a status other than ok
  /// Interference runs ok but not side by side (fg_overlap under kMinCoRunCoverage): left out, and counted
  std::size_t base_not_side_by_side = 0, new_not_side_by_side = 0;
  /// Runs ok but without a value of the metric (an empty p99 cell): left out of their pair, and counted
  std::size_t base_no_value = 0, new_no_value = 0;
};

/// Pairs the ok runs of `base` and `next` by SummaryRecord::config_key() and judges every pair.
RunComparison compare_runs(const std::vector<SummaryRecord>& base, const std::vector<SummaryRecord>& next,
                           const CompareOptions& options);

/// ComparedPair::detectable: a change larger than this (and significant) would be FASTER/SLOWER.
double smallest_detectable_change(const SideSummary& base, const SideSummary& next, const CompareOptions& options);

/// The verdict rule (docs/COMPARE.md), with change and p_value already computed. `note` (may be
/// null) receives the reason of an UNSURE.
Verdict decide_verdict(const SideSummary& base, const SideSummary& next, double change, double p_value,
                       const CompareOptions& options, std::string* note = nullptr);

/// How many pairs got each verdict, in kAllVerdicts order.
std::array<std::size_t, kAllVerdicts.size()> count_verdicts(const RunComparison& comparison);

/// "spin blocks=4;... mps n=4": a configuration as people read it.
std::string config_label(const std::string& workload, const std::string& params, const std::string& mode, int procs);

}  // namespace bench_mps::harness
