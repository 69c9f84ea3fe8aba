// predict's outputs: see predict_output.hpp.
#include "harness/predict/predict_output.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "harness/common/csv_table.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/json_text.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/predict/predict_columns.hpp"
#include "harness/results/results_writer.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / static_cast<double>(v.size());
}

std::string num(double v, int digits = 4) { return std::isfinite(v) ? fmt_sig(v, digits) : "-"; }
std::string err(double predicted, double measured) {
  if (!std::isfinite(predicted) || !std::isfinite(measured) || measured <= 0) return "-";
  return fmt_change(predicted / measured - 1);
}
nlohmann::json jnum(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

/// Whether `measured` lies in [low, high]: 1 inside, 0 outside, -1 where either is unknown.
int covered(double measured, double low, double high) {
  if (!std::isfinite(measured) || !std::isfinite(low) || !std::isfinite(high)) return -1;
  return measured >= low && measured <= high ? 1 : 0;
}

/// One cell on one basis (per unit, else per whole run) as a row of each table, scored against its measured runs `m` (null:
/// none) where `scored`. Returns whether the measured value lies in the simulator's interval (covered()).
int add_row(PredictTables& t, const PredictedRow& c, bool unit, const ScoredCell* m, const std::string& label,
            bool scored) {
  const char* basis = unit ? "unit" : "run";
  const double pred = unit ? c.unit_ms : c.run_s, naive = unit ? c.naive_unit_ms : c.naive_run_s,
               regime = unit ? c.regime_unit_ms : c.regime_run_s;
  const double pred_lo = unit ? c.unit_low_ms : c.run_low_s, pred_hi = unit ? c.unit_high_ms : c.run_high_s;
  const std::vector<double>* values = !m ? nullptr : unit ? &m->unit_ms : &m->run_s;
  const double meas = values ? mean_of(*values) : NAN;
  const int inside = covered(meas, pred_lo, pred_hi);
  const std::string unit_word = unit ? " ms" : " s";
  t.md << "| " << c.procs << " | " << mode_kind_word(c.mode) << " | " << (unit ? "unit" : "run") << " | " << num(pred)
       << (std::isfinite(pred) ? unit_word : "")
       << (std::isfinite(pred_lo) ? " (" + num(pred_lo) + "-" + num(pred_hi) + ")" : std::string()) << " | "
       << num(naive) << " | " << num(regime);
  if (unit && std::isfinite(c.regime_low_ms))
    t.md << " (" << num(c.regime_low_ms) << "-" << num(c.regime_high_ms) << ")";
  t.md << " |";
  if (scored)
    t.md << " " << num(meas) << " | " << err(pred, meas) << " | "
         << (inside < 0 ? "-"
             : inside   ? "yes"
                        : "no")
         << " | " << err(naive, meas) << " | " << err(regime, meas) << " | "
         << (values ? std::to_string(values->size()) : "0")
         << (m && m->failed ? " (+" + std::to_string(m->failed) + " failed)" : "")
         << (m && m->not_co_run ? " (+" + std::to_string(m->not_co_run) + " not co-run)" : "")
         << (m && m->other_phase ? " (+" + std::to_string(m->other_phase) + " other phase)" : "")
         << (unit && m && m->no_unit ? " (+" + std::to_string(m->no_unit) + " without a unit)" : "") << " |";
  t.md << "\n";
  double lo = NAN, hi = NAN;
  if (values && !values->empty()) {
    lo = *std::min_element(values->begin(), values->end());
    hi = *std::max_element(values->begin(), values->end());
  }
  PredictCsvRow row;
  row.program = label;
  row.mode = c.mode;
  row.procs = c.procs;
  row.unit = unit;
  row.predicted = pred;
  row.measured = meas;
  row.naive = naive;
  row.regime = regime;
  row.regime_low = unit ? c.regime_low_ms : NAN;
  row.regime_high = unit ? c.regime_high_ms : NAN;
  row.runs = values ? values->size() : 0;
  row.measured_min = lo;
  row.measured_max = hi;
  row.common_share = unit && m && m->copies ? static_cast<double>(m->common) / m->copies : NAN;
  row.predicted_low = pred_lo;
  row.predicted_high = pred_hi;
  row.phases = c.phases;
  row.covered = inside;
  row.host_factor = c.host_factor;
  t.csv << csv_line(column_cells(predict_csv_schema(), row));
  t.cells.push_back({{"mode", mode_kind_word(c.mode)},
                     {"procs", c.procs},
                     {"basis", basis},
                     {"predicted", jnum(pred)},
                     {"predicted_low", jnum(pred_lo)},
                     {"predicted_high", jnum(pred_hi)},
                     {"naive", jnum(naive)},
                     {"regime", jnum(regime)},
                     {"measured", jnum(meas)},
                     {"covered", inside < 0 ? nlohmann::json() : nlohmann::json(inside == 1)},
                     {"phases", c.phases},
                     {"host_factor", jnum(c.host_factor)},
                     {"runs", values ? values->size() : 0}});
  return inside;
}

/// A copy alone in predict.json: what it was, and its trace's steady part per step.
nlohmann::json alone_entry(const AloneRun& r, bool stands_for_program) {
  const CopyTrace& t = r.program.trace;
  double items = 0, work = 0, sm = 0, span = 0;
  std::size_t steps = t.steady_to - t.steady_from;  // less those of another kind (an NVTX range followed)
  for (std::size_t k = t.steady_from; k < t.steady_to; ++k) {
    if (!t.steps[k].counted) --steps;
    if (k == t.dropped_step || !t.steps[k].counted) continue;
    const TraceStep& st = t.steps[k];
    items += static_cast<double>(st.items.size());
    for (const TraceItem& i : st.items) {
      work += i.work_ns;
      sm += i.work_ns * i.sm;
    }
    if (!st.items.empty()) span += st.items.back().ready_ns + st.items.back().work_ns - st.items.front().ready_ns;
  }
  double busy = 0;  // the GPU's busy time over the whole trace (its kept spans)
  for (const TraceStep& st : t.steps)
    for (const TraceItem& i : st.items) busy += i.work_ns;
  return nlohmann::json{{"mode", mode_kind_word(r.mode)},
                        {"source", r.source},
                        {"stands_for_program", stands_for_program},
                        {"unit_ms", jnum(r.unit_ms)},
                        {"metric", r.metric},
                        {"open_loop", r.program.trace.open_loop},
                        {"run_s", jnum(r.run_s)},
                        {"draws_unit_ms", r.draws_unit_ms()},
                        {"draws_run_s", r.draws_run_s()},
                        {"duty", jnum(r.summary.duty)},
                        {"steps", t.steps.size()},
                        {"steady_steps", static_cast<double>(steps)},
                        {"items_per_step", jnum(steps > 0 ? items / static_cast<double>(steps) : NAN)},
                        {"kernel_ms_per_step", jnum(steps > 0 ? work / static_cast<double>(steps) * 1e-6 : NAN)},
                        {"burst_ms_per_step", jnum(steps > 0 ? span / static_cast<double>(steps) * 1e-6 : NAN)},
                        {"sm_share", jnum(work > 0 ? sm / work : NAN)},
                        {"mem_demand", t.mem_demand},
                        {"profile_s", r.program.profile_ns * 1e-9},
                        {"active_s", r.program.active_ns * 1e-9},
                        {"gpu_busy_s", busy * 1e-9},
                        {"dropped_s", r.program.dropped_ns * 1e-9},
                        {"cut", r.program.cut},
                        {"phase", r.program.kept_phase.words()}};
}

/// The three files, one after the other.
void write_tables(const PredictArgs& a, const fs::path& out, const std::string& label, const SchedulerFacts& sched,
                  const std::vector<AloneRun>& alone, const Calibrations& cal, const PredictTables& t) {
  const HostCalibration& host = cal.host;
  write_file_atomically(out / "predict.md", t.md.str());
  write_file_atomically(out / "predict.csv", t.csv.str());
  nlohmann::json j{{"predict_format_version", 1},
                   {"program", label},
                   {"alone", a.alone},
                   {"xray", a.xray},
                   {"scheduler",
                    {{"slice_ms", sched.slice_ms},
                     {"switch_ms", sched.switch_ms},
                     {"turn_cost_ms", sched.turn_cost_ms},
                     {"hold_us", jnum(sched.hold_us)},
                     {"hold_bound", sched.hold_bound}}},
                   {"phases", a.phases},
                   {"cells", t.cells}};
  if (a.draws != AloneDraws::one) j["draws"] = alone_draws_word(a.draws);  // (absent: one, as before --draws)
  if (!a.against.empty()) j["against"] = a.against;
  if (!host.empty()) {
    nlohmann::json factors = nlohmann::json::array();
    for (const HostFactor& f : host.factors)
      factors.push_back({{"mode", mode_kind_word(f.mode)},
                         {"procs", f.procs},
                         {"factor", jnum(f.factor)},
                         {"alone_ms", jnum(f.alone_ms)},
                         {"at_n_ms", jnum(f.at_n_ms)},
                         {"copies", f.copies},
                         {"alone_runs", f.alone_runs}});
    j["host_calibration"] =
        nlohmann::json{{"folder", host.folder}, {"command", host.command}, {"cpu", host.cpu}, {"factors", factors}};
  }
  if (!cal.mps.empty()) {
    nlohmann::json points = nlohmann::json::array();
    for (const MpsCalibrationPoint& p : cal.mps.points)
      points.push_back({{"shape", p.shape},
                        {"procs", p.procs},
                        {"sm_share", jnum(p.sm)},
                        {"mem_demand", jnum(p.mem)},
                        {"alone_ms", jnum(p.alone_ms)},
                        {"at_n_ms", jnum(p.at_n_ms)},
                        {"copies", p.copies},
                        {"alone_runs", p.alone_runs},
                        {"measured", jnum(p.measured)},
                        {"shares", jnum(p.shares)},
                        {"factor", jnum(p.factor)},
                        {"reproduced", jnum(p.reproduced)}});
    j["mps_calibration"] = nlohmann::json{{"folder", cal.mps.folder},
                                          {"gpu", cal.mps.gpu},
                                          {"fit_rounds", cal.mps.fit_rounds},
                                          {"worst_fit", jnum(cal.mps.worst_fit())},
                                          {"points", points}};
  }
  nlohmann::json jalone = nlohmann::json::array();
  const AloneRun& program = program_alone(alone);
  for (const AloneRun& r : alone) jalone.push_back(alone_entry(r, &r == &program));
  j["alone_runs"] = jalone;
  write_file_atomically(out / "predict.json", json_text(j, 1) + "\n");
}

}  // namespace

