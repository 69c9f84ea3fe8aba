// advice.md: the advice in plain words and its tables (advise_output.hpp: advice_markdown).
#include "harness/advise/advise_output.hpp"

#include "harness/advise/advise_spec.hpp"

#include <algorithm>
#include <cmath>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/results/meta.hpp"

namespace bench_mps::harness {
namespace {

/// The ladder's N from `from` up, in the order they ran.
std::vector<int> rungs_of(const std::vector<MeasuredCell>& ladder, int from) {
  std::vector<int> rungs;
  for (const MeasuredCell& c : ladder)
    if (c.procs >= from && std::find(rungs.begin(), rungs.end(), c.procs) == rungs.end()) rungs.push_back(c.procs);
  return rungs;
}

/// "1.09x (1.03-1.15)" of a cell's throughput on `b` against another's, over their sets.
std::string against(const MeasuredCell* a, const MeasuredCell* b, Basis basis) {
  if (!a || !b || !a->ok || !b->ok) return "-";
  return times_with_interval(ratio_of_means(a->set_rates(basis), b->set_rates(basis)));
}

/// A cell's throughput per unit, or "not co-run" where none of its sets' copies ran together (a profiled unit),
/// with how many did where only some did.
std::string per_unit_words(const MeasuredCell& m, const std::vector<MeasuredCell>& ladder) {
  const int co_run = m.co_run_sets(), sets = static_cast<int>(m.sets.size());
  if (sets > 0 && co_run == 0) return "not co-run";
  return times_alone(m, ladder, Basis::unit) +
         (co_run < sets ? " (" + std::to_string(co_run) + " of " + std::to_string(sets) + " sets co-run)"
                        : std::string());
}

/// Cells measured above their ideal per unit (N times the same mode's N=1 throughput, beyond kAboveIdeal): N
/// copies together should not step faster than N copies alone, so one copy alone's sets were slower than these
/// copies; said with one copy alone's spread, which every ratio to it carries ("" where none is).
std::string above_ideal_words(const Advice& a, const std::string& unit) {
  constexpr double kAboveIdeal = 0.05;
  std::string cells;
  for (const int n : rungs_of(a.ladder, 2))
    for (const ModeKind mode : kLadderModes) {
      const MeasuredCell* m = find_measured(a.ladder, mode, n);
      const MeasuredCell* one = find_measured(a.ladder, mode, 1);
      if (!m || !m->ok || !one || !one->ok || !std::isfinite(m->throughput()) || !std::isfinite(one->throughput()))
        continue;
      const double ideal = n * one->throughput();
      if (m->throughput() <= (1 + kAboveIdeal) * ideal) continue;
      cells += (cells.empty() ? "" : ", ") + std::string(mode == ModeKind::timeslice ? "time-sliced" : "MPS") +
               " N=" + std::to_string(n) + " " + fmt_times(m->throughput()) + " (ideal " + fmt_times(ideal) + ")";
    }
  const MeasuredCell* alone = find_measured(a.ladder, ModeKind::timeslice, 1);
  if (cells.empty() || !alone) return "";  // (a throughput is relative to the time-sliced N=1: there is one)
  const bool spread = alone->sets.size() >= 2;
  return "\nAbove the ideal (N times the same mode's one copy alone): " + cells + ". N copies together should not do " +
         "more " + unit + "s a second than N copies alone, so each of these copies ran faster than one copy alone " +
         "did in its worker sets. " +
         (spread ? "One copy alone varies between its worker sets (time-sliced " + per_unit_words(*alone, a.ladder) +
                       " per " + unit +
                       "), and every ratio to it carries that spread; more worker sets (a larger --budget) narrow it.\n"
                 : std::string("One copy alone ran one worker set, so its spread is not measured: every ratio to it "
                               "rests on that one draw.\n"));
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
                 per_unit_words(*m, a.ladder), times_alone(*m, a.ladder, Basis::run), fmt_sig(m->run_s),
                 std::isfinite(m->startup_s) ? fmt_sig(m->startup_s) : "-",
                 std::isfinite(m->energy_per_unit_j) ? fmt_sig(m->energy_per_unit_j) : "-",
                 alone_energy > 0 ? fmt_times(m->energy_per_unit_j / alone_energy) : "-",
                 mps ? against(m, ts, Basis::unit) : "", mps ? against(m, ts, Basis::run) : ""});
    }
  return t.str();
}

