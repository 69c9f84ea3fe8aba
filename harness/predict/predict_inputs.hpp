#pragma once
// What `bench_mps predict` is given, checked before any work (exit 2, one line naming the option): the alone
// folder is a sweep of the user's program (exec); --xray an X-ray of the same GPU model (not of CPU stand-ins
// where the program ran on a GPU); --against a ladder of the same program (its exec parameters: command,
// metric, check) on the same GPU model, with a run of N >= 2 copies (a plain sweep, or an advise folder: its
// ladder's sweeps); --out a folder it can write.
#include "harness/predict/wing.hpp"

#include "harness/predict/predict_cli.hpp"

#include <filesystem>
#include <vector>

namespace bench_mps::harness {

/// Throws UsageError (or ResultsError) naming the first input that is not what its option says; --out inside a
/// folder predict reads is refused too.
void check_predict_inputs(const PredictArgs& args);

/// Once the runs alone are read: the GPU their profiles name (`profiles_gpu`, one per run alone; "" where one
/// names none) is one, the alone folder's where its meta.json names it, and, where it does not (or the program is
/// a profile alone), the X-ray's and the ladder's. UsageError naming the input where not.
void check_profiles_gpu(const PredictArgs& args, const std::vector<std::string>& profiles_gpu);

/// The sweeps --against `dir` names: an advise folder's ladder (its advice.json beside sweeps/ladder-N and the
/// sets added to settle the verdict, sweeps/more-K-MODE-nN; not its alone run, X-ray or thread limits), else
/// `dir` itself. UsageError for an advise folder whose ladder never wrote a summary.
std::vector<std::filesystem::path> against_sweeps(const std::filesystem::path& dir);

}  // namespace bench_mps::harness