std::map<std::pair<std::string, int>, ScoredCell> measured_cells(const std::vector<MeasuredUnit>& units) {
  std::map<std::string, std::vector<const MeasuredUnit*>> runs;
  for (const MeasuredUnit& u : units) runs[u.run_id].push_back(&u);
  std::map<std::pair<std::string, int>, ScoredCell> out;
  for (const auto& [id, copies] : runs) {
    ScoredCell& c = out[{copies.front()->mode.name, copies.front()->procs}];
    bool ok = static_cast<int>(copies.size()) == copies.front()->procs;
    std::vector<double> run, unit;
    int common = 0;
    for (const MeasuredUnit* u : copies) {
      ok = ok && u->status == RunStatus::ok;
      run.push_back(u->run_s);
      unit.push_back(u->unit_ms);
      common += co_run(u->basis);
    }
    if (!ok) {
      ++c.failed;
      continue;
    }
    c.copies += static_cast<int>(copies.size());
    c.common += common;
    const auto any_copy = [&in_run = copies](UnitBasis b) {
      return std::any_of(in_run.begin(), in_run.end(), [b](const MeasuredUnit* u) { return u->basis == b; });
    };
    if (any_copy(UnitBasis::not_co_run)) {
      ++c.not_co_run;  // its copies did not run their steady parts together: neither basis measured N at once
      continue;
    }
    if (any_copy(UnitBasis::other_phase)) {
      ++c.other_phase;  // a copy's unit is of steps the prediction does not replay
      continue;
    }
    if (const double r = mean_of(run); std::isfinite(r)) c.run_s.push_back(r);
    if (const double u = mean_of(unit); std::isfinite(u))
      c.unit_ms.push_back(u);
    else
      ++c.no_unit;  // a copy without its unit: the run counts per whole run, not per unit
  }
  return out;
}