std::string pct_signed(double e) { return std::isfinite(e) ? fmt_signed(100 * e, 1) + " %" : "-"; }

std::string predicted_words(const PredictedCell* p) {
  if (!p || !std::isfinite(p->prediction.loss)) return "-";
  if (std::isfinite(p->prediction.upper) && p->prediction.upper > p->prediction.loss)
    return fmt_times(p->throughput_low()) + " to " + fmt_times(p->throughput());
  if (const auto [low, high] = p->throughput_interval(); std::isfinite(low))
    return fmt_times(p->throughput()) + " (" + fmt_fixed(low, 2) + "-" + fmt_fixed(high, 2) + ")";
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
      row.push_back(!m ? "-" : m->ok ? per_unit_words(*m, a.ladder) : "failed: " + m->problem);
      const PredictedCell* p = find_predicted(a.predicted, mode, n);
      row.push_back(c ? pct_signed(c->error()) : p && p->calibration && m && m->ok ? "calibration" : "-");
      p99.push_back(m && m->ok ? fmt_sig(m->p99_ms) : "-");
    }
    row.insert(row.end(), p99.begin(), p99.end());
    t.add_row(row);
  }
  return t.str();
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
      row.push_back(!m || !m->ok                ? "-"
                    : std::isfinite(m->unit_ms) ? fmt_sig(m->unit_ms)
                                                : per_unit_words(*m, a.ladder));
    }
    t.add_row(row);
  }
  return t.empty() ? "" : t.str();
}

std::string alone_table(const AloneFacts& a, const std::optional<ProfileWindow>& window,
                        const std::vector<MeasuredCell>& ladder) {
  MarkdownTable t({"", "value", "how"}, {false, true, false});
  t.add_row({"one " + std::string(unit_word(a.unit)) + " alone", fmt_sig(a.unit_ms) + " ms",
             (a.source == AloneSource::profile ? "the profiled run (sweeps/alone)" : "sweeps/alone") +
                 (a.unit_basis.empty() ? std::string() : ": " + a.unit_basis)});
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
  // advice.json's rule: a copy the model could not place has none of these (null there, "-" here), not 0
  const auto placed_ms = [&a](double v) { return a.placed() && std::isfinite(v) ? fmt_sig(v) + " ms" : "-"; };
  t.add_row({"burst", placed_ms(a.point.burst_ms), a.burst_basis});
  t.add_row({"step (burst to burst)", placed_ms(a.point.step_ms), "burst / duty, or host wait to host wait"});
  t.add_row({"kernel time per step", placed_ms(a.point.kernel_ms), "the burst less launch gaps"});
  if (a.gap_point)
    t.add_row({"cut at idle gaps instead",
               fmt_sig(a.gap_point->burst_ms) + " ms every " + fmt_sig(a.gap_point->step_ms) + " ms",
               "a turn per idle gap: the time-sliced bracket's other end"});
  t.add_row({"footprint",
             a.placed() && std::isfinite(a.point.footprint) ? fmt_fixed(100 * a.point.footprint, 1) + " %" : "-",
             a.footprint_basis});
  return t.str();
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

/// advice.md's "A longer job": each stated length's verdict, per job.
std::string jobs_section(const Advice& a) {
  const std::vector<JobVerdict> jobs = job_verdicts(a);
  if (jobs.empty()) return "";
  std::string md = "\n## A longer job\nEach N's measured start-up and time per " +
                   std::string(unit_word(a.alone.unit)) + ", composed into one copy's job (start-up + the job's " +
                   unit_word(a.alone.unit) + "s x the time per " + unit_word(a.alone.unit) +
                   " at that N), and per mode the N whose copies finish the most jobs; MPS's best over "
                   "time-slicing's best with its ~94 % interval over the worker sets. It assumes a job's copies "
                   "spend the whole job at the time per unit measured at its N." +
                   (timed_from_profiles(a.meta)
                        ? std::string(" Timed from its profiles, a copy's start-up here is the rest of its run "
                                      "outside its steady part (its start-up, warm-up and what follows its steps, "
                                      "a test pass and its exit, say), taken as the same for a longer job; the "
                                      "command as given is its steady part's steps.")
                        : std::string()) +
                   "\n\n";
  for (const JobVerdict& v : jobs) md += "- " + job_sentence(v, a.alone.unit) + "\n";
  return md;
}

}  // namespace

