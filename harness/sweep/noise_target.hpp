#pragma once
// Repeats to a noise target (as nvbench's stdrel and hyperfine's min-runs): after a plain sweep's planned
// repeats, a configuration whose throughput is still noisier than --noise-target gets more repeats, one
// fresh set of worker processes each (the noise between sets is what the planned rounds share), until its
// noise meets the target, it has --max-repeats, or the added runs would pass --noise-time-cap seconds.
// Noise is compare's (harness/results/worker_sets.hpp: the ~94% Student-t interval of the mean of the
// worker sets' means, over that mean), which narrows as sets are added, so a configuration that meets the
// target is one compare can call SAME at that threshold. With the target on, a sweep plans two worker
// sets a configuration (sweep_cli); steady configurations stop there, noisy ones get the time.
#include "harness/sweep/wing.hpp"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/plan/sweep_spec.hpp"
#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

/// One configuration's repeats so far.
struct ConfigNoise {
  RunSpec config;          ///< the configuration (its first planned run)
  int repeats = 0;         ///< ok repeats
  int last_repeat = 0;     ///< the highest repeat number recorded, ok or not
  double noise = 0;        ///< configuration_noise; NaN with fewer than two worker sets
  bool met = false;        ///< noise <= the target
  double set_seconds = 0;  ///< what one more set is expected to take: its longest start-up + median round
};

/// The noise of every plain configuration in `rows` (the sweep's `plan`) against `target` (a fraction).
std::vector<ConfigNoise> config_noise(const std::vector<SummaryRecord>& rows, const std::vector<ModeBlock>& plan,
                                      double target);

/// Seconds an MPS block adds to its runs (the daemon's start and stop), for the time estimate.
inline constexpr double kMpsBlockSeconds = 0.5;

/// One more repeat for each configuration that misses the target and has fewer than `max_repeats`, as
/// far as their set_seconds fit in `seconds_left` (the sweep divides what is left of the cap by how much longer
/// the rounds before took than planned): one block per mode (in the sweep's mode order), each
/// run a set of its own; indices from `next_index`. `left_out_for_time` (may be null) is set when a
/// configuration that wanted a set did not fit.
std::vector<ModeBlock> plan_extra_repeats(const std::vector<ConfigNoise>& noise, const SweepSpec& spec, int& next_index,
                                          double seconds_left, bool* left_out_for_time = nullptr);

/// The seconds plan_extra_repeats expected `blocks` to take (each set's set_seconds in `noise`, each MPS block's
/// daemon).
double planned_seconds(const std::vector<ModeBlock>& blocks, const std::vector<ConfigNoise>& noise);

/// meta.json's `noise`: the target, the caps, what was added and each configuration's outcome.
nlohmann::json noise_json(const std::vector<ConfigNoise>& noise, const SweepSpec& spec, int added_runs, double added_s,
                          bool time_capped);

/// One line per configuration that missed the target ("" when all met), for the screen.
std::string noise_misses(const std::vector<ConfigNoise>& noise, const SweepSpec& spec, bool time_capped);

}  // namespace bench_mps::harness