void write_md_head(std::ostringstream& md, const std::string& label, const std::vector<AloneRun>& alone,
                   const SchedulerFacts& sched, const std::string& xray, const Calibrations& cal, bool every_draw) {
  const HostCalibration& host = cal.host;
  md << "# Predicted: " << label << "\n\n";
  for (const AloneRun& r : alone) {
    const ProgramTrace& p = r.program;
    md << "- One copy alone, "
       << (r.mode_unknown            ? "taken as time-sliced"
           : r.mode == ModeKind::mps ? "MPS"
                                     : "time-sliced")
       << " (" << r.source << (r.mode_unknown ? "; a profile records no mode" : "") << "): "
       << (r.metric         ? "its metric "
           : p.cut_at_waits ? "a step between host waits "
                            : "a step between bursts ")
       << num(r.unit_ms) << " ms" << (std::isfinite(r.run_s) ? ", the whole run " + num(r.run_s) + " s" : std::string())
       << "; duty " << fmt_fixed(100 * r.summary.duty, 1) << "%, " << p.trace.steps.size() << " steps cut at " << p.cut
       << ", " << (p.sm_per_span ? "SM share per span" : "SM share from the kernels' mean fill")
       << ", the unit over the " << p.kept_phase.words() << "; memory bandwidth demand "
       << (r.mem_known ? fmt_fixed(100 * p.trace.mem_demand, 1) + "% (" : std::string("not known, replayed as 0 ("))
       << r.mem_basis << ")"
       << (p.dropped_ns > 0 ? "; " + num(p.dropped_ns * 1e-9) + " s of spans not kept, scaled" : std::string())
       << (p.trace.open_loop ? "; paced: its steady steps replayed open-loop, each due when it was alone (--paced)"
                             : std::string());
    if (const std::vector<double> units = r.draws_unit_ms(); units.size() >= 2) {  // every draw, and the drift
      md << "; " << units.size() << " runs alone in this mode, in order:";
      for (double u : units) md << " " << num(u) << " ms";
      md << " (" << (units.size() % 2 == 0 ? "the lower of the two middle ones" : "the middle one")
         << " by unit stands for the program; the last over the first " << err(units.back(), units.front()) << ")";
    }
    md << ".\n";
  }
  if (every_draw) {  // --draws all: how many traces a cell's value is the median over (predict_cells)
    std::size_t runs = 0;
    for (const AloneRun& r : alone) runs += r.draws.size();
    md << "- Every run alone replayed (--draws all): "
       << (runs >= 2 ? std::to_string(runs) +
                           " runs, each its own trace; a cell's unit is the one that stands for the program times the "
                           "median of the runs' units at N over their own alone, its whole run plus the median of "
                           "what N added; the interval their least and largest"
                     : std::string("fewer than two runs alone with a trace, so the one that stands for the program "
                                   "alone, as --draws one"))
       << ".\n";
  }
  md << "- The scheduler (" << xray << "): slice " << num(sched.slice_ms) << " ms, switch " << num(sched.switch_ms)
     << " ms, a turn's cost " << num(sched.turn_cost_ms) << " ms, an empty queue kept "
     << (std::isfinite(sched.hold_us) ? (sched.hold_bound ? ">= " : "") + num(sched.hold_us) + " us"
                                      : std::string("0 us (this X-ray has no gaps probe)"))
     << ".\n";
  if (!host.empty()) {
    md << "- The host (--host-calibration " << host.folder << ": `" << host.command << "` on "
       << (host.cpu.empty() ? std::string("a CPU its meta.json does not name") : host.cpu)
       << "): each copy's host time and launches stretched by h, the copies at N over the runs alone in that mode:";
    for (const ModeKind mode : kLadderModes) {
      md << (mode == ModeKind::timeslice ? " time-sliced" : "; MPS");
      bool any = false;
      for (const HostFactor& f : host.factors)
        if (f.mode == mode) {
          md << (any ? "," : "") << " N=" << f.procs << " " << fmt_fixed(f.factor, 3) << "x";
          any = true;
        }
      if (!any) md << " none (1x)";
    }
    md << "; between them linear in N, past the largest the largest's.\n";
  }
  if (!cal.mps.empty()) {
    md << "- MPS contention (--mps-calibration " << cal.mps.folder << ", "
       << (cal.mps.gpu.empty() ? std::string("a GPU its profiles do not name") : cal.mps.gpu)
       << "): pieces running together slowed beyond their shares by the factor fitted to synthetic shapes, measured "
          "at N over alone (the share model's own answer, the factor):";
    for (const MpsCalibrationPoint& p : cal.mps.points)
      md << " " << p.shape << " N=" << p.procs << " " << fmt_fixed(p.measured, 3) << "x (" << fmt_fixed(p.shares, 3)
         << "x, " << fmt_fixed(p.factor, 3) << ");";
    md << " reproduced within " << fmt_fixed(100 * cal.mps.worst_fit(), 1) << "%.\n";
  }
  md << "\n";
}