std::string alone_last_words(const Advice& a) {
  const MeasuredCell* ts = find_measured(a.ladder, ModeKind::timeslice, 1);
  if (!a.alone_last_ran)
    return a.alone_last_skipped.empty() ? ""
                                        : "One copy alone was not run again after the ladder (" + a.alone_last_skipped +
                                              "): every ratio to it is over the ladder's first N=1 worker sets only.";
  const std::string per = basis_words(a.basis.basis, a.alone.unit);
  std::string drift;
  bool measured = false;
  for (const ModeKind mode : kLadderModes) {
    const double d = alone_drift(a.ladder, mode, a.basis.basis);
    measured = measured || std::isfinite(d);
    drift += (drift.empty() ? "" : ", ") + std::string(mode == ModeKind::timeslice ? "time-sliced " : "MPS ") +
             (std::isfinite(d) ? fmt_times(d) : std::string("-"));
  }
  const std::string left_out = a.alone_last_skipped.empty() ? "" : " (left out: " + a.alone_last_skipped + ")";
  if (!measured)  // neither mode gave a rate beside the ladder's first sets: no drift to state, "1.00x" or other
    return "One copy alone again after the ladder (`sweeps/" + std::string(kAloneLastFolder) +
           "`, one worker set per mode) gave no rate to set beside the ladder's first N=1 worker sets" + left_out +
           ": its drift is not known.";
  return "One copy alone again after the ladder (`sweeps/" + std::string(kAloneLastFolder) +
         "`, one worker set per mode): " + drift + " the rate of the ladder's first N=1 worker sets " + per +
         " (1.00x: no drift)" + (a.alone_last_skipped.empty() ? "" : "; left out: " + a.alone_last_skipped) +
         ". Every ratio to one copy alone is over all " + std::to_string(ts ? ts->sets.size() : 0) +
         " of its time-sliced worker sets, their spread in each interval.";
}

