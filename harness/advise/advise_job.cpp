#include "harness/advise/advise_job.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "harness/advise/advise_recommend.hpp"
#include "harness/common/cli_checks.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/word_table.hpp"

namespace bench_mps::harness {
namespace {

/// --job-length's suffixes: none (units), x (the command as given), s, m, h (one copy alone's time).
enum class Suffix { none, times, seconds, minutes, hours };
constexpr WordTable<Suffix, 5> kSuffixes{
    {{Suffix::none, ""}, {Suffix::times, "x"}, {Suffix::seconds, "s"}, {Suffix::minutes, "m"}, {Suffix::hours, "h"}}};

/// What a copy of set `s` takes per unit of a job: its unit time, or a paced server's time per request served.
double job_unit_ms(const SetMeasurement& s) { return std::isnan(s.served_ms) ? s.unit_ms : s.served_ms; }

/// The job's rate in each worker set of `c`: its copies over one copy's job (start-up + units x unit time).
std::vector<double> job_rates(const MeasuredCell& c, double units) {
  std::vector<double> out;
  for (const SetMeasurement& s : c.sets)
    if (s.ok && s.startup_s >= 0 && job_unit_ms(s) > 0)
      out.push_back(c.procs / (s.startup_s + units * job_unit_ms(s) / 1000));
  return out;
}

/// One copy alone's units per copy, start-up and unit time: means over its sets.
struct AloneJob {
  double units = NAN, startup_s = NAN, unit_ms = NAN;
};
AloneJob alone_job(const MeasuredCell& alone) {
  std::vector<double> units, startup, unit;
  for (const SetMeasurement& s : alone.sets)
    if (s.ok) {
      units.push_back(s.units);
      startup.push_back(s.startup_s);
      unit.push_back(job_unit_ms(s));
    }
  return {mean(units), mean(startup), mean(unit)};
}

/// The best cell of `kind` on the job's rate, among those that met the p99 target (`slo`; NaN: none), and its
/// knee: the fewest copies within kKneeGain of that rate, as advise's pick takes it (no cell: none ran ok).
struct Best {
  const MeasuredCell* cell = nullptr;
  std::vector<double> rates;
  const MeasuredCell* knee = nullptr;
};
Best best_of(const std::vector<MeasuredCell>& ladder, ModeKind kind, double units, double slo) {
  Best best;
  std::vector<std::pair<const MeasuredCell*, double>> rated;
  for (const MeasuredCell& c : ladder) {
    if (!c.is(kind) || !c.ok || (!std::isnan(slo) && !(c.p99_ms <= slo))) continue;
    std::vector<double> r = job_rates(c, units);
    if (r.empty()) continue;
    rated.emplace_back(&c, mean(r));
    if (!best.cell || mean(r) > mean(best.rates)) best = {&c, std::move(r), nullptr};
  }
  best.knee = best.cell;
  for (const auto& [c, rate] : rated)
    if (within_knee_gain(rate, mean(best.rates)) && c->procs < best.knee->procs) best.knee = c;
  return best;
}

}  // namespace

std::optional<JobLength> parse_job_length(const std::string& text, std::string* why) {
  const auto no = [why](const std::string& reason) {
    if (why) *why = reason;
    return std::optional<JobLength>();
  };
  const std::size_t digits = decimal_prefix(text);  // unsigned: a job is no difference
  if (text.size() > 40 || digits == 0 || text[0] == '-' || text[0] == '+')
    return no("a decimal number of units a copy (20000), a multiple of the command (100x) or a time (90s, 45m, 2h)");
  const std::string rest = text.substr(digits);
  const std::optional<Suffix> suffix = value_of(kSuffixes, std::string_view(rest));
  if (!suffix) return no("'" + rest.substr(0, 10) + "' is none of x, s, m, h (nothing: units a copy)");
  const double v = std::strtod(text.substr(0, digits).c_str(), nullptr);
  const JobLength::Kind kind = *suffix == Suffix::none    ? JobLength::Kind::units
                               : *suffix == Suffix::times ? JobLength::Kind::times
                                                          : JobLength::Kind::seconds;
  const double scale = *suffix == Suffix::hours ? 3600 : *suffix == Suffix::minutes ? 60 : 1;
  const double value = v * scale;
  if (!(value > 0)) return no("not above zero");
  if (!(value <= kMaxJobLength))
    return no("over " + fmt_num(kMaxJobLength) + (kind == JobLength::Kind::seconds ? " s" : "") + ": not a job");
  // Not one unit, a thousandth of the command or a millisecond: a typo, not a job.
  if (kind == JobLength::Kind::units && value != std::floor(value)) return no("units a copy come whole");
  if (value < (kind == JobLength::Kind::units ? 1 : 1e-3))
    return no(kind == JobLength::Kind::seconds ? "under a millisecond" : "under a thousandth of the command");
  return JobLength{kind, value, text};
}

std::string job_length_words(const JobLength& length, LadderUnit unit) {
  switch (length.kind) {
    case JobLength::Kind::times:
      return length.value == 1 ? std::string("the command as given") : length.text + " the command as given";
    case JobLength::Kind::units:
      return length.text + " " + unit_word(unit) + (length.value == 1 ? "" : "s") + " a copy";
    case JobLength::Kind::seconds:
      return length.text + " of one copy alone";
  }
  return length.text;
}

int JobVerdict::side() const { return problem.empty() ? side_of_band(gain) : 0; }

JobVerdict job_verdict(const std::vector<MeasuredCell>& ladder, LadderUnit unit, const JobLength& length,
                       double slo_p99_ms) {
  JobVerdict v;
  v.length = length;
  if (unit == LadderUnit::run) {
    v.problem =
        "the program is timed by its whole run: give --exec-metric, so that its start-up and its steps "
        "are measured apart";
    return v;
  }
  if (const NeverCoRun apart = never_co_run(ladder); !apart.empty()) {  // a job's steps run at N's unit
    v.problem = apart.said() + " per " + unit_word(unit);
    return v;
  }
  const MeasuredCell* alone = find_measured(ladder, ModeKind::timeslice, 1);
  const AloneJob a = alone && alone->ok ? alone_job(*alone) : AloneJob{};
  if (!(a.unit_ms > 0) || !(a.startup_s >= 0) || !(a.units > 0)) {
    v.problem = "one copy alone (time-sliced) has no start-up and unit time measured";
    return v;
  }
  switch (length.kind) {
    case JobLength::Kind::units:
      v.units = length.value;
      break;
    case JobLength::Kind::times:
      v.units = length.value * a.units;
      break;
    case JobLength::Kind::seconds:
      v.units = (length.value - a.startup_s) / (a.unit_ms / 1000);
      break;
  }
  if (!(v.units >= 1)) {
    v.problem =
        "not one " + std::string(unit_word(unit)) + " after one copy alone's start-up (" + fmt_sig(a.startup_s) + " s)";
    v.units = NAN;  // a job shorter than the start-up has no count of units (never a negative one)
    return v;
  }
  const std::vector<double> base = job_rates(*alone, v.units);
  const Best ts = best_of(ladder, ModeKind::timeslice, v.units, slo_p99_ms),
             mps = best_of(ladder, ModeKind::mps, v.units, slo_p99_ms);
  if (!ts.cell || !mps.cell || base.empty()) {
    v.problem = "the ladder has no ok cell of " + std::string(!ts.cell ? "time-slicing" : "MPS") +
                (std::isnan(slo_p99_ms) ? "" : " within the p99 target of " + fmt_sig(slo_p99_ms) + " ms");
    return v;
  }
  v.ts_procs = ts.cell->procs;
  v.mps_procs = mps.cell->procs;
  v.ts_knee = ts.knee->procs;
  v.mps_knee = mps.knee->procs;
  v.ts_jobs = mean(ts.rates) / mean(base);
  v.mps_jobs = mean(mps.rates) / mean(base);
  v.gain = ratio_of_means(mps.rates, ts.rates);
  return v;
}

std::string job_sentence(const JobVerdict& v, LadderUnit unit) {
  std::string s = "For a job of " + job_length_words(v.length, unit);
  if (std::isfinite(v.units) && v.length.kind != JobLength::Kind::units)
    s += " (" + fmt_fixed(v.units, 0) + " " + unit_word(unit) + "s a copy)";
  if (!v.problem.empty()) return s + ": no verdict: " + v.problem + ".";
  const std::string gain = times_with_interval(v.gain) + " time-slicing's best (N=" + std::to_string(v.ts_procs) +
                           ", " + fmt_times(v.ts_jobs) + " the jobs of one copy alone) per job";
  // The N advised is the mode's knee (fewest copies within kKneeGain of its best), as in the headline's pick.
  const auto knee_words = [](int knee, int best) {
    return knee == best
               ? std::string()
               : " (within " + fmt_fixed(100 * kKneeGain, 1) + " % of its best, N=" + std::to_string(best) + ")";
  };
  switch (v.side()) {
    case 1:
      return s + ": " +
             (v.mps_knee == 1 ? std::string("one copy at a time, under MPS")
                              : "MPS at N=" + std::to_string(v.mps_knee)) +
             knee_words(v.mps_knee, v.mps_procs) + ", " + gain + ".";
    case -1:
      return s + ": " +
             (v.ts_knee == 1 ? std::string("one copy at a time") : "time-sliced at N=" + std::to_string(v.ts_knee)) +
             knee_words(v.ts_knee, v.ts_procs) + "; MPS's best (N=" + std::to_string(v.mps_procs) + ") " + gain + ".";
    default:
      return s + ": can't tell; MPS's best (N=" + std::to_string(v.mps_procs) + ") " + gain +
             (v.gain.has_interval() ? ", an interval across the line" : "") + ".";
  }
}

std::vector<JobLength> stated_job_lengths(const std::optional<JobLength>& asked) {
  std::vector<JobLength> out{*parse_job_length("1x"), *parse_job_length("10x"), *parse_job_length("100x")};
  const auto same = [&](const JobLength& l) { return l.kind == asked->kind && l.value == asked->value; };
  if (asked && std::none_of(out.begin(), out.end(), same)) out.push_back(*asked);  // 100x asked: stated once
  return out;
}

}  // namespace bench_mps::harness