void write_cells(PredictTables& t, const std::vector<PredictedRow>& cells,
                 const std::map<std::pair<std::string, int>, ScoredCell>& measured, const std::string& label,
                 bool scored) {
  if (scored) t.md << "Each error is (predicted - measured) / measured, in the cell's basis.\n\n";
  t.md << "| N | mode | basis | simulator | naive | regime model |"
       << (scored ? " measured | error | in interval | naive error | regime error | runs |" : "")
       << "\n|---:|---|---|---:|---:|---:|" << (scored ? "---:|---:|---|---:|---:|---:|" : "") << "\n";
  t.csv << csv_line(column_names(predict_csv_schema()));
  std::map<bool, std::pair<int, int>> coverage;  // per unit (true) and per run: inside, of cells with both
  for (const PredictedRow& c : cells) {
    const auto m = measured.find({std::string(mode_kind_word(c.mode)), c.procs});
    const ScoredCell* scored_cell = m == measured.end() ? nullptr : &m->second;
    for (const bool unit : {true, false}) {
      const int inside = add_row(t, c, unit, scored_cell, label, scored);
      if (inside >= 0) {
        coverage[unit].first += inside;
        ++coverage[unit].second;
      }
    }
  }
  if (std::any_of(cells.begin(), cells.end(), [](const PredictedRow& c) { return !std::isfinite(c.run_s); }))
    t.md << "\n`-` per whole run: one copy alone has no whole run's time here (a profile given without its sweep's "
            "runs), so nothing is predicted on that basis.\n";
  // What the brackets are, said once under the table, scored or not.
  const bool sim_bracket = std::any_of(cells.begin(), cells.end(), [](const PredictedRow& c) {
    return std::isfinite(c.unit_low_ms) || std::isfinite(c.run_low_s);
  });
  const bool regime_bracket =
      std::any_of(cells.begin(), cells.end(), [](const PredictedRow& c) { return std::isfinite(c.regime_low_ms); });
  if (sim_bracket || regime_bracket) {
    t.md << "\nIn brackets: "
         << (sim_bracket
                 ? "the simulator's interval, its phase draws' least to largest (the one replay where "
                   "there are none), each over the alone runs' spread (their least and largest over the one that "
                   "stands for the program)"
                 : "")
         << (sim_bracket && regime_bracket ? "; " : "")
         << (regime_bracket ? "the regime model's bracket time-sliced, between the step's GPU work cut at host waits "
                              "and cut at idle gaps (docs/REGIMES.md), its value the midpoint"
                            : "")
         << ".\n";
  }
  if (!sim_bracket && !cells.empty())
    t.md << "\nThe simulator's column has no interval: it is one replay of one run alone per mode (`--phases 0`, "
            "and no second run alone to give a spread); `--phases K` replays K random phases, and runs alone "
            "recorded again (`--exec-alone-runs`) give their spread.\n";
  if (!scored) return;
  t.md << "\nMeasured inside the simulator's interval: ";
  for (const bool unit : {true, false}) {
    const auto [inside, of] = coverage[unit];
    t.md << (unit ? "per unit " : "; per whole run ") << inside << " of " << of << " cells";
  }
  t.md << ".\n";
  int other_phase = 0;
  for (const auto& [key, m] : measured) other_phase += m.other_phase;
  if (other_phase > 0)
    t.md << "\n"
         << other_phase << (other_phase == 1 ? " run" : " runs")
         << " (\"other phase\") left out of the scores: a copy kept the steps its sweep's runs alone left out (its "
            "units.csv measured before copies followed their runs alone; `bench_mps predict --measure` with its "
            "profiles measures it again).\n";
}

void write_outputs(const PredictArgs& a, const std::string& label, const SchedulerFacts& sched,
                   const std::vector<AloneRun>& alone, const Calibrations& cal, const PredictTables& t) {
  const fs::path out = a.out;
  std::error_code ec;
  const bool made = !fs::exists(out, ec);
  fs::create_directories(out);
  try {
    write_tables(a, out, label, sched, alone, cal, t);
  } catch (...) {  // a full disk midway: what was written goes, and the folder where predict made it
    for (const char* f : {"predict.md", "predict.csv", "predict.json"}) fs::remove(out / f, ec);
    if (made) fs::remove(out, ec);
    throw;
  }
}

}  // namespace bench_mps::harness
