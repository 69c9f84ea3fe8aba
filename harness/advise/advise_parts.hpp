#pragma once
// What the files of `bench_mps advise` share: the ladder's folders, predictions and finished advice
// (advise_parts.cpp), a stored advice.json read back (advise_redo.cpp) and the side-by-side advice, run and
// redone (advise_beside_run.cpp). Not for use outside the advise wing.
#include "harness/advise/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/advise/advise_ladder.hpp"
#include "harness/advise/advise_model.hpp"
#include "harness/advise/advise_output.hpp"
#include "harness/advise/advise_spec.hpp"

namespace bench_mps::harness {

/// Where a set added to settle the verdict goes: sweeps/more-<round>-<mode>-n<N>.
std::string more_folder(int round, const std::string& mode, int n);
/// Where a thread limit's sweep goes: mps:auto in sweeps/limits, the doubled share in sweeps/limits-2x.
std::string limit_folder(const Mode& mode);

/// A program profiled alone: the simulator's predictions from its trace (docs/PREDICT.md); bench_mps's own
/// workloads (no trace: their events place them) and a program whose profile cannot be replayed: the regime
/// model's (docs/REGIMES.md). `phases`: the simulator's phase draws (advice.json's advise.phase_draws; a folder
/// stored before them: 0, its one replay).
std::vector<PredictedCell> predictions(const std::filesystem::path& alone_dir, const UnitChoice& unit, double gap_us,
                                       const AloneFacts& alone, const SchedulerFacts& sched, int max_procs, int phases);

/// Everything the ladder's cells decide: losses and throughputs on the ladder's own N=1, the MPS
/// predictions anchored to one copy alone under MPS, and the recommendation.
void finish_advice(Advice& advice, double slo_p99_ms);

/// The headline and reasons on screen, and where advice.md is.
void print_advice(const Advice& advice, const std::filesystem::path& out);

/// A stored advice.json or beside.json, parsed (ResultsError naming the file where it is not JSON).
nlohmann::json read_stored_json(const std::filesystem::path& file);

/// Why no more worker sets are run: see advise.hpp (why_no_more_sets).

/// `--beside B`: the subject and one copy of B side by side (harness/advise/advise_beside.hpp).
int run_beside(const AdviseSpec& spec);

/// `--redo DIR` on a side-by-side folder: its advice again from sweeps/beside, with this build's rules.
int redo_beside(const std::filesystem::path& dir);

}  // namespace bench_mps::harness
