#pragma once
// `bench_mps advise`: will MPS help this program, with how many copies and which limits?
//   1. the scheduler: a short time-slice X-ray (or --xray-from a folder that has one);
//   2. one copy alone, time-sliced: its regime point (a program's through --profile-gpu);
//   3. the model's prediction for N = 2 .. --max-procs, time-sliced and MPS;
//   4. a ladder of child sweeps, N = 1, 2, 4, ... (both modes, two worker sets each), stopping at the
//      knee (the best throughput rose by less than 5 %), at a broken --slo-p99-ms, at failures or at
//      the budget; then, while MPS's gain over time-slicing has an interval across +5 %, one more set
//      for the best cell of each mode (up to 8, within the budget);
//   5. mps:auto at the N advised, if MPS is advised and time is left (two sets);
// then advice.md, advice.json and plots/advice.png. Exit 0 with advice written, 1 when nothing ran.
#include "harness/advise/wing.hpp"

#include "harness/advise/advise_recommend.hpp"
#include "harness/advise/advise_spec.hpp"

#include <string>
#include <vector>

namespace bench_mps::harness {

int run_advise(const AdviseSpec& spec);

/// `--redo DIR`: the prediction, checks and recommendation again from DIR/sweeps and DIR/advice.json's
/// settings and scheduler (after the model changed), advice.md, advice.json and the figure rewritten.
/// `basis`: decide on it instead of the stored --basis (stored then); empty: as stored.
int redo_advice(const std::string& dir, const std::string& basis = "");

/// Why no more worker sets are run for an open verdict (`p.open()`): the cap of kMaxSetsPerCell, or a budget
/// that would not hold one more set of each (`seconds_per_round`, with a margin); "" : run one more of each.
std::string why_no_more_sets(const Pick& p, double seconds_left, double seconds_per_round);

/// The rungs: `spec.ladder` if given, else 1, 2, 4, ... below max_procs, then max_procs.
std::vector<int> ladder_rungs(const AdviseSpec& spec);

}  // namespace bench_mps::harness
