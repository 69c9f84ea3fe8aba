// N copies predicted: see prediction.hpp.
#include "harness/predict/prediction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/parallel.hpp"
#include "harness/common/stats.hpp"
#include "harness/model/scheduler_models.hpp"
#include "harness/model/xray_scheduler.hpp"
#include "harness/results/regime_rows.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/simulate/phases.hpp"
#include "harness/simulate/host_stretch.hpp"
#include "harness/simulate/replay.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The memory bandwidth share a copy uses while busy: GPM's DRAM bandwidth over its steady part, over its
/// busy share there (both of the one copy alone).
double mem_demand(double dram_bw, double duty, std::string& basis) {
  if (!(dram_bw >= 0) || !(duty > 0)) {
    basis = "no GPM DRAM bandwidth over the steady part: an older GPU or driver, or no profile window";
    return 0;
  }
  basis = "GPM DRAM bandwidth " + fmt_num(100 * dram_bw, 3) + "% over the duty " + fmt_num(100 * duty, 3) + "%";
  return std::min(1.0, dram_bw / duty);
}

/// `release_mono_s`: where the copy left the start gate (NaN: not gated), whose steady part counts from there, as
/// `predict --measure` counts it (gated_steady_part).
AloneRun alone_from_profile(const GpuProfile& p, double gap_us, double dram_bw, double release_mono_s,
                            const std::optional<PhaseFollow>& follow = std::nullopt) {
  AloneRun a;
  a.summary =
      gated_steady_part(p, summarise(p, std::max(gap_us, static_cast<double>(p.min_gap_ns) * 1e-3)), release_mono_s);
  a.program = trace_from_profile(p, a.summary, mem_demand(dram_bw, a.summary.duty, a.mem_basis), follow);
  a.mem_known = dram_bw >= 0 && a.summary.duty > 0;  // mem_demand's own test: else it gave 0 and said why
  a.unit_ms = a.program.unit_ns * 1e-6;
  if (!p.devices.empty()) a.gpu = p.devices.front().name;
  return a;
}

}  // namespace

std::vector<double> AloneRun::draws_unit_ms() const {
  std::vector<double> out;
  for (const AloneRun& d : draws) out.push_back(d.unit_ms);
  return out;
}

std::vector<double> AloneRun::draws_run_s() const {
  std::vector<double> out;
  for (const AloneRun& d : draws) out.push_back(d.run_s);
  return out;
}

