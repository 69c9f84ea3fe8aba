#include "harness/advise/advise_output.hpp"

#include "harness/advise/advise_spec.hpp"
#include "harness/results/meta.hpp"
#include "harness/common/json_text.hpp"

#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/signals.hpp"
#include "harness/common/stats.hpp"
#include "harness/common/word_table.hpp"
#include "harness/report/report_plotter.hpp"

#include <algorithm>
#include <cmath>

namespace fs = std::filesystem;
using nlohmann::json;

namespace bench_mps::harness {
namespace {

/// What advice_json adds to the machine and invocation: everything else in advice.json is meta.
constexpr const char* kDerivedKeys[] = {"advice_format_version",
                                        "subject",
                                        "alone",
                                        "scheduler",
                                        "predicted",
                                        "ladder",
                                        "limited",
                                        "limits",
                                        "checks",
                                        "ladder_end",
                                        "recommendation",
                                        "seconds",
                                        "figure_note",
                                        "decision",
                                        "sets_end",
                                        "jobs",
                                        "ladder_end_kind",
                                        "alone_last"};

/// advise's stored setting `key` (advice.json's "advise" object), NaN where absent or null.
double number_or_nan(const json& meta, const char* key) {
  const json& settings = meta.value("advise", json());
  return settings.is_object() && settings.contains(key) && settings.at(key).is_number() ? settings.at(key).get<double>()
                                                                                        : NAN;
}

json alone_json(const AloneFacts& a) {
  const auto placed = [&a](double v) { return a.placed() ? json_number(v) : json(nullptr); };
  json j{{"source", alone_source_word(a.source)},
         {"unit", unit_word(a.unit)},
         {"unit_ms", json_number(a.unit_ms)},
         {"step_ms", placed(a.point.step_ms)},
         {"burst_ms", placed(a.point.burst_ms)},
         {"kernel_ms", placed(a.point.kernel_ms)},
         {"duty", json_number(a.duty)},
         {"footprint", placed(a.point.footprint)},
         {"burst_basis", a.burst_basis},
         {"footprint_basis", a.footprint_basis},
         {"problem", a.problem},
         {"run_s", json_number(a.run_s)},
         {"startup_s", json_number(a.startup_s)},
         {"check_value", json_number(a.check_value)},
         {"by_idle_gaps", a.gap_point ? json{{"step_ms", json_number(a.gap_point->step_ms)},
                                             {"burst_ms", json_number(a.gap_point->burst_ms)}}
                                      : json(nullptr)}};
  if (!a.unit_basis.empty()) j["unit_basis"] = a.unit_basis;  // a program without --exec-metric: how it is timed
  return j;
}

/// NVML and GPM over the profile's steady part (docs/PROFILE.md "One clock"): fractions, null where none.
json window_json(const ProfileWindow& w) {
  return {{"nvml_samples", w.nvml_samples},
          {"nvml_util", json_number(w.nvml_util)},
          {"gpm_periods", w.gpm.periods},
          {"gpm_sm_util", json_number(w.gpm.metrics.sm_util)},
          {"gpm_sm_occupancy", json_number(w.gpm.metrics.sm_occupancy)},
          {"gpm_dram_bw_util", json_number(w.gpm.metrics.dram_bw_util)},
          {"gpm_from_s", json_number(w.gpm_from_s)},
          {"gpm_to_s", json_number(w.gpm_to_s)},
          {"unavailable", w.unavailable}};
}

/// A cell as advice.json holds it; `profiled` (a unit from the copies' profiles), or a metric's sets whose lines'
/// overlap was checked: whether each set's copies ran together (`co_run`, `not_co_run`) and the cell's `co_run_sets`.
json measured_json(const MeasuredCell& c, bool profiled) {
  json sets = json::array();
  for (const SetMeasurement& s : c.sets)
    sets.push_back({{"ok", s.ok},
                    {"problem", s.problem},
                    {"unit_ms", json_number(s.unit_ms)},
                    {"p99_ms", json_number(s.p99_ms)},
                    {"per_s", json_number(s.per_s)},
                    {"run_per_s", json_number(s.run_per_s)},
                    {"run_s", json_number(s.run_s)},
                    {"startup_s", json_number(s.startup_s)},
                    {"energy_j", json_number(s.energy_j)},
                    {"units", json_number(s.units)},
                    {"check_values", [&s] {
                       json v = json::array();
                       for (const double x : s.check_values) v.push_back(json_number(x));
                       return v;
                     }()}});
  // a unit from the profiles, or a metric whose lines' overlap was checked (a sweep of 2026-12-03 or later)
  const bool checked = profiled || std::any_of(c.sets.begin(), c.sets.end(),
                                               [](const SetMeasurement& s) { return std::isfinite(s.coverage); });
  if (checked)
    for (std::size_t i = 0; i < c.sets.size(); ++i) {
      sets[i]["co_run"] = c.sets[i].co_run;
      sets[i]["not_co_run"] = c.sets[i].not_co_run;
      if (!c.sets[i].co_run && c.procs >= 2) {  // why, in two numbers (the reasons' "Not co-run" line)
        sets[i]["parting"] = json_number(c.sets[i].parting);
        sets[i]["cpu_share"] = json_number(c.sets[i].cpu_share);
      }
    }
  for (std::size_t i = 0; i < c.sets.size(); ++i)  // a latency program held at the gate (only there: as before)
    if (const GateHolds& h = c.sets[i].holds; std::isfinite(h.max_s)) {
      sets[i]["gate_held_max_s"] = json_number(h.max_s);
      sets[i]["least_held_s"] = json_number(h.least_s);
      sets[i]["least_held_p99_ms"] = json_number(h.least_p99_ms);
    }
  json j{{"procs", c.procs},
         {"mode", c.mode.name},
         {"ok", c.ok},
         {"problem", c.problem},
         {"unit_ms", json_number(c.unit_ms)},
         {"p99_ms", json_number(c.p99_ms)},
         {"loss", json_number(c.loss)},
         {"throughput", json_number(c.throughput())},
         {"throughput_run", json_number(c.relative_run)},
         {"run_s", json_number(c.run_s)},
         {"startup_s", json_number(c.startup_s)},
         {"energy_per_unit_j", json_number(c.energy_per_unit_j)},
         {"sets", sets},
         {"check_problem", c.check_problem}};
  if (checked) j["co_run_sets"] = c.co_run_sets();
  return j;
}

/// The measured line of `mode` on the basis that decided: each ok cell's throughput in copies alone and its
/// ~94 % interval over its worker sets and one copy alone's (interval_alone; none with one set); `not_co_run`: the
/// N of the ok cells left out per unit because none of their worker sets co-ran (drawn apart, not as a point).
json measured_line(const Advice& a, ModeKind mode) {
  const Basis b = a.basis.basis;
  json meas{{"mode", mode_kind_word(mode)}, {"kind", "measured"},  {"n", json::array()},
            {"throughput", json::array()},  {"lo", json::array()}, {"hi", json::array()},
            {"not_co_run", json::array()}};
  for (const MeasuredCell& m : a.ladder) {
    if (!m.is(mode) || !m.ok) continue;
    if (!std::isfinite(m.throughput(b))) {
      if (b == Basis::unit && m.co_run_sets() == 0) meas["not_co_run"].push_back(m.procs);
      continue;
    }
    const RatioInterval r = interval_alone(m, a.ladder, b);
    meas["n"].push_back(m.procs);
    meas["throughput"].push_back(m.throughput(b));
    meas["lo"].push_back(json_number(r.lo));
    meas["hi"].push_back(json_number(r.hi));
  }
  return meas;
}

json plot_data(const Advice& a) {
  json lines = json::array();
  for (const ModeKind mode : kLadderModes) {
    double alone = 1;  // one copy alone in this mode: the MPS predictions' scale
    for (const PredictedCell& p : a.predicted)
      if (p.mode == mode) alone = p.speed;
    json pred{{"mode", mode_kind_word(mode)},
              {"kind", "predicted"},
              {"n", json::array({1})},
              {"throughput", json::array({alone})},
              {"low", json::array({alone})}};
    for (const PredictedCell& p : a.predicted)
      if (p.mode == mode && std::isfinite(p.prediction.loss)) {
        pred["n"].push_back(p.procs);
        pred["throughput"].push_back(p.throughput());
        pred["low"].push_back(p.throughput_low());
      }
    // The predictions are per unit: drawn where the unit decides, left to the tables where the whole run does.
    if (pred["n"].size() > 1 && a.basis.basis == Basis::unit) lines.push_back(pred);
    lines.push_back(measured_line(a, mode));
  }
  const std::string machine = machine_line(a.meta, "no GPU (CPU stand-ins)");
  return {{"format_version", 1},
          {"machine", machine},
          {"modes", {"timeslice", "mps"}},
          {"figures", json::array({{{"name", "advice"},
                                    {"title", a.subject},
                                    {"unit", unit_word(a.alone.unit)},
                                    {"basis", basis_name(a.basis.basis)},
                                    {"lines", lines},
                                    {"max_procs", a.predicted.empty() ? 0 : a.predicted.back().procs}}})}};
}

void draw_figure(const fs::path& out, Advice& a) {
  if (stop_signal().load()) {  // stopped: what ran is written without its figure, at once
    a.figure_note = "stopped by a signal before it was drawn";
    return;
  }
  try {
    const fs::path plots = out / "plots";
    fs::create_directories(plots);
    write_file_atomically(plots / "plot_data.json", json_text(plot_data(a), 1) + "\n");
    run_plot_script(find_plot_python(), plot_script(), plots / "plot_data.json", plots, plots / "plot.log", 120);
  } catch (const std::exception& e) {  // a missing Python, a failed script, or a stop while it drew
    a.figure_note = one_line(e.what());
    std::error_code ec;  // an earlier figure (advise --redo) shows other numbers than the advice written now
    fs::remove(out / "plots" / "advice.png", ec);
  }
}

}  // namespace

/// One unit alone, time-sliced: the ladder's N=1 (every ratio's basis), else the alone run's.
double basis_unit_ms(const Advice& a) {
  const MeasuredCell* c = find_measured(a.ladder, ModeKind::timeslice, 1);
  return c && c->ok && c->unit_ms > 0 ? c->unit_ms : a.alone.unit_ms;
}

/// A prediction's time per unit (the model's loss on the basis, over its mode's scale); `upper`: the bracket's other end.
double predicted_unit_ms(const Advice& a, const PredictedCell& p, bool upper) {
  return (upper ? p.prediction.upper : p.prediction.loss) * basis_unit_ms(a) / p.speed;
}

json advice_meta(json stored) {
  for (const char* derived : kDerivedKeys) stored.erase(derived);
  return stored;
}

bool timed_from_profiles(const json& meta) {
  if (!meta.is_object() || !meta.contains("advise") || !meta.at("advise").is_object()) return false;
  const json& settings = meta.at("advise");
  return settings.contains("unit_from_profiles") && settings.at("unit_from_profiles").is_boolean() &&
         settings.at("unit_from_profiles").get<bool>();
}

std::optional<JobLength> asked_job_length(const json& meta) {
  if (!meta.contains("advise") || !meta.at("advise").is_object()) return std::nullopt;
  const json& advise = meta.at("advise");
  if (!advise.contains("job_length") || !advise.at("job_length").is_string()) return std::nullopt;
  return parse_job_length(advise.at("job_length").get<std::string>());
}

/// Whether advice.md and advice.json state longer jobs: a program timed per step (its start-up apart), or a
/// length asked for.
bool states_jobs(const Advice& a) {
  return (a.alone.source == AloneSource::profile && a.alone.unit == LadderUnit::step && a.alone.placed()) ||
         asked_job_length(a.meta).has_value();
}

std::vector<JobVerdict> job_verdicts(const Advice& a) {
  std::vector<JobVerdict> out;
  if (!states_jobs(a)) return out;
  for (const JobLength& l : stated_job_lengths(asked_job_length(a.meta)))
    out.push_back(job_verdict(a.ladder, a.alone.unit, l, number_or_nan(a.meta, "slo_p99_ms")));
  return out;
}

namespace {

constexpr WordTable<LadderEnd, 7> kLadderEndWords{{{LadderEnd::complete, "complete"},
                                                   {LadderEnd::decided, "decided"},
                                                   {LadderEnd::signal, "signal"},
                                                   {LadderEnd::budget, "budget"},
                                                   {LadderEnd::sweep_failed, "sweep-failed"},
                                                   {LadderEnd::sweep_stopped, "sweep-stopped"},
                                                   {LadderEnd::error, "error"}}};

}  // namespace

const char* ladder_end_word(LadderEnd e) { return word_of(kLadderEndWords, e).value_or("?").data(); }
std::optional<LadderEnd> parse_ladder_end(const std::string& word) { return value_of(kLadderEndWords, word); }
bool stopped_early(LadderEnd e) { return e != LadderEnd::complete && e != LadderEnd::decided; }

LadderEnd ladder_end_of_stored_words(const std::string& words) {
  // advise up to format 3 wrote these openings (advise.cpp's end() and run_advise); they are read, never written.
  if (words.rfind("stopped by a signal", 0) == 0) return LadderEnd::signal;
  if (words.find("time budget") != std::string::npos) return LadderEnd::budget;
  if (words.find("sweep failed") != std::string::npos) return LadderEnd::sweep_failed;
  if (words.find("sweep stopped") != std::string::npos) return LadderEnd::sweep_stopped;
  return words.rfind("every rung ran", 0) == 0 ? LadderEnd::complete : LadderEnd::decided;
}

json advice_json(const Advice& a) {
  json j = a.meta;
  j["advice_format_version"] = kAdviceFormatVersion;
  j["subject"] = a.subject;
  j["alone"] = alone_json(a.alone);
  if (a.alone_window) j["alone"]["profile_window"] = window_json(*a.alone_window);
  j["scheduler"] = {{"slice_ms", json_number(a.scheduler.slice_ms)},
                    {"switch_ms", json_number(a.scheduler.switch_ms)},
                    {"turn_cost_ms", json_number(a.scheduler.turn_cost_ms)},
                    {"source", a.scheduler_source}};
  if (std::isfinite(a.scheduler.hold_us))
    j["scheduler"]["hold_us"] = a.scheduler.hold_us;  // X-rays with the gaps probe
  j["predicted"] = json::array();
  for (const PredictedCell& p : a.predicted) {
    j["predicted"].push_back({{"procs", p.procs},
                              {"mode", mode_kind_word(p.mode)},
                              {"loss", json_number(p.prediction.loss)},
                              {"loss_upper", json_number(p.prediction.upper)},
                              {"throughput", json_number(p.throughput())},
                              {"throughput_low", json_number(p.throughput_low())},
                              {"unit_ms", json_number(predicted_unit_ms(a, p))},
                              {"why", p.prediction.why},
                              {"calibration", p.calibration}});
    if (p.simulated) j["predicted"].back()["simulated"] = true;
    if (const auto [low, high] = p.throughput_interval(); std::isfinite(low))
      j["predicted"].back()["throughput_interval"] = {low, high};
  }
  j["ladder"] = json::array();
  const bool profiled = timed_from_profiles(a.meta);
  for (const MeasuredCell& c : a.ladder) j["ladder"].push_back(measured_json(c, profiled));
  j["limits"] = json::array();
  for (const MeasuredCell& c : a.limits) j["limits"].push_back(measured_json(c, profiled));
  j["checks"] = json::array();
  for (const Check& c : check_predictions(a.predicted, a.ladder)) {
    j["checks"].push_back({{"procs", c.procs},
                           {"mode", mode_kind_word(c.mode)},
                           {"predicted", json_number(c.predicted)},
                           {"predicted_low", json_number(c.predicted_low)},
                           {"measured", json_number(c.measured)},
                           {"error", json_number(c.error())}});
    if (c.inside() >= 0) j["checks"].back()["inside_interval"] = c.inside() == 1;  // a prediction with an interval
  }
  j["ladder_end"] = a.ladder_end;
  j["ladder_end_kind"] = ladder_end_word(a.ladder_end_kind);
  j["sets_end"] = a.sets_end;
  if (a.alone_last_ran || !a.alone_last_skipped.empty()) {  // (an advice of before it: no key, as it was written)
    j["alone_last"] = {{"ran", a.alone_last_ran}, {"folder", kAloneLastFolder}};
    j["alone_last"][a.alone_last_ran ? "left_out" : "why_not"] = a.alone_last_skipped;
    for (const ModeKind mode : kLadderModes)
      j["alone_last"]["drift"][mode_kind_word(mode)] = json_number(alone_drift(a.ladder, mode, a.basis.basis));
    j["alone_last"]["drift"]["basis"] = basis_name(a.basis.basis);
  }
  {
    const Pick p = pick(a.ladder, number_or_nan(a.meta, "slo_p99_ms"), a.basis.basis);
    j["decision"] = {{"basis", basis_name(a.basis.basis)},
                     {"why", a.basis.why},
                     {"band", kDecisionBand},
                     {"coverage", kMedianCiCoverage},
                     {"mps_over_timeslice", interval_json(p.gain)},
                     {"mps_unit_speedup", interval_json(p.speedup)},
                     {"one_copy_mps_speed", interval_json(one_copy_mode_gap(a.ladder))}};
  }
  const Recommendation& r = a.recommendation;
  j["recommendation"] = {{"verdict", verdict_name(r.verdict)},
                         {"mode", r.mode},
                         {"procs", r.procs},
                         {"headline", r.headline},
                         {"reasons", r.reasons}};
  for (const JobVerdict& v : job_verdicts(a))  // programs timed per step, or a length asked for
    j["jobs"].push_back({{"length", v.length.text},
                         {"units", json_number(v.units)},
                         {"timeslice_procs", v.ts_procs},
                         {"mps_procs", v.mps_procs},
                         {"timeslice_jobs", json_number(v.ts_jobs)},
                         {"mps_jobs", json_number(v.mps_jobs)},
                         {"mps_over_timeslice", interval_json(v.gain)},
                         {"side", v.side()},
                         {"problem", v.problem}});
  j["seconds"] = a.seconds;
  j["figure_note"] = a.figure_note;
  return j;
}

void write_advice(const fs::path& out, Advice& a) {
  draw_figure(out, a);
  // The two as one: a full disk leaves the earlier pair (advise --redo), never one new beside one old.
  write_files_together(
      {{out / kAdviceJsonFile, json_text(advice_json(a), 2) + "\n"}, {out / "advice.md", advice_markdown(a)}});
}

}  // namespace bench_mps::harness
