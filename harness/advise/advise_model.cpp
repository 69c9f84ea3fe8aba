#include "harness/advise/advise_model.hpp"

#include "harness/advise/advise_spec.hpp"

#include <algorithm>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/common/word_table.hpp"
#include "harness/model/scheduler_models.hpp"
#include "harness/predict/prediction.hpp"

namespace bench_mps::harness {

double PredictedCell::throughput_low() const {
  return std::isfinite(prediction.upper) ? speed * procs / prediction.upper : throughput();
}

std::pair<double, double> PredictedCell::throughput_interval() const {
  if (!(loss_low > 0) || !(loss_high >= loss_low)) return {NAN, NAN};
  return {speed * procs / loss_high, speed * procs / loss_low};
}

MpsContention mps_contention(const AloneFacts& alone, const std::vector<MeasuredCell>& ladder) {
  MpsContention c;
  const MeasuredCell* one = find_measured(ladder, ModeKind::mps, 1);
  const MeasuredCell* two = find_measured(ladder, ModeKind::mps, 2);
  const double d = std::isfinite(alone.duty) ? alone.duty : alone.point.duty();
  if (!one || !two || !one->ok || !two->ok || !(one->unit_ms > 0) || !(two->unit_ms > 0) || !(d >= 0)) return c;
  c.measured = two->unit_ms / one->unit_ms - 1;
  c.cap = std::min(1.0, d) * std::min(1.0, d);
  c.per_copy = std::clamp(c.measured, 0.0, c.cap);
  return c;
}

void fit_to_ladder(std::vector<PredictedCell>& predicted, const AloneFacts& alone,
                   const std::vector<MeasuredCell>& ladder) {
  const MeasuredCell* mps = find_measured(ladder, ModeKind::mps, 1);
  const double speed = mps && mps->ok && mps->throughput() > 0 ? mps->throughput() : 1.0;
  const MpsContention contention = mps_contention(alone, ladder);
  for (PredictedCell& c : predicted) {
    if (c.mode != ModeKind::mps || c.simulated) continue;
    c.speed = speed;
    c.prediction = predict_mps(alone.point, c.procs);
    c.calibration = std::isfinite(contention.per_copy) && c.procs == 2;
    const double loss = 1 + (c.procs - 1) * contention.per_copy;
    if (std::isfinite(loss) && std::isfinite(c.prediction.loss) && loss > c.prediction.loss)
      c.prediction = {loss, NAN, "contention"};
  }
}

std::vector<PredictedCell> simulate_ladder(const std::filesystem::path& alone_dir, bool per_step, double gap_us,
                                           const SchedulerFacts& sched, int max_procs, int phases) {
  const std::vector<AloneRun> alone = read_alone_runs(alone_dir, gap_us);
  const AloneRun& a = program_alone(alone);
  std::vector<int> procs;
  for (int n = 2; n <= max_procs; ++n) procs.push_back(n);
  std::vector<PredictedCell> cells;
  for (const PredictedRow& r : predict_cells(alone, sched, procs, phases)) {
    PredictedCell c{r.procs, r.mode, {}};
    const double loss = per_step ? r.unit_ms / a.unit_ms : r.run_s / a.run_s;
    c.prediction = {std::max(1e-9, loss), NAN, "simulated"};
    c.loss_low = per_step ? r.unit_low_ms / a.unit_ms : r.run_low_s / a.run_s;
    c.loss_high = per_step ? r.unit_high_ms / a.unit_ms : r.run_high_s / a.run_s;
    c.simulated = true;
    cells.push_back(c);
  }
  return cells;
}

std::vector<PredictedCell> predict_ladder(const AloneFacts& alone, const SchedulerFacts& sched, int max_procs) {
  std::vector<PredictedCell> cells;
  if (!alone.placed()) return cells;
  for (int n = 2; n <= max_procs; ++n)
    for (const SchedulerModel& m : scheduler_models())
      cells.push_back({n, m.mode, m.regime(alone.point, alone.gap_point, n, sched)});
  return cells;
}

const PredictedCell* find_predicted(const std::vector<PredictedCell>& cells, ModeKind mode, int procs) {
  for (const PredictedCell& c : cells)
    if (c.mode == mode && c.procs == procs) return &c;
  return nullptr;
}

const MeasuredCell* find_measured(const std::vector<MeasuredCell>& cells, ModeKind kind, int procs) {
  for (const MeasuredCell& c : cells)
    if (c.is(kind) && c.procs == procs) return &c;
  return nullptr;
}

const MeasuredCell* find_measured(const std::vector<MeasuredCell>& cells, const Mode& mode, int procs) {
  for (const MeasuredCell& c : cells)
    if (c.mode.name == mode.name && c.procs == procs) return &c;
  return nullptr;
}

namespace {

constexpr WordTable<AloneSource, 2> kAloneSourceWords{
    {{AloneSource::events, "events"}, {AloneSource::profile, "profile"}}};
constexpr WordTable<LadderUnit, 3> kUnitWords{
    {{LadderUnit::task, "task"}, {LadderUnit::step, "step"}, {LadderUnit::run, "run"}}};
constexpr WordTable<Basis, 2> kBasisWords{{{Basis::unit, "unit"}, {Basis::run, "run"}}};

}  // namespace

const char* alone_source_word(AloneSource s) { return word_of(kAloneSourceWords, s).value_or("?").data(); }
const char* unit_word(LadderUnit u) { return word_of(kUnitWords, u).value_or("?").data(); }
const char* basis_name(Basis b) { return word_of(kBasisWords, b).value_or("?").data(); }
std::optional<Basis> parse_basis(const std::string& word) { return value_of(kBasisWords, word); }
std::string basis_words(Basis b, LadderUnit unit) {
  return b == Basis::unit ? "per " + std::string(unit_word(unit)) : std::string("per whole run");
}
bool is_basis_word(const std::string& word) {
  enum class Asked { auto_basis, unit, run };
  constexpr WordTable<Asked, 3> kAsked{{{Asked::auto_basis, "auto"}, {Asked::unit, "unit"}, {Asked::run, "run"}}};
  return value_of(kAsked, word).has_value();
}

BasisChoice choose_basis(std::optional<Basis> asked, const AloneFacts& alone) {
  const std::string unit = unit_word(alone.unit);
  if (alone.unit == LadderUnit::run)
    return {Basis::run, "the program is timed by its whole run (no --exec-metric): one basis"};
  if (asked == Basis::unit) return {Basis::unit, "per " + unit + ", as asked (--basis unit)"};
  if (asked == Basis::run) return {Basis::run, "per whole run, as asked (--basis run)"};
  if (alone.source ==
      AloneSource::events)  // bench_mps's workloads: how long a run is, is a setting of the benchmark (--tasks)
    return {Basis::unit,
            "bench_mps's own workload, whose run length is the benchmark's setting (--tasks), not a job's: "
            "its " +
                unit + "s decide"};
  if (!(alone.run_s > 0)) return {Basis::unit, "one run alone has no measured length: per " + unit};
  const std::string length =
      "one run alone took " + fmt_sig(alone.run_s) + " s" +
      (std::isfinite(alone.startup_s) ? " (" + fmt_sig(alone.startup_s) + " s of it start-up)" : "");
  if (alone.run_s < kRunBasisBelowS)
    return {Basis::run, length + ", under " + fmt_num(kRunBasisBelowS) + " s: the whole run a user pays for decides"};
  return {Basis::unit, length + ", " + fmt_num(kRunBasisBelowS) + " s or more: its " + unit + "s decide"};
}

std::vector<double> MeasuredCell::set_rates(Basis b) const {
  if (sets.empty()) return {b == Basis::unit ? per_s : run_per_s};
  std::vector<double> out;
  for (const SetMeasurement& s : sets)
    if (b == Basis::run || s.co_run) out.push_back(b == Basis::unit ? s.per_s : s.run_per_s);
  return out;
}

double alone_drift(const MeasuredCell& c, Basis b, std::size_t first_sets) {
  if (first_sets == 0 || c.sets.size() <= first_sets || !c.sets.back().after_ladder) return NAN;
  const auto rate = [b](const SetMeasurement& s) -> double {
    if (!s.ok || (b == Basis::unit && !s.co_run)) return NAN;
    return b == Basis::unit ? s.per_s : s.run_per_s;
  };
  double first = 0;
  for (std::size_t i = 0; i < first_sets; ++i) first += rate(c.sets[i]) / static_cast<double>(first_sets);
  const double last = rate(c.sets.back());
  return first > 0 && last > 0 ? last / first : NAN;
}

double alone_drift(const std::vector<MeasuredCell>& ladder, ModeKind mode, Basis b) {
  const MeasuredCell* c = find_measured(ladder, mode, 1);
  return c ? alone_drift(*c, b, kSetsPerRung) : NAN;
}

std::vector<double> MeasuredCell::set_unit_ms() const {
  if (sets.empty()) return {unit_ms};
  std::vector<double> out;
  for (const SetMeasurement& s : sets)
    if (s.co_run) out.push_back(s.unit_ms);
  return out;
}

int MeasuredCell::co_run_sets() const {
  return static_cast<int>(std::count_if(sets.begin(), sets.end(), [](const SetMeasurement& s) { return s.co_run; }));
}

void MeasuredCell::add(const SetMeasurement& set) {
  sets.push_back(set);
  check_values.insert(check_values.end(), set.check_values.begin(), set.check_values.end());
  ok = true;
  problem.clear();
  for (const SetMeasurement& s : sets)
    if (!s.ok && ok) {
      ok = false;
      problem = s.problem + (sets.size() > 1 ? " (worker set " + std::to_string(&s - sets.data() + 1) + " of " +
                                                   std::to_string(sets.size()) + ")"
                                             : std::string());
    }
  const auto over_sets = [this](double SetMeasurement::*field, bool co_run_only = false) {
    std::vector<double> v;
    for (const SetMeasurement& s : sets)
      if (!co_run_only || s.co_run) v.push_back(s.*field);
    return mean(v);  // NaN where a set has none: no mean of part of the sets
  };
  unit_ms = over_sets(&SetMeasurement::unit_ms, true);  // per unit: the sets whose copies ran together
  per_s = over_sets(&SetMeasurement::per_s, true);
  run_per_s = over_sets(&SetMeasurement::run_per_s);
  run_s = over_sets(&SetMeasurement::run_s);
  startup_s = over_sets(&SetMeasurement::startup_s);
  const double energy = over_sets(&SetMeasurement::energy_j), units = over_sets(&SetMeasurement::units);
  energy_per_unit_j = units > 0 ? energy / units : NAN;
  p99_ms = NAN;
  for (const SetMeasurement& s : sets)
    if (std::isfinite(s.p99_ms)) p99_ms = std::isfinite(p99_ms) ? std::max(p99_ms, s.p99_ms) : s.p99_ms;
}

std::string check_problem(const MeasuredCell& c, double reference, double tolerance_pct) {
  if (!std::isfinite(reference)) return "one copy alone printed no value for --check-metric";
  if (c.check_values.empty()) return "its copies printed no value for --check-metric";
  double worst = 0;
  for (const double v : c.check_values) {
    if (!std::isfinite(v)) return "a copy printed no value for --check-metric";
    const double off = reference == 0 ? (v == 0 ? 0 : INFINITY) : std::fabs(v / reference - 1);
    worst = std::max(worst, off);
  }
  if (worst * 100 <= tolerance_pct) return "";
  return "a copy's value ended " + fmt_fixed(100 * worst, 2) + " % from one copy alone's " + fmt_sig(reference) +
         " (tolerance " + fmt_num(tolerance_pct) + " %)";
}

std::string coverage_percent(double least, double most) {
  const std::string lo = fmt_fixed(std::floor(100 * least), 0), hi = fmt_fixed(std::floor(100 * most), 0);
  return hi == lo ? lo : lo + "-" + hi;
}

MeasuredCell& cell_for(std::vector<MeasuredCell>& cells, const Mode& mode, int procs) {
  for (MeasuredCell& c : cells)
    if (c.mode.name == mode.name && c.procs == procs) return c;
  MeasuredCell c;
  c.procs = procs;
  c.mode = mode;
  cells.push_back(c);
  return cells.back();
}

void set_losses(std::vector<MeasuredCell>& cells) {
  const MeasuredCell* alone = find_measured(cells, ModeKind::timeslice, 1);
  const double base = alone && alone->ok ? alone->unit_ms : NAN;
  const double base_per_s = alone && alone->ok ? alone->per_s : NAN;
  const double base_run = alone && alone->ok ? alone->run_per_s : NAN;
  for (MeasuredCell& c : cells) {
    c.loss = c.ok && base > 0 ? c.unit_ms / base : NAN;
    c.relative = c.ok && base_per_s > 0 ? c.per_s / base_per_s : NAN;
    c.relative_run = c.ok && base_run > 0 ? c.run_per_s / base_run : NAN;
  }
}

double Check::error() const {
  if (!(measured > 0) || !std::isfinite(predicted)) return NAN;
  if (std::isfinite(predicted_low) && predicted_low < predicted && measured >= predicted_low && measured <= predicted)
    return 0;
  const double nearest = std::isfinite(predicted_low) && measured < predicted_low ? predicted_low : predicted;
  return nearest / measured - 1;
}

int Check::inside() const {
  if (!std::isfinite(interval_low) || !std::isfinite(interval_high) || !(measured > 0)) return -1;
  return measured >= interval_low && measured <= interval_high ? 1 : 0;
}

std::string coverage_words(const std::vector<Check>& checks) {
  int with = 0, in = 0;
  for (const Check& c : checks)
    if (const int i = c.inside(); i >= 0) {
      ++with;
      in += i;
    }
  return with == 0 ? "" : std::to_string(in) + " of " + std::to_string(with);
}

std::vector<Check> check_predictions(const std::vector<PredictedCell>& predicted,
                                     const std::vector<MeasuredCell>& measured) {
  std::vector<Check> out;
  for (const MeasuredCell& m : measured) {
    if (m.procs < 2 || !m.ok) continue;
    for (const ModeKind mode : kLadderModes) {
      if (!m.is(mode)) continue;
      const PredictedCell* p = find_predicted(predicted, mode, m.procs);
      if (!p || !std::isfinite(p->prediction.loss) || p->calibration) continue;
      const auto [low, high] = p->throughput_interval();
      out.push_back({m.procs, mode, p->throughput(), p->throughput_low(), m.throughput(), low, high});
    }
  }
  return out;
}

double best_throughput(const std::vector<MeasuredCell>& cells, int procs, Basis basis) {
  double best = NAN;
  for (const ModeKind mode : kLadderModes) {
    const MeasuredCell* c = find_measured(cells, mode, procs);
    if (c && c->ok && std::isfinite(c->throughput(basis)))
      best = std::isfinite(best) ? std::max(best, c->throughput(basis)) : c->throughput(basis);
  }
  return best;
}

double rung_seconds_estimate(const std::vector<std::pair<int, double>>& done, int n) {
  if (done.empty()) return 0;
  const auto [n2, t2] = done.back();
  if (done.size() == 1 || n2 <= done[done.size() - 2].first) return t2 * n / n2;
  const auto [n1, t1] = done[done.size() - 2];
  const double per_copy = std::max(0.0, (t2 - t1) / (n2 - n1));
  return t2 + per_copy * (n - n2);
}

void GateHolds::add(double held_s, double p99_ms) {
  if (!std::isfinite(held_s)) return;
  max_s = std::isfinite(max_s) ? std::max(max_s, held_s) : held_s;
  if (!(held_s >= least_s)) {  // (NaN at first)
    least_s = held_s;
    least_p99_ms = p99_ms;
  }
}

void GateHolds::add(const GateHolds& other) {
  if (!std::isfinite(other.max_s)) return;
  add(other.least_s, other.least_p99_ms);
  max_s = std::max(max_s, other.max_s);
}

std::string knee_reason(const std::vector<MeasuredCell>& cells, int n, double previous_best, Basis basis,
                        LadderUnit unit) {
  if (n <= 1 || !std::isfinite(previous_best)) return "";
  for (const ModeKind mode : kLadderModes)
    if (const MeasuredCell* c = find_measured(cells, mode, n); c && c->ok && !std::isfinite(c->throughput(basis)))
      return "";
  const double best = best_throughput(cells, n, basis);
  if (!(best < (1 + kKneeGain) * previous_best)) return "";
  return "the knee: N=" + std::to_string(n) +
         (best < previous_best ? "'s best throughput " + basis_words(basis, unit) + " was " +
                                     fmt_fixed(100 * (1 - best / previous_best), 1) + " % below the rung before's"
                               : " raised the best throughput " + basis_words(basis, unit) + " by " +
                                     fmt_fixed(100 * (best / previous_best - 1), 1) + " % (under " +
                                     fmt_fixed(100 * kKneeGain, 0) + " %)");
}

}  // namespace bench_mps::harness
