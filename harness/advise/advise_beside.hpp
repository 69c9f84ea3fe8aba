#pragma once
// `bench_mps advise --workload A --beside B` (or `--command 'A' --beside B`): two different programs side by
// side on one GPU, as a team putting an inference server beside a training job asks. One child sweep of the
// interference scenario (A the foreground, one copy of B the background, one of bench_mps's workloads) runs
// A alone, B alone and both together, time-sliced, under MPS and under MPS with B at below-normal priority,
// each in kBesideSets worker sets; per mode each one's throughput against itself alone and the pair's
// combined throughput (the ideal is 2: both as fast as alone), with intervals over the sets.
#include "harness/advise/wing.hpp"

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// Worker sets per mode of the side-by-side sweep.
inline constexpr int kBesideSets = 3;
/// beside.json's layout: 2 keeps A's p99 per set and adds `latency` (A's tail under MPS against time-sliced);
/// 3 keeps A's p99 in ms per set (`a_p99_ms`) and makes `latency` a ratio of those p99s themselves, under the MPS
/// mode the throughput verdict weighs.
inline constexpr int kBesideFormatVersion = 3;
/// The modes it runs: time-sliced, MPS, and MPS with the background (B) at below-normal priority.
inline constexpr const char* kBesideModes = "timeslice,mps,mps+prio";

/// One mode of the pair: per worker set, A's and B's throughput over themselves alone (same mode and set).
struct BesideMode {
  Mode mode;
  bool ok = false;
  std::string problem;                           ///< not ok: the first failed run's status and reason
  std::vector<double> a_kept, b_kept, combined;  ///< per set
  std::vector<double> a_p99;                     ///< per set: A's p99 unit time over A alone's (same mode and set)
  std::vector<double> a_p99_ms;                  ///< per set: A's p99 unit time beside B, ms
  std::vector<std::string> not_side_by_side;     ///< sets left out: B did not run beside A (their notes)
  bool apart = false;                            ///< not ok because no set ran side by side (none failed)
  double mean(const std::vector<double>& v) const;
};

struct BesideAdvice {
  std::string a, b;                      ///< the two subjects, in words
  std::vector<BesideMode> modes;         ///< in kBesideModes' order, as far as they ran
  std::string best;                      ///< the mode advised, "undecided", or "" where none ran ok
  RatioInterval gain{NAN, NAN, NAN};     ///< the best MPS mode's combined throughput over time-sliced's
  std::optional<Mode> latency_mode;      ///< the MPS mode the verdict weighs (none where no time-sliced or MPS ran ok)
  RatioInterval latency{NAN, NAN, NAN};  ///< A's p99 in latency_mode over A's p99 time-sliced, over the sets
  std::string headline;
  std::vector<std::string> reasons;
};

/// The pair's advice from the interference sweep's summary rows (interference, interference_fg/bg).
BesideAdvice beside_from_rows(const std::vector<SummaryRecord>& rows, const std::string& a, const std::string& b);

std::string beside_markdown(const BesideAdvice& advice, const std::string& machine);
nlohmann::json beside_json(const BesideAdvice& advice);
/// The sentence on A's tail latency: its p99 under the best MPS mode against time-sliced, with its interval.
std::string beside_latency_sentence(const BesideAdvice& advice);

}  // namespace bench_mps::harness
