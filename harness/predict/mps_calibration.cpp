// MPS contention, calibrated once per GPU: see mps_calibration.hpp.
#include "harness/predict/mps_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "harness/common/errors.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"
#include "harness/predict/calibration_ratio.hpp"
#include "harness/predict/prediction.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/simulate/replay.hpp"
#include "harness/workers/workload_kind.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

constexpr int kMaxFitRounds = 16;
/// The steady steps of a shape the fit replays: a shape repeats one step, and its calibration is of its steady
/// state; a profile's thousands of steps would only make the fit slow (each point replayed every round).
constexpr std::size_t kFitSteps = 400;
constexpr double kFitTolerance = 0.002;  ///< the fit stops where every point is reproduced within 0.2 %

/// The calibration's sweeps: `dir` itself where it holds runs.csv, else its folders that do, by name.
std::vector<fs::path> calibration_sweeps(const fs::path& dir, const std::string& where) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ResultsError(where + ": " + not_a_folder_why(dir));
  if (fs::exists(dir / "runs.csv", ec)) return {dir};
  std::vector<fs::path> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && fs::exists(e.path() / "runs.csv", ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  if (out.empty())
    throw ResultsError(where + ": neither a sweep (runs.csv) nor a folder of sweeps (scripts/device_steps/mpscal.sh)");
  return out;
}

/// One copy's SM share while busy: its steady items' shares weighted by their work.
double busy_sm_share(const CopyTrace& t) {
  double work = 0, weighted = 0;
  for (std::size_t k = t.steady_from; k < t.steady_to && k < t.steps.size(); ++k)
    for (const TraceItem& i : t.steps[k].items) {
      work += i.work_ns;
      weighted += i.work_ns * i.sm;
    }
  return work > 0 ? weighted / work : 0;
}

/// The first `most` steps of t's steady part alone, as a trace whose whole is steady (no hole, no warm-up).
CopyTrace steady_steps(const CopyTrace& t, std::size_t most) {
  CopyTrace out;
  out.mem_demand = t.mem_demand;
  for (std::size_t k = t.steady_from; k < t.steady_to && k < t.steps.size() && out.steps.size() < most; ++k)
    if (k != t.dropped_step) out.steps.push_back(t.steps[k]);
  out.steady_from = 0;
  out.steady_to = out.steps.size();
  out.dropped_step = out.steps.size();
  return out;
}

/// A shape's points: its trace alone (the MPS run alone) and its measured medians at each N >= 2 under MPS.
struct Shape {
  CopyTrace trace;
  std::vector<MpsCalibrationPoint> points;
};

Shape read_shape(const fs::path& sweep, double gap_us, const std::string& where, std::string& gpu) {
  const std::string name = sweep.filename().string();
  std::vector<WorkerRecord> runs;
  std::vector<AloneRun> alone;
  try {
    runs = read_runs(sweep / "runs.csv");
    alone = read_alone_draws(sweep, gap_us);
  } catch (const std::exception& e) {
    throw ResultsError(where + ": " + name + ": " + e.what());
  }
  const auto mps = std::find_if(alone.begin(), alone.end(), [](const AloneRun& a) { return a.mode == ModeKind::mps; });
  if (mps == alone.end())
    throw ResultsError(where + ": " + name +
                       ": no profiled MPS run of one copy that ended ok (run it with "
                       "--modes mps --profile-gpu: scripts/device_steps/mpscal.sh)");
  if (!gpu.empty() && !mps->gpu.empty() && mps->gpu != gpu)
    throw ResultsError(where + ": " + name + " ran on " + mps->gpu + ", the shapes before it on " + gpu);
  if (gpu.empty()) gpu = mps->gpu;
  std::map<int, std::vector<double>> units;  // N -> every ok MPS copy's unit
  for (const WorkerRecord& w : runs) {
    if (parse_workload_kind(w.workload) != WorkloadKind::exec)
      throw ResultsError(where + ": " + name + ": run " + w.run_id + " is not an exec run");
    const std::optional<Mode> mode = mode_in_results(w.mode);
    const double unit = w.fact("step_mean_ms");
    if (mode && is_plain(*mode, ModeKind::mps) && w.status == RunStatus::ok && unit > 0) units[w.procs].push_back(unit);
  }
  const auto at1 = units.find(1);
  if (at1 == units.end() || units.size() < 2)
    throw ResultsError(where + ": " + name +
                       ": no ok MPS run alone and at N >= 2 with a unit (step_mean_ms: run it with --exec-metric)");
  Shape s;
  s.trace = steady_steps(mps->program.trace, kFitSteps);
  if (s.trace.steps.empty()) throw ResultsError(where + ": " + name + ": its run alone has no steady steps to replay");
  const double sm = busy_sm_share(s.trace);
  for (const auto& [n, at_n] : units) {
    if (n < 2) continue;
    MpsCalibrationPoint p;
    p.shape = name;
    p.procs = n;
    p.sm = sm;
    p.mem = s.trace.mem_demand;
    p.alone_ms = median(at1->second);
    p.at_n_ms = median(at_n);
    p.copies = static_cast<int>(at_n.size());
    p.alone_runs = static_cast<int>(at1->second.size());
    p.measured = calibration_ratio(p.at_n_ms, p.alone_ms, n, where + ": " + name);
    s.points.push_back(p);
  }
  return s;
}

}  // namespace