std::vector<AloneRun> read_alone_draws(const fs::path& path, double gap_us) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    AloneRun a = alone_from_profile(read_gpu_profile(path), gap_us, NAN, NAN);  // a profile alone: no gate known
    a.mode = ModeKind::timeslice;
    a.mode_unknown = true;
    a.source = path.string();
    return {a};
  }
  if (!fs::is_directory(path, ec)) throw UsageError(path.string() + ": no such profile or results folder");
  const std::vector<SummaryRecord> rows = read_summary(path / "summary.csv");
  const std::vector<WorkerRecord> workers = read_runs(path / "runs.csv");
  std::vector<std::vector<AloneRun>> by_mode;  // each mode's draws, in kLadderModes' order
  std::vector<GpuProfile> profiles;            // each draw's, to read again with the ladder's phase
  std::vector<double> dram, release;           // and its GPM DRAM bandwidth, its release at the start gate
  std::vector<StepPhase> phases;               // the runs alone's without a metric of their own
  for (const ModeKind mode : kLadderModes) {
    std::vector<AloneRun>& draws = by_mode.emplace_back();
    std::string missing;  // the first ok run without a profile
    for (const SummaryRecord& row : rows) {
      const std::optional<Mode> ran = mode_in_results(row.mode);
      if (!ran || !is_plain(*ran, mode) || row.procs != 1 || row.status != RunStatus::ok ||
          !(row.scenario == RunKind::plain))
        continue;
      const auto w =
          std::find_if(workers.begin(), workers.end(), [&](const WorkerRecord& x) { return x.run_id == row.run_id; });
      if (w == workers.end()) throw ResultsError((path / "runs.csv").string() + ": no copy of run " + row.run_id);
      const std::vector<fs::path> files = gpu_profile_files(path / "profiles" / row.run_id / "w0");
      if (files.empty()) {
        if (missing.empty()) missing = row.run_id;
        continue;
      }
      profiles.push_back(busiest_profile(files));
      dram.push_back(w->fact("profile_gpm_dram_bw_util"));
      release.push_back(w->fact("gate_release_mono_s"));
      AloneRun a = alone_from_profile(profiles.back(), gap_us, dram.back(), release.back());
      if (!(w->fact("step_mean_ms") > 0)) phases.push_back(a.program.kept_phase);
      a.mode = mode;
      a.source = (path / row.run_id).string();
      a.run_s = w->fact("completion_s");
      if (!(a.run_s > 0)) a.run_s = row.task_mean_ms * 1e-3;
      if (const double m = w->fact("step_mean_ms"); m > 0) {
        a.unit_ms = m;
        a.metric = true;
      }
      draws.push_back(std::move(a));
    }
    if (!missing.empty())  // a draw left out silently would change which one stands for the program
      throw UsageError(path.string() + ": run " + missing + " has no GPU profile" +
                       (draws.empty() ? " (was the sweep run with --profile-gpu?)"
                                      : " (its profiles folder is missing or damaged; the other runs alone have one)"));
  }
  // One kind of step in every draw: the parts most runs alone kept (as `predict --measure` keeps in every copy).
  const std::optional<PhaseFollow> follow = ladder_follow(phases);
  std::size_t k = 0;
  std::vector<AloneRun> out;
  for (std::vector<AloneRun>& draws : by_mode) {
    for (AloneRun& a : draws) {
      const std::size_t i = k++;
      if (a.metric || !follow || follow->kept_by(a.program.kept_phase)) continue;
      AloneRun again = alone_from_profile(profiles[i], gap_us, dram[i], release[i], follow);
      a.program = std::move(again.program);
      a.unit_ms = again.unit_ms;
    }
    if (draws.empty()) continue;
    std::vector<std::size_t> order(draws.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return draws[x].unit_ms < draws[y].unit_ms; });
    AloneRun middle = draws[order[(order.size() - 1) / 2]];
    middle.draws = std::move(draws);
    out.push_back(std::move(middle));
  }
  return out;
}

std::vector<AloneRun> read_alone_runs(const fs::path& path, double gap_us) {
  std::vector<AloneRun> out = read_alone_draws(path, gap_us);
  if (out.empty() || out.front().mode != ModeKind::timeslice)
    throw UsageError(path.string() + ": no time-sliced run of one copy that ended ok (predict needs one copy alone)");
  return out;
}

void check_scheduler_bounds(const SchedulerFacts& s, const std::string& where) {
  // Far beyond what any card measured: a value outside is a damaged folder, and replayed it would take hours (a
  // slice of 1e-9 ms, a switch of 1e10 ms).
  const auto check = [&where](double v, double lo, double hi, const char* what, const char* unit) {
    if (!(v >= lo && v <= hi))
      throw ResultsError(where + " " + what + " " +
                         (std::isnan(v) ? std::string("(none: missing or null)") : fmt_num(v)) + " " + unit +
                         " is not a scheduler's (" + fmt_num(lo) + " to " + fmt_num(hi) + " " + unit + ")");
  };
  check(s.slice_ms, kSchedulerMinSliceMs, kSchedulerMaxMs, "slice", "ms");
  check(s.switch_ms, 0, kSchedulerMaxMs, "switch", "ms");
  check(s.turn_cost_ms, 0, kSchedulerMaxMs, "turn's cost", "ms");
  if (std::isfinite(s.hold_us)) check(s.hold_us, 0, kSchedulerMaxMs * 1000, "hold", "us");
}

SchedulerFacts read_scheduler(const fs::path& dir) {
  const SchedulerFacts s = scheduler_of(aggregate_xray(read_summary(dir / "summary.csv")));
  if (!s.usable()) throw ResultsError(dir.string() + ": no time-sliced X-ray at N >= 2 to read the scheduler from");
  check_scheduler_bounds(s, (dir / "summary.csv").string() + ": its X-ray's");
  return s;
}

