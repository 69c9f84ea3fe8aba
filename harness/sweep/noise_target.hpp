#pragma once
// Repeats to a noise target (as nvbench's stdrel and hyperfine's min-runs): after a plain sweep's planned
// repeats, a configuration whose throughput is still noisier than --noise-target gets more repeats, one
// fresh set of worker processes each (the noise between sets is what the planned rounds share), until its
// noise meets the target, it has --max-repeats, or the added runs have taken --noise-time-cap seconds.
// Noise is the width of the median's confidence interval over the repeats (median_confidence_interval:
// the whole range up to 8 repeats, narrower from 9) over the median, or that of the worker sets' means
// where it is wider (rounds of one set are not independent: harness/results/worker_sets.hpp): compare's
// noise, so a configuration that meets the target is one compare can call SAME at that threshold. Steady
// configurations stop at the planned repeats.
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
  double noise = 0;        ///< NaN with fewer than two ok repeats
  bool met = false;        ///< noise <= the target
};

/// Whether the sweep adds repeats for noisy configurations: a plain sweep (no scenario) with
/// --noise-target above 0; exec, whose runs take seconds to minutes, is left out.
bool noise_target_applies(const SweepSpec& spec);

/// The noise of every plain configuration in `rows` (the sweep's `plan`) against `target` (a fraction).
std::vector<ConfigNoise> config_noise(const std::vector<SummaryRecord>& rows, const std::vector<ModeBlock>& plan,
                                     double target);

/// One more repeat for each configuration that misses the target and has fewer than `max_repeats`:
/// one block per mode (in the sweep's mode order), each run a set of its own; indices from `next_index`.
std::vector<ModeBlock> plan_extra_repeats(const std::vector<ConfigNoise>& noise, const SweepSpec& spec, int& next_index);

/// meta.json's `noise`: the target, the caps, what was added and each configuration's outcome.
nlohmann::json noise_json(const std::vector<ConfigNoise>& noise, const SweepSpec& spec, int added_runs,
                          double added_s, bool time_capped);

/// One line per configuration that missed the target ("" when all met), for the screen.
std::string noise_misses(const std::vector<ConfigNoise>& noise, const SweepSpec& spec, bool time_capped);

}  // namespace bench_mps::harness
