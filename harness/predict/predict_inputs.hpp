#pragma once
// What `bench_mps predict` is given, checked before any work (exit 2, one line naming the option): the alone
// folder is a sweep of the user's program (exec); --xray an X-ray of the same GPU model (not of CPU stand-ins
// where the program ran on a GPU); --against a ladder of the same program (its exec parameters: command,
// metric, check) on the same GPU model, with a run of N >= 2 copies; --out a folder it can write.
#include "harness/predict/wing.hpp"

#include "harness/predict/predict_cli.hpp"

namespace bench_mps::harness {

/// Throws UsageError (or ResultsError) naming the first input that is not what its option says.
void check_predict_inputs(const PredictArgs& args);

}  // namespace bench_mps::harness