namespace {

/// The simulator at N: per-unit and per-run, scaled to the copy's own measurements alone (the replay of one
/// copy is its trace again; what N copies add is the replay's difference). With phase draws, the mean over
/// them and their least and largest; without, one replay with copy c c/N of a step after copy 0.
struct Simulated {
  double unit_ms = NAN, run_s = NAN;
  double unit_low_ms = NAN, unit_high_ms = NAN, run_low_s = NAN, run_high_s = NAN;
};

/// One replay of `n` copies, copy c running traces[c] from offsets[c]: its unit and whole run, scaled.
Simulated simulate_once(const AloneRun& a, ModeKind mode, const SchedulerFacts& s, const Replay& one,
                        const std::vector<const CopyTrace*>& traces, const std::vector<double>& offsets) {
  const CopyTrace& t = a.program.trace;
  const std::unique_ptr<Arbiter> arbiter = scheduler_model(mode).arbiter(s, static_cast<int>(traces.size()));
  const Replay many = replay(traces, *arbiter, offsets);
  Simulated out;
  const double step1 = steady_step_ns(t, one), stepn = steady_step_ns(traces, many);
  if (a.metric) {
    out.unit_ms = a.unit_ms + (steady_response_ns(traces, many) - steady_response_ns(t, one)) * 1e-6;
  } else {
    out.unit_ms = a.unit_ms * stepn / step1;
  }
  if (std::isfinite(a.run_s)) {
    const double ratio = stepn / step1;
    const double dropped = a.program.dropped_ns * (std::isfinite(ratio) ? ratio - 1 : 0.0);
    out.run_s = a.run_s + (mean_run_ns(many, offsets) - mean_run_ns(one, {0.0}) + dropped) * 1e-9;
  }
  return out;
}

/// Mean, least and largest of some values.
struct FiniteSpread {
  double mean = NAN, low = NAN, high = NAN;
};

/// Of the finite values (NaN where none is).
FiniteSpread finite_spread(const std::vector<double>& v) {
  FiniteSpread out;
  double sum = 0;
  int n = 0;
  for (const double x : v) {
    if (!std::isfinite(x)) continue;
    sum += x;
    ++n;
    out.low = n == 1 ? x : std::min(out.low, x);
    out.high = n == 1 ? x : std::max(out.high, x);
  }
  if (n) out.mean = sum / n;
  return out;
}

/// `one`: the same copy replayed alone through `mode`'s arbiter (the basis every N is scaled from); `h` the
/// host's stretch at N (1: none).
Simulated simulate(const AloneRun& a, ModeKind mode, int n, const SchedulerFacts& s, const Replay& one, int phases,
                   double h) {
  const bool stretch = h != 1 && std::isfinite(h) && h > 0;  // else the trace as it is, not a copy of it
  const CopyTrace stretched = stretch ? stretch_host(a.program.trace, h) : CopyTrace{};
  const CopyTrace& t = stretch ? stretched : a.program.trace;
  if (phases <= 0) {  // copy c starts c/N of a step after copy 0, every copy its trace as recorded
    const double alone_step = a.program.trace.steady_step_ns();
    std::vector<double> offsets;
    for (int c = 0; c < n; ++c) offsets.push_back(std::isfinite(alone_step) ? alone_step * c / n : 0.0);
    return simulate_once(a, mode, s, one, std::vector<const CopyTrace*>(static_cast<std::size_t>(n), &t), offsets);
  }
  // The draws are independent replays: spread over the CPUs, each into its own slot (the same result on any count).
  const std::vector<PhaseDraw> draws = draw_phases(t, n, phases);
  std::vector<Simulated> each(draws.size());
  for_each_index(draws.size(), [&](std::size_t i) {
    const PhaseDraw& d = draws[i];
    std::vector<CopyTrace> rotated;
    rotated.reserve(d.shifts.size());
    for (const std::size_t shift : d.shifts) rotated.push_back(rotate_steady(t, shift));
    std::vector<const CopyTrace*> traces;
    for (const CopyTrace& r : rotated) traces.push_back(&r);
    each[i] = simulate_once(a, mode, s, one, traces, d.offsets_ns);
  });
  std::vector<double> units, runs;
  for (const Simulated& one_draw : each) {
    units.push_back(one_draw.unit_ms);
    runs.push_back(one_draw.run_s);
  }
  Simulated out;
  const FiniteSpread unit = finite_spread(units), run = finite_spread(runs);
  out.unit_ms = unit.mean;
  out.unit_low_ms = unit.low;
  out.unit_high_ms = unit.high;
  out.run_s = run.mean;
  out.run_low_s = run.low;
  out.run_high_s = run.high;
  return out;
}

/// A baseline's whole run: the copy's GPU-active part (its first busy span to its last) stretched by `loss`.
double stretched_run_s(const AloneRun& a, double loss) {
  if (!std::isfinite(a.run_s) || !std::isfinite(loss)) return NAN;
  return a.run_s + a.program.active_ns * 1e-9 * (loss - 1);
}

/// The regime model's loss at N in `mode` (advise's, without its ladder): time-sliced the midpoint of its
/// bracket (predict_timesliced_between), MPS its SMs' bound; `low`/`high` the bracket.
double regime_loss(const AloneRun& a, ModeKind mode, int n, const SchedulerFacts& s, double& low, double& high) {
  const ProfileSummary& m = a.summary;
  std::vector<RegimePoint> points;  // a turn per host wait where recorded, then per idle-gap burst
  if (m.waits_recorded && m.wait_step_ms > 0 && m.wait_burst_ms > 0 && m.wait_kernel_ms > 0)
    points.push_back({m.wait_step_ms, m.wait_burst_ms, std::min(m.wait_burst_ms, m.wait_kernel_ms), a.program.fill});
  if (m.burst_mean_ms > 0 && m.duty > 0)
    points.push_back({m.burst_mean_ms / m.duty, m.burst_mean_ms, m.burst_mean_ms, a.program.fill});
  low = high = NAN;
  if (points.empty()) return NAN;
  const SchedulerModel& model = scheduler_model(mode);
  const Prediction p = model.regime(points.front(), points.size() > 1 ? std::optional(points[1]) : std::nullopt, n, s);
  if (!model.regime_bracket) return p.loss;
  if (!std::isfinite(p.loss)) return NAN;
  low = p.loss;
  high = std::isfinite(p.upper) ? p.upper : p.loss;
  return (low + high) / 2;
}

}  // namespace

