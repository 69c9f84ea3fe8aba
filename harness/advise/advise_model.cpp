#include "harness/advise/advise_model.hpp"

#include <algorithm>

#include "harness/predict/prediction.hpp"

namespace bench_mps::harness {

const char* ladder_mode_name(LadderMode m) { return m == LadderMode::timeslice ? "timeslice" : "mps"; }

double PredictedCell::throughput_low() const {
  return std::isfinite(prediction.upper) ? speed * procs / prediction.upper : throughput();
}

MpsContention mps_contention(const AloneFacts& alone, const std::vector<MeasuredCell>& ladder) {
  MpsContention c;
  const MeasuredCell* one = find_measured(ladder, ladder_mode_name(LadderMode::mps), 1);
  const MeasuredCell* two = find_measured(ladder, ladder_mode_name(LadderMode::mps), 2);
  const double d = std::isfinite(alone.duty) ? alone.duty : alone.point.duty();
  if (!one || !two || !one->ok || !two->ok || !(one->unit_ms > 0) || !(two->unit_ms > 0) || !(d >= 0)) return c;
  c.measured = two->unit_ms / one->unit_ms - 1;
  c.cap = std::min(1.0, d) * std::min(1.0, d);
  c.per_copy = std::clamp(c.measured, 0.0, c.cap);
  return c;
}

void fit_to_ladder(std::vector<PredictedCell>& predicted, const AloneFacts& alone, const std::vector<MeasuredCell>& ladder) {
  const MeasuredCell* mps = find_measured(ladder, ladder_mode_name(LadderMode::mps), 1);
  const double speed = mps && mps->ok && mps->throughput() > 0 ? mps->throughput() : 1.0;
  const MpsContention contention = mps_contention(alone, ladder);
  for (PredictedCell& c : predicted) {
    if (c.mode != LadderMode::mps || c.simulated) continue;
    c.speed = speed;
    c.prediction = predict_mps(alone.point, c.procs);
    c.calibration = std::isfinite(contention.per_copy) && c.procs == 2;
    const double loss = 1 + (c.procs - 1) * contention.per_copy;
    if (std::isfinite(loss) && std::isfinite(c.prediction.loss) && loss > c.prediction.loss)
      c.prediction = {loss, NAN, "contention"};
  }
}

std::vector<PredictedCell> simulate_ladder(const std::filesystem::path& alone_dir, bool metric, double gap_us,
                                           const SchedulerFacts& sched, int max_procs) {
  const std::vector<AloneRun> alone = read_alone_runs(alone_dir, gap_us);
  const AloneRun& a = program_alone(alone);
  std::vector<int> procs;
  for (int n = 2; n <= max_procs; ++n) procs.push_back(n);
  std::vector<PredictedCell> cells;
  for (const PredictedRow& r : predict_cells(alone, sched, procs)) {
    PredictedCell c{r.procs, r.mode == "mps" ? LadderMode::mps : LadderMode::timeslice, {}};
    const double loss = metric ? r.unit_ms / a.unit_ms : r.run_s / a.run_s;
    c.prediction = {std::max(1e-9, loss), NAN, "simulated"};
    c.simulated = true;
    cells.push_back(c);
  }
  return cells;
}

std::vector<PredictedCell> predict_ladder(const AloneFacts& alone, const SchedulerFacts& sched, int max_procs) {
  std::vector<PredictedCell> cells;
  if (!alone.placed()) return cells;
  for (int n = 2; n <= max_procs; ++n) {
    cells.push_back({n, LadderMode::timeslice, predict_timesliced_between(alone.point, alone.gap_point, n, sched)});
    cells.push_back({n, LadderMode::mps, predict_mps(alone.point, n)});
  }
  return cells;
}

const PredictedCell* find_predicted(const std::vector<PredictedCell>& cells, LadderMode mode, int procs) {
  for (const PredictedCell& c : cells)
    if (c.mode == mode && c.procs == procs) return &c;
  return nullptr;
}

const MeasuredCell* find_measured(const std::vector<MeasuredCell>& cells, const std::string& mode, int procs) {
  for (const MeasuredCell& c : cells)
    if (c.mode == mode && c.procs == procs) return &c;
  return nullptr;
}

void set_losses(std::vector<MeasuredCell>& cells) {
  const MeasuredCell* alone = find_measured(cells, ladder_mode_name(LadderMode::timeslice), 1);
  const double base = alone && alone->ok ? alone->unit_ms : NAN;
  const double base_per_s = alone && alone->ok ? alone->per_s : NAN;
  for (MeasuredCell& c : cells) {
    c.loss = c.ok && base > 0 ? c.unit_ms / base : NAN;
    c.relative = c.ok && base_per_s > 0 ? c.per_s / base_per_s : NAN;
  }
}

double Check::error() const {
  if (!(measured > 0) || !std::isfinite(predicted)) return NAN;
  if (std::isfinite(predicted_low) && predicted_low < predicted && measured >= predicted_low && measured <= predicted)
    return 0;
  const double nearest = std::isfinite(predicted_low) && measured < predicted_low ? predicted_low : predicted;
  return nearest / measured - 1;
}

std::vector<Check> check_predictions(const std::vector<PredictedCell>& predicted, const std::vector<MeasuredCell>& measured) {
  std::vector<Check> out;
  for (const MeasuredCell& m : measured) {
    if (m.procs < 2 || !m.ok) continue;
    for (const LadderMode mode : {LadderMode::timeslice, LadderMode::mps}) {
      if (m.mode != ladder_mode_name(mode)) continue;
      const PredictedCell* p = find_predicted(predicted, mode, m.procs);
      if (!p || !std::isfinite(p->prediction.loss) || p->calibration) continue;
      out.push_back({m.procs, mode, p->throughput(), p->throughput_low(), m.throughput()});
    }
  }
  return out;
}

double best_throughput(const std::vector<MeasuredCell>& cells, int procs) {
  double best = NAN;
  for (const LadderMode mode : {LadderMode::timeslice, LadderMode::mps}) {
    const MeasuredCell* c = find_measured(cells, ladder_mode_name(mode), procs);
    if (c && c->ok && std::isfinite(c->throughput())) best = std::isfinite(best) ? std::max(best, c->throughput()) : c->throughput();
  }
  return best;
}

}  // namespace bench_mps::harness
