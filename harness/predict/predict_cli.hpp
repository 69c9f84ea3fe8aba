#pragma once
// `bench_mps predict`: the table of N copies from one profiled run alone and an X-ray, in seconds, with no
// ladder; `--against DIR` scores it against a sweep's measured units; `--measure DIR` writes DIR/units.csv
// (docs/PREDICT.md).
#include "harness/predict/wing.hpp"

#include <CLI/CLI.hpp>
#include <string>

#include "harness/simulate/phases.hpp"

namespace bench_mps::harness {

/// Which runs alone `predict` replays (--draws): the one that stands for the program, or every one.
enum class AloneDraws { one, all };
/// Its word on the command line and in predict.json ("one", "all").
const char* alone_draws_word(AloneDraws d);

struct PredictArgs {
  std::string alone;  ///< a results folder with N=1 runs under --profile-gpu, or a profile-<pid>.json
  std::string xray;   ///< an xray or regimes results folder of the same GPU
  std::string procs;  ///< "2,4,10"; empty: 2 .. max_procs
  int max_procs = 10;
  bool max_procs_given = false;  ///< --max-procs typed (refused beside --measure)
  std::string against;           ///< a sweep of the same program at N >= 2 to score against
  std::string measure;           ///< a sweep whose units to measure into its units.csv (nothing predicted)
  std::string out;               ///< a folder for predict.{csv,json,md} (new or empty)
  std::string label;             ///< the program's name in the outputs (default: the alone folder's name)
  double gap_us = 20;
  int phases = kDefaultPhaseDraws;  ///< --phases: phase draws replayed per cell (0: one replay, copies c/N apart)
  bool phases_given = false;        ///< --phases typed (refused beside --measure)
  std::string host_calibration;     ///< --host-calibration: a hostcal sweep (harness/predict/host_calibration.hpp)
  std::string mps_calibration;      ///< --mps-calibration: mpscal sweeps (harness/predict/mps_calibration.hpp)
  bool paced = false;  ///< --paced: its steps are due on the clock, replayed open-loop (harness/simulate/open_loop.hpp)
  AloneDraws draws = AloneDraws::one;  ///< --draws: the run alone that stands for the program replayed, or every one
};

CLI::App* add_predict_command(CLI::App& app, PredictArgs& args);
/// Runs it; UsageError (exit 2) for bad input, naming it.
int run_predict(const PredictArgs& args);

}  // namespace bench_mps::harness