const AloneRun& program_alone(const std::vector<AloneRun>& alone) {
  return *std::min_element(alone.begin(), alone.end(), [](const AloneRun& a, const AloneRun& b) {
    return !(b.unit_ms <= a.unit_ms);  // the lowest unit; NaN never wins
  });
}

namespace {

/// Every run alone of both modes, each with its trace, where `every_draw` asks for them and there are two or more;
/// else none (the anchor alone is replayed).
std::vector<const AloneRun*> replayed_draws(const std::vector<AloneRun>& alone, bool every_draw) {
  std::vector<const AloneRun*> out;
  if (!every_draw) return out;
  for (const AloneRun& m : alone)
    for (const AloneRun& d : m.draws)
      if (d.unit_ms > 0) out.push_back(&d);
  if (out.size() < 2) out.clear();
  return out;
}

/// The cell from every draw's replay: each draw's unit at N over its own alone (its phases' least and largest
/// likewise) and what N added to its whole run, taken to `a` (the anchor) by their median; the least and largest
/// over the draws in place of one replay's phase spread.
Simulated from_draws(const AloneRun& a, const std::vector<Simulated>& sims, const std::vector<const AloneRun*>& draws) {
  std::vector<double> ratio, ratio_lo, ratio_hi, added, added_lo, added_hi;
  for (std::size_t i = 0; i < sims.size(); ++i) {
    const Simulated& x = sims[i];
    const AloneRun& d = *draws[i];
    const auto or_value = [](double end, double v) { return std::isfinite(end) ? end : v; };  // an end, else the value
    ratio.push_back(x.unit_ms / d.unit_ms);
    ratio_lo.push_back(or_value(x.unit_low_ms, x.unit_ms) / d.unit_ms);
    ratio_hi.push_back(or_value(x.unit_high_ms, x.unit_ms) / d.unit_ms);
    added.push_back(x.run_s - d.run_s);
    added_lo.push_back(or_value(x.run_low_s, x.run_s) - d.run_s);
    added_hi.push_back(or_value(x.run_high_s, x.run_s) - d.run_s);
  }
  Simulated out;
  out.unit_ms = a.unit_ms * median_finite(ratio);
  out.unit_low_ms = a.unit_ms * finite_spread(ratio_lo).low;
  out.unit_high_ms = a.unit_ms * finite_spread(ratio_hi).high;
  out.run_s = a.run_s + median_finite(added);
  out.run_low_s = a.run_s + finite_spread(added_lo).low;
  out.run_high_s = a.run_s + finite_spread(added_hi).high;
  return out;
}

}  // namespace

