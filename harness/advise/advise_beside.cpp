#include "harness/advise/advise_beside.hpp"

#include <algorithm>
#include <map>

#include "harness/advise/advise_recommend.hpp"
#include "harness/common/json_text.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/results/interference_rows.hpp"

namespace bench_mps::harness {
namespace {

using json = nlohmann::json;

/// "0.93 (0.90-0.96)": a mean of independent sets (ratios and sums of ratios, never below 0) with its ~94 %
/// Student-t interval; an interval that would reach below 0 starts at 0 (few sets spread that wide).
std::string mean_with_interval(const std::vector<double>& v) {
  if (v.empty()) return "-";
  const double m = harness::mean(v), w = relative_mean_ci_width(v);
  if (!std::isfinite(w)) return fmt_fixed(m, 2) + " (one set: no interval)";
  return fmt_fixed(m, 2) + " (" + fmt_fixed(std::max(0.0, m * (1 - w / 2)), 2) + "-" + fmt_fixed(m * (1 + w / 2), 2) +
         ")";
}

std::string mode_words(const Mode& mode) {
  if (is_plain(mode, ModeKind::timeslice)) return "time-sliced";
  if (is_plain(mode, ModeKind::mps)) return "under MPS";
  if (mode.kind == ModeKind::mps && mode.prio_first && !is_limited_mps(mode))
    return "under MPS, the background at below-normal priority";
  return mode.name;
}

}  // namespace

double BesideMode::mean(const std::vector<double>& v) const { return harness::mean(v); }

namespace {

/// Each mode's side-by-side runs, in the order they ran: what A and B kept, together, and A's p99.
std::vector<BesideMode> beside_modes(const std::vector<SummaryRecord>& rows) {
  std::vector<std::string> order;
  std::map<std::string, BesideMode> by_mode;
  for (const SummaryRecord& r : rows) {
    if (!r.scenario.is_interference()) continue;
    if (std::find(order.begin(), order.end(), r.mode) == order.end()) order.push_back(r.mode);
    BesideMode& m = by_mode[r.mode];
    const std::optional<Mode> mode = mode_in_results(r.mode);
    if (!mode) throw ResultsError("run " + r.run_id + " has a mode no side-by-side sweep runs: '" + r.mode + "'");
    m.mode = *mode;
    if (r.status != RunStatus::ok) {
      if (m.problem.empty())
        m.problem = r.run_id + ": " + to_string(r.status) + (r.reason.empty() ? "" : ": " + r.reason);
      continue;
    }
    if (r.scenario != RunKind::interference) continue;
    if (!ran_side_by_side(r)) {  // A alone for much of its run: what it kept would read as undisturbed
      m.not_side_by_side.push_back(r.run_id + ": " + not_side_by_side_note(r.fg_overlap));
      continue;
    }
    if (!std::isfinite(r.fg_throughput_vs_alone) || !std::isfinite(r.bg_throughput_kept)) {
      if (m.problem.empty()) m.problem = r.run_id + ": its alone runs did not end ok";
      continue;
    }
    m.a_kept.push_back(r.fg_throughput_vs_alone);
    m.b_kept.push_back(r.bg_throughput_kept);
    m.combined.push_back(r.fg_throughput_vs_alone + r.bg_throughput_kept);
    m.a_p99.push_back(r.fg_p99_vs_alone);
    m.a_p99_ms.push_back(r.fg_latency_p99_ms);
  }
  std::vector<BesideMode> modes;
  for (const std::string& mode : order) {
    BesideMode m = by_mode[mode];
    if (m.problem.empty() && m.combined.empty() && !m.not_side_by_side.empty()) {
      m.problem = "no worker set ran the pair side by side (" + m.not_side_by_side.front() + ")";
      m.apart = true;
    }
    m.ok = m.problem.empty() && !m.combined.empty();
    modes.push_back(m);
  }
  return modes;
}

/// The verdict of MPS's best mode (`shared`) against time-slicing (`ts`) for the pair, and A's tail.
void decide_pair(BesideAdvice& out, const BesideMode& ts, const BesideMode& shared) {
  const std::string pair = out.a + " beside " + out.b;
  out.gain = ratio_of_means(shared.combined, ts.combined);
  const int side = side_of_band(out.gain);
  out.best = side > 0 ? shared.mode.name : side < 0 ? ts.mode.name : std::string("undecided");
  out.headline =
      side > 0 ? "Run " + pair + " " + mode_words(shared.mode) + ": together they did " +
                     times_with_interval(out.gain) + " the work of the pair time-sliced."
      : side < 0 ? "Sharing " + mode_words(shared.mode) + " buys the pair under " + fmt_fixed(100 * kDecisionBand, 0) +
                       " % over time-slicing (" + times_with_interval(out.gain) + "): run " + pair + " time-sliced."
                 : "Can't tell whether " + mode_words(shared.mode) + " beats time-slicing for " + pair + ": " +
                       times_with_interval(out.gain) + " the pair's work" +
                       (out.gain.has_interval() ? ", an interval across +" + fmt_fixed(100 * kDecisionBand, 0) + " %."
                                                : ": too few worker sets to tell.");
  // A's tail on one basis: its p99 under the MPS mode the verdict weighs (chosen by the pair's throughput, before
  // the tail is looked at) over its p99 time-sliced, the p99s themselves (not each over its own mode's alone run).
  out.latency_mode = shared.mode;
  out.latency = ratio_of_means(shared.a_p99_ms, ts.a_p99_ms);
  out.headline += " " + beside_latency_sentence(out);
}

}  // namespace

BesideAdvice beside_from_rows(const std::vector<SummaryRecord>& rows, const std::string& a, const std::string& b) {
  BesideAdvice out;
  out.a = a;
  out.b = b;
  out.modes = beside_modes(rows);
  const BesideMode* ts = nullptr;
  const BesideMode* shared = nullptr;  // the best of the MPS modes: the question is MPS against time-slicing
  for (const BesideMode& m : out.modes) {
    if (!m.ok) continue;
    if (is_plain(m.mode, ModeKind::timeslice))
      ts = &m;
    else if (!shared || m.mean(m.combined) > shared->mean(shared->combined))
      shared = &m;
  }
  if (!ts && !shared) {
    const bool apart = std::any_of(out.modes.begin(), out.modes.end(), [](const BesideMode& m) { return m.apart; });
    out.headline = apart ? "No advice: no side-by-side run of the pair ran " + a + " beside " + b + " for most of " +
                               a + "'s run, or ended ok."
                         : std::string("No advice: no side-by-side run of the pair ended ok.");
    for (const BesideMode& m : out.modes)
      if (!m.ok)
        out.reasons.push_back(mode_words(m.mode) + ": " + (m.problem.empty() ? "did not run" : m.problem) + ".");
    return out;
  }
  if (ts && shared) {
    decide_pair(out, *ts, *shared);
  } else {
    const BesideMode& ran = ts ? *ts : *shared;
    out.best = ran.mode.name;
    std::string why = "it did not run";  // why the other side did not: its first mode's problem
    for (const BesideMode& m : out.modes)
      if (!m.ok && is_plain(m.mode, ModeKind::timeslice) == !ts) {
        why = m.problem.empty() ? m.mode.name + ": no run ended ok" : m.problem;
        break;
      }
    out.headline = "Only " + mode_words(ran.mode) + " ran ok for " + a + " beside " + b + ", nothing to hold it " +
                   "against: " + (ts ? std::string("MPS") : std::string("time-slicing")) + " did not (" + why + ").";
  }
  for (const BesideMode& m : out.modes) {
    if (!m.ok) {
      out.reasons.push_back(mode_words(m.mode) + ": " + (m.problem.empty() ? "no run ended ok" : m.problem) + ".");
      continue;
    }
    out.reasons.push_back(
        mode_words(m.mode) + ": " + a + " ran at " + mean_with_interval(m.a_kept) + " of its throughput alone, " + b +
        " at " + mean_with_interval(m.b_kept) + "; together " + mean_with_interval(m.combined) + " (ideal 2); " + a +
        "'s p99 " + mean_with_interval(m.a_p99) + " its p99 alone (" + std::to_string(m.combined.size()) +
        " worker sets" +
        (m.not_side_by_side.empty()
             ? std::string()
             : "; " + std::to_string(m.not_side_by_side.size()) + " left out, " + m.not_side_by_side.front()) +
        ").");
  }
  return out;
}

std::string beside_latency_sentence(const BesideAdvice& advice) {
  if (!advice.latency_mode || !std::isfinite(advice.latency.ratio)) return "";
  const std::string tail = advice.a + "'s p99 " + mode_words(*advice.latency_mode) + " was " +
                           times_with_interval(advice.latency) + " its p99 time-sliced (p99s in ms, the MPS mode " +
                           "the verdict weighs)";
  if (!advice.latency.has_interval()) return tail + ".";
  const std::string band = fmt_fixed(100 * kDecisionBand, 0) + " %";
  if (advice.latency.hi < 1 - kDecisionBand) return tail + ": a shorter tail, its interval wholly below -" + band + ".";
  if (advice.latency.lo > 1 + kDecisionBand) return tail + ": a longer tail, its interval wholly above +" + band + ".";
  if (advice.latency.lo >= 1 - kDecisionBand && advice.latency.hi <= 1 + kDecisionBand)
    return tail + ": the same within " + band + ".";
  return tail + ": can't tell, its interval across a " + band + " line.";
}

std::string beside_markdown(const BesideAdvice& advice, const std::string& machine) {
  std::string md =
      "# " + advice.a + " beside " + advice.b + "\n\n" + machine + "\n\n**" + advice.headline + "**\n\n## Why\n";
  for (const std::string& r : advice.reasons) md += "- " + r + "\n";
  MarkdownTable t({"mode", "worker sets", advice.a + " (x alone)", advice.b + " (x alone)", "together (ideal 2)",
                   advice.a + " p99 (x alone)"},
                  {false, true, true, true, true, true});
  for (const BesideMode& m : advice.modes)
    t.add_row({mode_words(m.mode), std::to_string(m.combined.size()),
               m.ok      ? mean_with_interval(m.a_kept)
               : m.apart ? "not side by side"
                         : "failed",
               m.ok ? mean_with_interval(m.b_kept) : "-", m.ok ? mean_with_interval(m.combined) : "-",
               m.ok ? mean_with_interval(m.a_p99) : "-"});
  md +=
      "\n## Side by side\nEach one's throughput beside the other over its own alone, the same mode and worker set "
      "(the interference scenario: docs/RESULTS.md's fg_throughput_vs_alone and bg_throughput_kept), and their sum: "
      "2 is both as fast as alone, 1 no gain over one at a time; and A's p99 unit time beside B over A's p99 "
      "alone. Means over the worker sets with their ~94 % interval (one that would reach below 0 starts at 0).\n\n" +
      t.str();
  md += "\nThe sweep is under `sweeps/beside` (its log beside it); beside.json holds every number above.\n";
  return md;
}

json beside_json(const BesideAdvice& advice) {
  json modes = json::array();
  for (const BesideMode& m : advice.modes)
    modes.push_back({{"mode", m.mode.name},
                     {"ok", m.ok},
                     {"problem", m.problem},
                     {"a_kept", m.a_kept},
                     {"b_kept", m.b_kept},
                     {"combined", m.combined},
                     {"a_p99", m.a_p99},
                     {"a_p99_ms", m.a_p99_ms},
                     {"not_side_by_side", m.not_side_by_side}});
  return {{"a", advice.a},
          {"b", advice.b},
          {"modes", modes},
          {"best", advice.best},
          {"gain", interval_json(advice.gain)},
          {"latency_mode", advice.latency_mode ? advice.latency_mode->name : std::string()},
          {"latency", interval_json(advice.latency)},
          {"headline", advice.headline},
          {"reasons", advice.reasons}};
}

}  // namespace bench_mps::harness
