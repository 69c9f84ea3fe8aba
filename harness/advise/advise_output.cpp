#include "harness/advise/advise_output.hpp"
#include "harness/results/meta.hpp"
#include "harness/common/json_text.hpp"

#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/signals.hpp"
#include "harness/common/stats.hpp"
#include "harness/common/word_table.hpp"
#include "harness/report/report_plotter.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace bench_mps::harness {
namespace {

/// The ladder's N from `from` up, in the order they ran.
std::vector<int> rungs_of(const std::vector<MeasuredCell>& ladder, int from) {
  std::vector<int> rungs;
  for (const MeasuredCell& c : ladder)
    if (c.procs >= from && std::find(rungs.begin(), rungs.end(), c.procs) == rungs.end()) rungs.push_back(c.procs);
  return rungs;
}

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
                                        "ladder_end_kind"};

/// advise's stored setting `key` (advice.json's "advise" object), NaN where absent or null.
double number_or_nan(const json& meta, const char* key) {
  const json& settings = meta.value("advise", json());
  return settings.is_object() && settings.contains(key) && settings.at(key).is_number() ? settings.at(key).get<double>()
                                                                                        : NAN;
}

json alone_json(const AloneFacts& a) {
  const auto placed = [&a](double v) { return a.placed() ? json_number(v) : json(nullptr); };
  return {{"source", alone_source_word(a.source)},
          {"unit", unit_word(a.unit)},
          {"unit_ms", json_number(a.unit_ms)},
          {"step_ms", placed(a.point.step_ms)},
          {"burst_ms", placed(a.point.burst_ms)},
          {"kernel_ms", placed(a.point.kernel_ms)},
          {"duty", json_number(a.duty)},
          {"footprint", json_number(a.point.footprint)},
          {"burst_basis", a.burst_basis},
          {"footprint_basis", a.footprint_basis},
          {"problem", a.problem},
          {"run_s", json_number(a.run_s)},
          {"startup_s", json_number(a.startup_s)},
          {"check_value", json_number(a.check_value)},
          {"by_idle_gaps", a.gap_point ? json{{"step_ms", json_number(a.gap_point->step_ms)},
                                              {"burst_ms", json_number(a.gap_point->burst_ms)}}
                                       : json(nullptr)}};
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

json measured_json(const MeasuredCell& c) {
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
  return {{"procs", c.procs},
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
}

/// "1.09x (1.03-1.15)" of a cell's throughput on `b` against another's, over their sets.
std::string against(const MeasuredCell* a, const MeasuredCell* b, Basis basis) {
  if (!a || !b || !a->ok || !b->ok) return "-";
  return times_with_interval(ratio_of_means(a->set_rates(basis), b->set_rates(basis)));
}

/// Every measured cell on both bases: throughput per unit and per whole run (start-up included), the run and
/// its start-up, energy per unit, and MPS against time-slicing at the same N on each basis, with intervals.
std::string bases_table(const Advice& a) {
  const MeasuredCell* alone = find_measured(a.ladder, ModeKind::timeslice, 1);
  const double alone_energy = alone && alone->ok ? alone->energy_per_unit_j : NAN;
  const std::string unit = unit_word(a.alone.unit);
  MarkdownTable t(
      {"N", "mode", "worker sets", "per " + unit + " (x alone)", "per whole run (x alone)", "a run, s", "start-up, s",
       "energy per " + unit + ", J", "energy vs alone", "MPS over time-sliced per " + unit, "per whole run"},
      {true, false, true, true, true, true, true, true, true, true, true});
  for (const int n : rungs_of(a.ladder, 1))
    for (const ModeKind mode : kLadderModes) {
      const MeasuredCell* m = find_measured(a.ladder, mode, n);
      if (!m) continue;
      const MeasuredCell* ts = find_measured(a.ladder, ModeKind::timeslice, n);
      const bool mps = mode == ModeKind::mps;
      if (!m->ok) {
        t.add_row({std::to_string(n), mps ? "MPS" : "time-sliced", std::to_string(m->sets.size()),
                   "failed: " + m->problem, "-", "-", "-", "-", "-", "-", "-"});
        continue;
      }
      t.add_row({std::to_string(n), mps ? "MPS" : "time-sliced", std::to_string(m->sets.size()),
                 fmt_times(m->throughput()), fmt_times(m->relative_run), fmt_sig(m->run_s),
                 std::isfinite(m->startup_s) ? fmt_sig(m->startup_s) : "-",
                 std::isfinite(m->energy_per_unit_j) ? fmt_sig(m->energy_per_unit_j) : "-",
                 alone_energy > 0 ? fmt_times(m->energy_per_unit_j / alone_energy) : "-",
                 mps ? against(m, ts, Basis::unit) : "", mps ? against(m, ts, Basis::run) : ""});
    }
  return t.str();
}

std::string pct_signed(double e) { return std::isfinite(e) ? (e >= 0 ? "+" : "") + fmt_fixed(100 * e, 1) + " %" : "-"; }

std::string predicted_words(const PredictedCell* p) {
  if (!p || !std::isfinite(p->prediction.loss)) return "-";
  if (std::isfinite(p->prediction.upper) && p->prediction.upper > p->prediction.loss)
    return fmt_times(p->throughput_low()) + " to " + fmt_times(p->throughput());
  return fmt_times(p->throughput());
}

const Check* find_check(const std::vector<Check>& checks, ModeKind mode, int procs) {
  for (const Check& c : checks)
    if (c.mode == mode && c.procs == procs) return &c;
  return nullptr;
}

std::string ladder_table(const Advice& a, const std::vector<Check>& checks) {
  MarkdownTable t({"N", "ideal", "time-sliced: predicted", "measured", "error", "MPS: predicted", "measured", "error",
                   "time-sliced " + std::string(unit_word(a.alone.unit)) + " p99 ms",
                   "MPS " + std::string(unit_word(a.alone.unit)) + " p99 ms"},
                  {true, true, true, true, true, true, true, true, true, true});
  for (const int n : rungs_of(a.ladder, 1)) {
    std::vector<std::string> row{std::to_string(n), std::to_string(n) + "x"};
    std::vector<std::string> p99;
    for (const ModeKind mode : kLadderModes) {
      const MeasuredCell* m = find_measured(a.ladder, mode, n);
      const Check* c = find_check(checks, mode, n);
      row.push_back(n == 1 ? "1.00x" : predicted_words(find_predicted(a.predicted, mode, n)));
      row.push_back(!m ? "-" : m->ok ? fmt_times(m->throughput()) : "failed: " + m->problem);
      const PredictedCell* p = find_predicted(a.predicted, mode, n);
      row.push_back(c ? pct_signed(c->error()) : p && p->calibration && m && m->ok ? "calibration" : "-");
      p99.push_back(m && m->ok ? fmt_sig(m->p99_ms) : "-");
    }
    row.insert(row.end(), p99.begin(), p99.end());
    t.add_row(row);
  }
  return t.str();
}

/// One unit alone, time-sliced: the ladder's N=1 (every ratio's basis), else the alone run's.
double basis_unit_ms(const Advice& a) {
  const MeasuredCell* c = find_measured(a.ladder, ModeKind::timeslice, 1);
  return c && c->ok && c->unit_ms > 0 ? c->unit_ms : a.alone.unit_ms;
}

/// A prediction's time per unit (the model's loss on the basis, over its mode's scale); `upper`: the bracket's other end.
double predicted_unit_ms(const Advice& a, const PredictedCell& p, bool upper = false) {
  return (upper ? p.prediction.upper : p.prediction.loss) * basis_unit_ms(a) / p.speed;
}

/// Per unit: the time the model predicts at each N (its bracket's ends where it gives one) beside the ladder's.
std::string unit_time_table(const Advice& a) {
  MarkdownTable t({"N", "time-sliced: predicted ms", "measured ms", "MPS: predicted ms", "measured ms"},
                  {true, true, true, true, true});
  for (const int n : rungs_of(a.ladder, 2)) {
    std::vector<std::string> row{std::to_string(n)};
    for (const ModeKind mode : kLadderModes) {
      const PredictedCell* p = find_predicted(a.predicted, mode, n);
      std::string predicted = "-";
      if (p && std::isfinite(p->prediction.loss)) {
        predicted = fmt_sig(predicted_unit_ms(a, *p));
        if (std::isfinite(p->prediction.upper) && p->prediction.upper > p->prediction.loss)
          predicted += " to " + fmt_sig(predicted_unit_ms(a, *p, true));
      }
      const MeasuredCell* m = find_measured(a.ladder, mode, n);
      row.push_back(predicted);
      row.push_back(m && m->ok ? fmt_sig(m->unit_ms) : "-");
    }
    t.add_row(row);
  }
  return t.empty() ? "" : t.str();
}

std::string alone_table(const AloneFacts& a, const std::optional<ProfileWindow>& window,
                        const std::vector<MeasuredCell>& ladder) {
  MarkdownTable t({"", "value", "how"}, {false, true, false});
  t.add_row({"one " + std::string(unit_word(a.unit)) + " alone", fmt_sig(a.unit_ms) + " ms",
             a.source == AloneSource::profile ? "the profiled run (sweeps/alone)" : "sweeps/alone"});
  for (const ModeKind mode : kLadderModes)
    if (const MeasuredCell* c = find_measured(ladder, mode, 1); c && c->ok)
      t.add_row({std::string("one ") + std::string(unit_word(a.unit)) + " alone, " +
                     (mode == ModeKind::timeslice ? "time-sliced" : "MPS"),
                 fmt_sig(c->unit_ms) + " ms",
                 mode == ModeKind::timeslice ? "the ladder's N=1: every ratio's basis"
                                             : "the ladder's N=1 under MPS: " + fmt_times(c->throughput()) +
                                                   " time-sliced's throughput, the MPS predictions' scale"});
  t.add_row({"busy share (duty)", fmt_fixed(100 * a.duty, 1) + " %",
             a.source == AloneSource::profile ? "CUPTI, steady part" : "CUDA events"});
  if (window)
    t.add_row({"NVML and GPM over that steady part", describe_nvml_gpm(*window),
               "the device's, over the same window (docs/PROFILE.md \"One clock\")"});
  t.add_row({"burst", fmt_sig(a.point.burst_ms) + " ms", a.burst_basis});
  t.add_row({"step (burst to burst)", fmt_sig(a.point.step_ms) + " ms", "burst / duty, or host wait to host wait"});
  t.add_row({"kernel time per step", fmt_sig(a.point.kernel_ms) + " ms", "the burst less launch gaps"});
  if (a.gap_point)
    t.add_row({"cut at idle gaps instead",
               fmt_sig(a.gap_point->burst_ms) + " ms every " + fmt_sig(a.gap_point->step_ms) + " ms",
               "a turn per idle gap: the time-sliced bracket's other end"});
  t.add_row({"footprint", std::isfinite(a.point.footprint) ? fmt_fixed(100 * a.point.footprint, 1) + " %" : "-",
             a.footprint_basis});
  return t.str();
}

/// The measured line of `mode` on the basis that decided: each ok cell's throughput in copies alone and its
/// ~94 % interval over the worker sets (the interval of the sets' mean, relative; none with one set).
json measured_line(const Advice& a, ModeKind mode) {
  const Basis b = a.basis.basis;
  json meas{{"mode", mode_kind_word(mode)}, {"kind", "measured"},  {"n", json::array()},
            {"throughput", json::array()},  {"lo", json::array()}, {"hi", json::array()}};
  for (const MeasuredCell& m : a.ladder) {
    if (!m.is(mode) || !m.ok || !std::isfinite(m.throughput(b))) continue;
    const double w = relative_mean_ci_width(m.set_rates(b));
    meas["n"].push_back(m.procs);
    meas["throughput"].push_back(m.throughput(b));
    meas["lo"].push_back(json_number(std::isfinite(w) ? m.throughput(b) * (1 - w / 2) : NAN));
    meas["hi"].push_back(json_number(std::isfinite(w) ? m.throughput(b) * (1 + w / 2) : NAN));
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
  }
}

/// The MPS model's calibration in words ("" where N=2 under MPS did not run ok).
std::string contention_words(const Advice& a) {
  const MpsContention c = mps_contention(a.alone, a.ladder);
  if (!std::isfinite(c.per_copy)) return "";
  std::string s = "\nMPS contention: two copies under MPS ran each " + std::string(unit_word(a.alone.unit)) + " " +
                  pct_signed(c.measured) +
                  " against one copy under MPS. Device work side by side can account for at most the busy share "
                  "squared, " +
                  fmt_fixed(100 * c.cap, 2) + " %";
  s += c.per_copy < c.measured ? "; the rest is host contention or noise, so the model adds " +
                                     fmt_fixed(100 * c.per_copy, 2) + " % per further copy, not the whole.\n"
                               : "; the model adds " + fmt_fixed(100 * c.per_copy, 2) + " % per further copy.\n";
  return s;
}

}  // namespace

std::string errors_at(const std::vector<Check>& checks, int procs) {
  std::string s;
  for (const ModeKind mode : kLadderModes)
    if (const Check* c = find_check(checks, mode, procs))
      s += std::string(s.empty() ? "N=" + std::to_string(procs) + ": " : ", ") +
           (mode == ModeKind::timeslice ? "time-sliced " : "MPS ") + pct_signed(c->error());
  return s;
}

json advice_meta(json stored) {
  for (const char* derived : kDerivedKeys) stored.erase(derived);
  return stored;
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
  return (a.alone.source == AloneSource::profile && a.alone.unit == LadderUnit::step) ||
         asked_job_length(a.meta).has_value();
}

std::vector<JobVerdict> job_verdicts(const Advice& a) {
  std::vector<JobVerdict> out;
  if (!states_jobs(a)) return out;
  for (const JobLength& l : stated_job_lengths(asked_job_length(a.meta)))
    out.push_back(job_verdict(a.ladder, a.alone.unit, l));
  return out;
}

/// advice.md's "A longer job": each stated length's verdict, per job.
std::string jobs_section(const Advice& a) {
  const std::vector<JobVerdict> jobs = job_verdicts(a);
  if (jobs.empty()) return "";
  std::string md = "\n## A longer job\nEach N's measured start-up and time per " +
                   std::string(unit_word(a.alone.unit)) + ", composed into one copy's job (start-up + the job's " +
                   unit_word(a.alone.unit) + "s x the time per " + unit_word(a.alone.unit) +
                   " at that N), and per mode the N whose copies finish the most jobs; MPS's best over "
                   "time-slicing's best with its ~94 % interval over the worker sets. It assumes a job's copies "
                   "spend the whole job at the time per unit measured at its N.\n\n";
  for (const JobVerdict& v : jobs) md += "- " + job_sentence(v, a.alone.unit) + "\n";
  return md;
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
  }
  j["ladder"] = json::array();
  for (const MeasuredCell& c : a.ladder) j["ladder"].push_back(measured_json(c));
  j["limits"] = json::array();
  for (const MeasuredCell& c : a.limits) j["limits"].push_back(measured_json(c));
  j["checks"] = json::array();
  for (const Check& c : check_predictions(a.predicted, a.ladder))
    j["checks"].push_back({{"procs", c.procs},
                           {"mode", mode_kind_word(c.mode)},
                           {"predicted", json_number(c.predicted)},
                           {"predicted_low", json_number(c.predicted_low)},
                           {"measured", json_number(c.measured)},
                           {"error", json_number(c.error())}});
  j["ladder_end"] = a.ladder_end;
  j["ladder_end_kind"] = ladder_end_word(a.ladder_end_kind);
  j["sets_end"] = a.sets_end;
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

std::string advice_markdown(const Advice& a) {
  const std::string unit = unit_word(a.alone.unit);
  const std::vector<Check> checks = check_predictions(a.predicted, a.ladder);
  std::string md = "# Will MPS help? " + a.subject + "\n\n";
  md += machine_line(a.meta, "no GPU (CPU stand-ins: the numbers describe the CPU, not a GPU)") + ", " +
        a.meta.value("started_utc", std::string()) + ", " + fmt_fixed(a.seconds, 0) + " s\n\n";
  md += "**" + a.recommendation.headline + "**\n\n## Why\n";
  for (const std::string& reason : a.recommendation.reasons) md += "- " + reason + "\n";
  const bool simulated = !a.predicted.empty() && a.predicted.front().simulated;
  md +=
      "\n## Predicted and measured\nThroughput of N copies together in copies alone (one copy alone, time-sliced, is "
      "1; "
      "the ideal is N), per " +
      unit + ". " +
      (simulated
           ? std::string("Predicted by the simulator (docs/PREDICT.md): the program's GPU trace alone "
                         "(`sweeps/alone`) replayed N times through the X-ray's scheduler; nothing of the ladder "
                         "enters it")
           : std::string("Predicted by the regime model (docs/REGIMES.md) from one copy alone and the X-ray; "
                         "MPS's scaled by one copy alone under MPS (the ladder's N=1) and slowed by the contention "
                         "two copies under MPS showed (the ladder's N=2: a calibration, not a prediction)")) +
      "; measured by the ladder (`sweeps/ladder-N`). Error: predicted over measured, less 1 (0 where the measurement "
      "lies inside a predicted bracket)." +
      (simulated ? " How well the simulator predicts: docs/PREDICT.md." : "") + "\n\n";
  md += ladder_table(a, checks);
  if (const std::string times = unit_time_table(a); !times.empty() && a.alone.placed())
    md += "\nEach copy's time per " + unit + " (predicted: the model's loss times one " + unit +
          " alone time-sliced, " + fmt_sig(basis_unit_ms(a)) +
          " ms, over the mode's scale; for a paced program it is the " + unit + "'s latency):\n\n" + times;
  if (!simulated) md += contention_words(a);
  md += "\n## Both bases\nThroughput per " + unit +
        " while the copies work and per whole run (start-up included), in "
        "copies alone (one copy alone, time-sliced, is 1); a copy's run and its start-up; the board's energy per " +
        unit +
        " (NVML's energy counter over each run, idle draw included) and against one copy alone; MPS over "
        "time-slicing at the same N with its ~94 % interval over the worker sets. The advice is decided " +
        (a.basis.basis == Basis::unit ? "per " + unit : std::string("per whole run")) + ": " + a.basis.why + ".\n\n";
  md += bases_table(a);
  md += jobs_section(a);
  if (!a.sets_end.empty()) md += "\nSets added to settle MPS against time-slicing: " + a.sets_end + ".\n";
  md += "\nThe ladder stopped: " + a.ladder_end + ".\n";
  for (const int n : {4, 10})
    if (const std::string e = errors_at(checks, n); !e.empty()) md += "Model error at " + e + ".\n";
  for (const MeasuredCell& c : a.limits) {
    const MeasuredCell* unlimited = find_measured(a.ladder, ModeKind::mps, c.procs);
    md += "\n`" + c.mode.name + "` at N=" + std::to_string(c.procs) + ": " +
          (c.ok ? fmt_sig(c.unit_ms) + " ms per " + unit + " (p99 " + fmt_sig(c.p99_ms) + " ms, " +
                      std::to_string(c.sets.size()) + " worker sets)" +
                      (unlimited && unlimited->ok
                           ? ", " + times_with_interval(limit_keeps(*unlimited, c)) + " unlimited MPS's speed"
                           : "")
                : "failed: " + c.problem) +
          ".\n";
  }
  md += "\n## One copy alone\n" + alone_table(a.alone, a.alone_window, a.ladder);
  if (!a.alone.placed()) md += "\nNot placed on the map: " + a.alone.problem + ". No prediction.\n";
  md += "\n## The scheduler (time-slice X-ray)\nA time slice " + fmt_sig(a.scheduler.slice_ms) + " ms, a switch " +
        fmt_sig(a.scheduler.switch_ms) + " ms, a turn's cost beyond its work " + fmt_sig(a.scheduler.turn_cost_ms) +
        " ms (" + a.scheduler_source + ").\n";
  md += a.figure_note.empty() ? "\n![Predicted and measured throughput](plots/advice.png)\n"
                              : "\nThe figure was not drawn: " + a.figure_note + "\n";
  md += "\nEach step's child sweep is under `sweeps/` (its log beside it); advice.json holds every number above.\n";
  return md;
}

void write_advice(const fs::path& out, Advice& a) {
  draw_figure(out, a);
  write_file_atomically(out / kAdviceJsonFile, json_text(advice_json(a), 2) + "\n");
  write_file_atomically(out / "advice.md", advice_markdown(a));
}

}  // namespace bench_mps::harness
