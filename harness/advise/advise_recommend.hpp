#pragma once
// What advise recommends from the ladder it ran: the mode, how many copies, and which thread limit,
// with the reasons in plain words and the numbers behind them. Only measured cells decide; the
// predictions are quoted beside them.
#include "harness/advise/wing.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "harness/advise/advise_model.hpp"

namespace bench_mps::harness {

enum class Verdict {
  mps,        ///< MPS: more throughput than time-slicing at the N advised
  timeslice,  ///< MPS buys nothing measurable (< 5%): copies may share the GPU time-sliced
  one_copy,   ///< sharing buys nothing in either mode: one copy at a time
  none,       ///< no configuration ran (or met the SLO)
};
const char* verdict_name(Verdict v);  ///< "mps", "timeslice", "one-copy", "none"

/// The ladder's choice before any thread limit: per mode the best throughput and the smallest N within
/// kKneeGain of it (the knee), over the cells that ran and met the SLO.
struct Pick {
  Verdict verdict = Verdict::none;
  int procs = 0;                      ///< the N advised (0: none)
  const MeasuredCell* cell = nullptr; ///< the advised cell
  const MeasuredCell* best_ts = nullptr;
  const MeasuredCell* best_mps = nullptr;
  double mps_gain = NAN;              ///< best MPS throughput over best time-sliced throughput
  /// At the N advised when throughput ties (a paced program serves its rate in either mode): the
  /// time-sliced unit time over MPS's; MPS is advised where it is at least 1 + kKneeGain (NaN: not compared)
  double mps_speedup = NAN;
};
Pick pick(const std::vector<MeasuredCell>& ladder, double slo_p99_ms);

struct Recommendation {
  Verdict verdict = Verdict::none;
  std::string mode;        ///< what to pass to --modes (or set up): "timeslice", "mps", "mps:auto"; empty: none
  int procs = 0;
  std::string headline;    ///< one sentence
  std::vector<std::string> reasons;
};

/// The recommendation: `pick`'s, with the first of `limits` (the advised N under mps:auto, then under a
/// larger percentage, as far as measured) whose units ran at least 95% as fast as under unlimited MPS.
Recommendation recommend(const AloneFacts& alone, const std::vector<MeasuredCell>& ladder,
                         const std::vector<PredictedCell>& predicted, const std::vector<MeasuredCell>& limits,
                         double slo_p99_ms);

/// Units under `limit` run at this share of unlimited MPS's speed (its unit time over the limit's), or NaN.
double limit_keeps(const MeasuredCell& unlimited, const MeasuredCell& limit);
inline constexpr double kLimitKeeps = 0.95;  ///< a limit is advised where its units run at least this fast

}  // namespace bench_mps::harness