MpsModel MpsCalibration::model() const {
  MpsModel m;
  for (const MpsCalibrationPoint& p : points)
    m.contention.push_back({p.procs, p.procs * p.sm, p.procs * p.mem, p.factor});
  return m;
}

double MpsCalibration::worst_fit() const {
  double worst = 0;
  for (const MpsCalibrationPoint& p : points) worst = std::max(worst, std::abs(p.reproduced / p.measured - 1));
  return worst;
}

namespace {

/// `trace`'s unit at `n` copies under `model`, copy c c/N of a step after copy 0 (ns).
double step_at(const CopyTrace& trace, int n, const MpsModel& model) {
  const double step = trace.steady_step_ns();
  std::vector<double> offsets;
  for (int c = 0; c < n; ++c) offsets.push_back(std::isfinite(step) ? step * c / n : 0.0);
  const std::unique_ptr<Arbiter> arbiter = make_mps_arbiter(model);
  return steady_step_ns(trace, replay(trace, n, *arbiter, offsets));
}

}  // namespace

double mps_replay_ratio(const CopyTrace& trace, int n, const MpsModel& model) {
  return step_at(trace, n, model) / step_at(trace, 1, model);
}

MpsCalibration read_mps_calibration(const fs::path& dir, double gap_us) {
  const std::string where = "--mps-calibration " + dir.string();
  MpsCalibration c;
  c.folder = dir.string();
  std::vector<Shape> shapes;
  for (const fs::path& sweep : calibration_sweeps(dir, where))
    shapes.push_back(read_shape(sweep, gap_us, where, c.gpu));
  // The share model's own answer, then the factors, fitted in rounds (a point's factor moves the replay at its own
  // sums most, but a replay's moments with fewer pieces running read the other counts' factors). One copy alone
  // runs as alone under any calibration (no factor for one piece): its step is replayed once per shape.
  std::vector<double> alone_ns;
  for (const Shape& s : shapes) alone_ns.push_back(step_at(s.trace, 1, MpsModel{}));
  const auto ratio = [&](std::size_t shape, int n, const MpsModel& model) {
    return step_at(shapes[shape].trace, n, model) / alone_ns[shape];
  };
  for (std::size_t k = 0; k < shapes.size(); ++k)
    for (MpsCalibrationPoint& p : shapes[k].points) {
      p.shares = ratio(k, p.procs, MpsModel{});
      if (!(p.shares > 0) || !std::isfinite(p.shares))
        throw ResultsError(where + ": " + p.shape + ": its trace alone has no steady steps to replay");
      p.factor = std::clamp(p.measured / p.shares, kMinContentionFactor, kMaxContentionFactor);
    }
  const auto all_points = [&] {
    MpsCalibration whole = c;
    for (const Shape& s : shapes) whole.points.insert(whole.points.end(), s.points.begin(), s.points.end());
    return whole;
  };
  // Each round replays every point with the factors so far and keeps them where their worst point is the best yet;
  // then moves each factor halfway (geometrically) towards measured over reproduced. A replay of small pieces that
  // hardly overlap answers a factor in steps, so a full step can overshoot; the best round is what is kept.
  std::vector<MpsCalibrationPoint> best;  // the best round's points: their factors and what those replayed
  double best_worst = std::numeric_limits<double>::infinity();
  for (c.fit_rounds = 0; c.fit_rounds < kMaxFitRounds && best_worst >= kFitTolerance;) {
    ++c.fit_rounds;
    const MpsModel model = all_points().model();
    double worst = 0;
    for (std::size_t k = 0; k < shapes.size(); ++k)
      for (MpsCalibrationPoint& p : shapes[k].points) {
        p.reproduced = ratio(k, p.procs, model);
        worst = std::max(worst, std::abs(p.reproduced / p.measured - 1));
      }
    if (worst < best_worst) {
      best_worst = worst;
      best = all_points().points;
    }
    for (Shape& s : shapes)
      for (MpsCalibrationPoint& p : s.points)
        p.factor =
            std::clamp(p.factor * std::sqrt(p.measured / p.reproduced), kMinContentionFactor, kMaxContentionFactor);
  }
  c.points = std::move(best);
  return c;
}

}  // namespace bench_mps::harness