std::vector<PredictedRow> predict_cells(const std::vector<AloneRun>& alone, const SchedulerFacts& s,
                                        const std::vector<int>& procs, int phases, const HostCalibration& host,
                                        bool every_draw) {
  const AloneRun& a = program_alone(alone);
  const std::vector<const AloneRun*> draws = replayed_draws(alone, every_draw);
  // The runs replayed: the anchor, or every draw (the anchor among them); each replayed alone once per mode.
  const std::vector<const AloneRun*> replayed = draws.empty() ? std::vector<const AloneRun*>{&a} : draws;
  std::vector<PredictedRow> out;
  std::map<ModeKind, std::vector<Replay>> one;
  for (const ModeKind mode : kLadderModes) {
    const std::unique_ptr<Arbiter> arbiter = scheduler_model(mode).arbiter(s, 1);
    for (const AloneRun* d : replayed) one[mode].push_back(replay(d->program.trace, 1, *arbiter));
  }
  for (int n : procs)
    for (const ModeKind mode : kLadderModes) {
      PredictedRow c;
      c.mode = mode;
      c.procs = n;
      c.host_factor = host.at(mode, n);
      // Each run replayed is independent: with phase draws those spread over the CPUs inside simulate; without,
      // the runs do (never both: no pool inside a pool).
      std::vector<Simulated> each(replayed.size());
      const std::vector<Replay>& alone_replays = one.at(mode);  // looked up here, not by each thread
      const auto run_i = [&](std::size_t i) {
        each[i] = simulate(*replayed[i], mode, n, s, alone_replays[i], phases, c.host_factor);
      };
      if (phases > 0)
        for (std::size_t i = 0; i < replayed.size(); ++i) run_i(i);
      else
        for_each_index(replayed.size(), run_i);
      const Simulated sim = draws.empty() ? each.front() : from_draws(a, each, draws);
      c.phases = std::max(0, phases);
      c.unit_ms = sim.unit_ms;
      c.run_s = sim.run_s;
      c.unit_phase_low_ms = sim.unit_low_ms;
      c.unit_phase_high_ms = sim.unit_high_ms;
      c.run_phase_low_s = sim.run_low_s;
      c.run_phase_high_s = sim.run_high_s;
      const double naive = scheduler_model(c.mode).naive(a.summary.duty, n);
      c.naive_unit_ms = a.unit_ms * naive;
      c.naive_run_s = stretched_run_s(a, naive);
      double low = NAN, high = NAN;
      const double regime = regime_loss(a, mode, n, s, low, high);
      c.regime_unit_ms = a.unit_ms * regime;
      c.regime_run_s = stretched_run_s(a, regime);
      // The interval: the phases' least and largest, each over the anchor's spread (the least and the largest
      // alone draw over the one that stands for the program); NaN where neither has a spread.
      double u_lo = 1, u_hi = 1, r_lo = 1, r_hi = 1;
      const bool has_draws = a.draws.size() >= 2;
      if (has_draws) {
        const std::vector<double> units = a.draws_unit_ms(), runs = a.draws_run_s();
        const auto [ul, uh] = std::minmax_element(units.begin(), units.end());
        const auto [rl, rh] = std::minmax_element(runs.begin(), runs.end());
        u_lo = *ul / a.unit_ms, u_hi = *uh / a.unit_ms, r_lo = *rl / a.run_s, r_hi = *rh / a.run_s;
      }
      // (every draw replayed: their spread stands where the phase draws' would, with or without phases)
      const bool spread = c.phases > 0 || !draws.empty();
      if (has_draws || spread) {
        c.unit_low_ms = (spread ? sim.unit_low_ms : c.unit_ms) * u_lo;
        c.unit_high_ms = (spread ? sim.unit_high_ms : c.unit_ms) * u_hi;
        c.run_low_s = (spread ? sim.run_low_s : c.run_s) * r_lo;
        c.run_high_s = (spread ? sim.run_high_s : c.run_s) * r_hi;
      }
      if (low < high) {
        c.regime_low_ms = a.unit_ms * low;
        c.regime_high_ms = a.unit_ms * high;
      }
      out.push_back(c);
    }
  return out;
}

}  // namespace bench_mps::harness
