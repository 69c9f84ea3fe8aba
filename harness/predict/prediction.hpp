#pragma once
// N copies of a program predicted from one copy alone in each mode and the X-ray (docs/PREDICT.md):
// by the simulator (its trace replayed through the scheduler), and beside it the two baselines the study
// holds it against: naive (time-sliced N copies share one GPU's worth: each unit N times as long; MPS:
// max(1, N x the busy share)) and the regime model of advise (model/regime_model.hpp, without the ladder).
// Nothing from a run of the program at N >= 2 enters a prediction.
#include "harness/predict/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "harness/predict/host_calibration.hpp"
#include "harness/predict/trace_from_profile.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/model/regime_model.hpp"
#include "harness/model/scheduler_models.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/simulate/gpu_models.hpp"

namespace bench_mps::harness {

/// One copy alone in one mode, as predict reads it.
struct AloneRun {
  ModeKind mode = ModeKind::timeslice;  ///< timeslice or mps
  bool mode_unknown = false;            ///< a bare profile, which records no mode: taken as time-sliced
  std::string source;                   ///< where it was read: the run's folder and id, or the profile file
  ProgramTrace program;
  ProfileSummary summary;
  double run_s = NAN;     ///< its whole run, start-up included (the command's completion); NaN: a bare profile
  double unit_ms = NAN;   ///< its unit alone: the program's metric, else the steady part's step between host waits
  bool metric = false;    ///< the unit is the program's own (a paced program's latency: --exec-metric)
  std::string mem_basis;  ///< how the memory bandwidth demand was had ("GPM DRAM bandwidth over the duty", or why none)
  bool mem_known = false;  ///< whether GPM measured it (else the replay takes it as 0: no memory contention)
  std::string gpu;         ///< the GPU its profile names ("" where it names none)
  /// Every ok run of one copy alone in its mode (this one included), in the sweep's order, each with its own trace
  /// (where read from a folder; their own `draws` empty): the anchor is one draw of a spread, carried into every
  /// prediction scaled from it (PredictedRow's low and high); `predict --draws all` replays each.
  std::vector<AloneRun> draws;
  /// The draws' units and whole runs, in their order.
  std::vector<double> draws_unit_ms() const;
  std::vector<double> draws_run_s() const;
};

/// The N=1 runs of a sweep (`path`: a results folder run with --profile-gpu; the time-sliced one required,
/// MPS's where it ran), or one profile-<pid>.json taken as time-sliced alone (no run time). Where a mode ran
/// one copy alone several times (profiled), the run of the middle unit stands for it (the lower middle of an
/// even count) and every run's unit and whole run are its draws. UsageError (exit 2) naming the file where
/// none can be read.
std::vector<AloneRun> read_alone_runs(const std::filesystem::path& path, double gap_us);
/// The same, whichever modes ran (none required; a bare profile is a time-sliced run): a calibration's sweep.
std::vector<AloneRun> read_alone_draws(const std::filesystem::path& path, double gap_us);

struct PredictedRow {
  ModeKind mode = ModeKind::timeslice;
  int procs = 0;
  double unit_ms = NAN, run_s = NAN;                 ///< the simulator's
  double naive_unit_ms = NAN, naive_run_s = NAN;     ///< naive
  double regime_unit_ms = NAN, regime_run_s = NAN;   ///< the regime model's (a bracket's midpoint)
  double regime_low_ms = NAN, regime_high_ms = NAN;  ///< its bracket, where it gives one
  /// The simulator's interval: its phase draws' least and largest (the value itself without draws), each over
  /// the alone draws' spread (the least and the largest draw over the one that stands for the program); NaN
  /// where there are neither phase draws nor two alone runs.
  double unit_low_ms = NAN, unit_high_ms = NAN, run_low_s = NAN, run_high_s = NAN;
  int phases = 0;  ///< the phase draws replayed (0: one replay, copy c c/N of a step after copy 0)
  /// The phase draws' least and largest alone (NaN without draws).
  double unit_phase_low_ms = NAN, unit_phase_high_ms = NAN, run_phase_low_s = NAN, run_phase_high_s = NAN;
  /// The host calibration's h at this mode and N, by which each copy's host was stretched (1: none given).
  double host_factor = 1;
};

/// The bounds of a scheduler read from a folder: a slice of at least 0.01 ms, and no slice, switch, turn's cost
/// or hold over 1000 ms (cards measure about 2 ms, 0.1 ms, 0.1 ms and 2 us).
inline constexpr double kSchedulerMinSliceMs = 0.01;
inline constexpr double kSchedulerMaxMs = 1000;

/// ResultsError naming `where` (e.g. "FILE: its X-ray's") where a value of `s` lies outside the bounds above.
void check_scheduler_bounds(const SchedulerFacts& s, const std::string& where);

/// The scheduler from an X-ray sweep's (or a regimes sweep's) summary.csv in `dir`; ResultsError where it
/// holds no time-sliced X-ray at N >= 2, or values outside the bounds above.
SchedulerFacts read_scheduler(const std::filesystem::path& dir);

/// The copy alone that stands for the program: the fastest of `alone` (the lowest unit). At N=1 the mode
/// shares nothing, and an alone run slower than another was slowed by something else (the zoo's two alone
/// runs of a program differed by up to 1.7x; docs/PREDICT.md "One copy alone").
const AloneRun& program_alone(const std::vector<AloneRun>& alone);

/// Both modes at each N of `procs`, from program_alone(alone): the simulator's value the mean over `phases`
/// phase draws (harness/simulate/phases.hpp), its interval their spread over the alone runs'; with `phases` 0
/// one replay of copies c/N of a step apart (the simulator before phases: advise's stored folders redo with it).
/// With a host calibration each of the N copies replays with its host stretched by h(mode, N)
/// (simulate/host_stretch.hpp); the copy alone that every N is scaled from is replayed as recorded.
/// With `every_draw` (`predict --draws all`) and two runs alone or more (both modes' `draws` together), each run's
/// own trace is replayed the same way: a cell's unit is program_alone's times the median over the runs of each
/// one's unit at N over its own alone, its whole run program_alone's plus the median of what N added to each; the
/// interval spans every run's (and phase draw's) least and largest, over the anchor's spread as above.
std::vector<PredictedRow> predict_cells(const std::vector<AloneRun>& alone, const SchedulerFacts& s,
                                        const std::vector<int>& procs, int phases, const HostCalibration& host = {},
                                        bool every_draw = false);

}  // namespace bench_mps::harness
