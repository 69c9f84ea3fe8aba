#pragma once
// MPS contention, calibrated once per GPU (issue 45 item 2; docs/PREDICT.md "MPS contention, calibrated"): how N
// copies of a synthetic kernel shape slow each other under MPS where the share model (1 / max(1, the SM shares
// added up, the memory demands added up)) sees room for all. Read from sweeps of
// scripts/mps_calibration/contention_loop.py (the device step `mpscal`: N copies under MPS, each on its own core,
// released together by the start gate, profiled), one sweep a shape. Each shape's run alone gives its trace as
// predict reads a program's (its SM shares and memory demand); each N its measured slowdown. The contention factor
// of each (shape, N) is fitted so that the simulator's MPS arbiter, replaying the shape's own trace at N,
// reproduces what was measured; predict's MPS arbiter then uses the factors (gpu_models.hpp MpsModel). Nothing of a
// program predicted enters the calibration.
#include "harness/predict/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "harness/simulate/copy_trace.hpp"
#include "harness/simulate/gpu_models.hpp"

namespace bench_mps::harness {

/// One shape at one N.
struct MpsCalibrationPoint {
  std::string shape;               ///< its sweep folder's name (e.g. gemm8192)
  int procs = 2;                   ///< N
  double sm = 0, mem = 0;          ///< one copy's SM share (busy-weighted over its steady items) and memory demand
  double alone_ms = 0;             ///< the runs alone's median unit
  double at_n_ms = 0;              ///< the copies' median unit at N
  int copies = 0, alone_runs = 0;  ///< the ok copies at N and ok runs alone those are the medians of
  double measured = 1;             ///< at_n_ms / alone_ms
  double shares = 1;               ///< the replay at N without contention, its unit over its unit alone
  double factor = 1;               ///< the fitted contention factor (ContentionPoint::factor)
  double reproduced = 1;           ///< the replay at N with every fitted factor, over alone
};

struct MpsCalibration {
  std::string folder;  ///< as given
  std::string gpu;     ///< the GPU the shapes' profiles name
  std::vector<MpsCalibrationPoint> points;
  int fit_rounds = 0;  ///< rounds of the fit (each factor moved halfway towards measured over reproduced)

  bool empty() const { return points.empty(); }
  /// The arbiter's model: a contention point per (shape, N), N x the shape's shares.
  MpsModel model() const;
  /// The largest |reproduced / measured - 1| over the points.
  double worst_fit() const;
};

/// The bounds of a fitted factor (a shape slowed 8x beyond its shares, or sped 4x, is not contention).
inline constexpr double kMinContentionFactor = 0.25;
inline constexpr double kMaxContentionFactor = 8;

/// A shape's unit at `n` copies under `model`, over its unit alone: `trace` replayed through the MPS arbiter, copy c
/// c/N of a step after copy 0 (predict's replay without phase draws).
double mps_replay_ratio(const CopyTrace& trace, int n, const MpsModel& model);

/// Reads `dir`: one calibration sweep (runs.csv in it) or a folder of them (each shape's sweep in its own folder),
/// and fits the factors. Throws ResultsError where a sweep is not an exec sweep with --exec-metric, has no profiled
/// MPS run alone, no N >= 2 under MPS, or names another GPU than the others.
MpsCalibration read_mps_calibration(const std::filesystem::path& dir, double gap_us);

}  // namespace bench_mps::harness