std::string errors_at(const std::vector<Check>& checks, int procs) {
  std::string s;
  for (const ModeKind mode : kLadderModes)
    if (const Check* c = find_check(checks, mode, procs); c && std::isfinite(c->error()))  // not co-run: none
      s += std::string(s.empty() ? "N=" + std::to_string(procs) + ": " : ", ") +
           (mode == ModeKind::timeslice ? "time-sliced " : "MPS ") + pct_signed(c->error());
  return s;
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
      "lies inside a predicted bracket). A measured value's interval (~94 %, Welch) is over its worker sets and one "
      "copy alone's, whose spread every ratio to it carries; one copy alone's own is its mean's." +
      (simulated ? " How well the simulator predicts: docs/PREDICT.md." : "") + "\n\n";
  md += ladder_table(a, checks);
  if (const std::string inside = coverage_words(checks); !inside.empty())
    md +=
        "\nA simulated prediction's interval (in brackets) is the least and the largest throughput of its phase "
        "draws (copies out of phase, docs/PREDICT.md). The measured mean lies inside it in " +
        inside + " cells.\n";
  md += above_ideal_words(a, unit);
  if (const std::string times = unit_time_table(a); !times.empty() && a.alone.placed())
    md += "\nEach copy's time per " + unit + " (predicted: the model's loss times one " + unit +
          " alone time-sliced, " + fmt_sig(basis_unit_ms(a)) +
          " ms, over the mode's scale; for a paced program it is the " + unit + "'s latency):\n\n" + times;
  if (!simulated) md += contention_words(a);
  md +=
      "\n## Both bases\nThroughput per " + unit +
      " while the copies work and per whole run (start-up included), in "
      "copies alone (one copy alone, time-sliced, is 1; each with its ~94 % interval over its worker sets and one copy "
      "alone's); a copy's run and its start-up; the board's energy per " +
      unit +
      " (NVML's energy counter over each run, idle draw included) and against one copy alone; MPS over "
      "time-slicing at the same N with its ~94 % interval over the worker sets. The advice is decided " +
      basis_words(a.basis.basis, a.alone.unit) + ": " + a.basis.why + ".\n\n";
  md += bases_table(a);
  md += jobs_section(a);
  if (!a.sets_end.empty()) {
    // decided when its sets were added, then open again (one copy alone's last sets moved the anchor, or a later
    // advise --redo reads the sets otherwise): the record stays, beside what the headline says now
    const bool reopened = a.sets_end_decided() && a.recommendation.verdict == AdviceVerdict::undecided;
    md += "\nSets added to settle MPS against time-slicing: " + a.sets_end +
          (reopened ? "; the headline, from every set as the folder holds them now, cannot tell" : "") + ".\n";
  }
  md += "\nThe ladder stopped: " + a.ladder_end + ".\n";
  for (const int n : {4, 10})
    if (const std::string e = errors_at(checks, n); !e.empty()) md += "Model error at " + e + ".\n";
  for (const MeasuredCell& c : a.limits) {
    const MeasuredCell* unlimited = find_measured(a.ladder, ModeKind::mps, c.procs);
    if (c.ok && c.co_run_sets() == 0 && !c.sets.empty()) {  // per unit nothing to show but why
      md += "\n`" + c.mode.name + "` at N=" + std::to_string(c.procs) + ": " + sets_not_co_run_words(c) +
            ": no time per " + unit + ".\n";
      continue;
    }
    const std::string unmeasured = unlimited && unlimited->ok ? limit_unmeasured_words(*unlimited, c, unit) : "";
    md += "\n`" + c.mode.name + "` at N=" + std::to_string(c.procs) + ": " +
          (c.ok ? fmt_sig(c.unit_ms) + " ms per " + unit + " (p99 " + fmt_sig(c.p99_ms) + " ms, " +
                      std::to_string(c.sets.size()) + " worker sets)" +
                      (unlimited && unlimited->ok
                           ? ", " + (unmeasured.empty()
                                         ? times_with_interval(limit_keeps(*unlimited, c)) + " unlimited MPS's speed"
                                         : unmeasured)
                           : "")
                : "failed: " + c.problem) +
          ".\n";
  }
  md += "\n## One copy alone\n" + alone_table(a.alone, a.alone_window, a.ladder);
  if (const std::string last = alone_last_words(a); !last.empty()) md += "\n" + last + "\n";
  if (!a.alone.placed()) md += "\nNot placed on the map: " + a.alone.problem + ". No prediction.\n";
  md += "\n## The scheduler (time-slice X-ray)\nA time slice " + fmt_sig(a.scheduler.slice_ms) + " ms, a switch " +
        fmt_sig(a.scheduler.switch_ms) + " ms, a turn's cost beyond its work " + fmt_sig(a.scheduler.turn_cost_ms) +
        " ms (" + a.scheduler_source + ").\n";
  md += a.figure_note.empty() ? "\n![Predicted and measured throughput](plots/advice.png)\n"
                              : "\nThe figure was not drawn: " + a.figure_note + "\n";
  md += "\nEach step's child sweep is under `sweeps/` (its log beside it); advice.json holds every number above.\n";
  return md;
}

}  // namespace bench_mps::harness
