// `bench_mps advise --redo DIR`: see advise.hpp (redo_advice).
#include "harness/advise/advise.hpp"

#include <algorithm>
#include <cmath>

#include "harness/advise/advise_job.hpp"
#include "harness/advise/advise_ladder.hpp"
#include "harness/advise/advise_output.hpp"
#include "harness/advise/advise_parts.hpp"
#include "harness/common/csv_table.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/files.hpp"
#include "harness/common/json_text.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/sweep_meta.hpp"
#include "harness/simulate/phases.hpp"
#include "harness/workers/workload_config.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

nlohmann::json read_stored_json(const fs::path& file) {
  const std::string text = read_input_file(file);  // a folder or device standing there, named as such
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw ResultsError(file.string() + ": not JSON: " + one_line(e.what()));
  }
}

namespace {

/// The ladder an advice.json stored, checked like a results folder's numbers (issue 35): a whole N from 2 to the
/// largest advise takes as max_procs, a ladder of distinct whole N from 1 up to it.
std::vector<int> stored_ladder(const nlohmann::json& settings, const fs::path& file) {
  const nlohmann::json& max_procs = settings.at("max_procs");
  if (!max_procs.is_number_integer() || max_procs.get<long long>() < 2 || max_procs.get<long long>() > kAdviseMaxProcs)
    throw ResultsError(file.string() + ": advise.max_procs " + max_procs.dump().substr(0, 40) +
                       " is not a whole N from 2 to " + std::to_string(kAdviseMaxProcs));
  std::vector<int> rungs;
  const nlohmann::json& ladder = settings.at("ladder");
  if (!ladder.is_array() || ladder.empty() || ladder.size() > static_cast<std::size_t>(kAdviseMaxProcs))
    throw ResultsError(file.string() + ": advise.ladder is not a list of N");
  for (const nlohmann::json& n : ladder) {
    if (!n.is_number_integer() || n.get<long long>() < 1 || n.get<long long>() > kAdviseMaxProcs ||
        std::find(rungs.begin(), rungs.end(), n.get<int>()) != rungs.end())
      throw ResultsError(file.string() + ": advise.ladder holds " + n.dump().substr(0, 40) +
                         ", not a distinct whole N from 1 to " + std::to_string(kAdviseMaxProcs));
    rungs.push_back(n.get<int>());
  }
  return rungs;
}

/// Whether advise read the child sweep in `dir` when it ran: one that it stopped (the budget ran out, a signal; its
/// meta.json says "interrupted") it did not, so neither does a redo (the finished runs such a folder keeps would
/// otherwise turn into cells the advice never had).
bool read_when_run(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "summary.csv", ec)) return false;
  if (!fs::is_regular_file(dir / "meta.json", ec)) return true;
  const nlohmann::json meta = read_stored_json(dir / "meta.json");
  const std::string interrupted = sweep_status_name(SweepStatus::interrupted);
  return !meta.is_object() || meta.value("status", std::string()) != interrupted;
}

/// advice.json's entry for the thread limit advise ran (or meant to run) in `folder` (limit_folder), if any.
const nlohmann::json* stored_limit(const nlohmann::json& stored, const std::string& folder) {
  if (!stored.contains("limits") || !stored.at("limits").is_array()) return nullptr;
  for (const nlohmann::json& l : stored.at("limits")) {
    const std::optional<Mode> mode = l.is_object() && l.contains("mode") && l.at("mode").is_string()
                                         ? mode_in_results(l.at("mode").get<std::string>())
                                         : std::nullopt;
    if (mode && limit_folder(*mode) == folder) return &l;
  }
  return nullptr;
}

/// A thread limit that measured nothing, as advice.json stored it (its mode, N and why), else `problem`.
MeasuredCell unrun_limit(const nlohmann::json* l, const std::string& problem) {
  MeasuredCell c;
  c.problem = problem;
  c.mode = parse_mode("mps:auto");
  if (!l) return c;
  c.mode = *mode_in_results(l->at("mode").get<std::string>());
  c.procs = l->value("procs", 0);
  c.problem = l->value("problem", c.problem);
  return c;
}

/// Whether the stored advice.json's ladder holds a cell of N=`n` with worker sets (one advise measured).
bool stored_ran_at(const nlohmann::json& stored, int n) {
  if (!stored.contains("ladder") || !stored.at("ladder").is_array()) return false;
  return std::any_of(stored.at("ladder").begin(), stored.at("ladder").end(), [n](const nlohmann::json& c) {
    return c.is_object() && c.contains("procs") && c.at("procs").is_number_integer() && c.at("procs") == n &&
           c.contains("sets") && c.at("sets").is_array() && !c.at("sets").empty();
  });
}

/// Refuses a ladder whose sweeps hold fewer worker sets of a cell than advice.json says it had (a settling round's
/// folder, or the runs in one, gone): the verdict would be decided again on fewer sets, silently.
void refuse_lost_sets(const fs::path& sweeps, const nlohmann::json& stored, const std::vector<MeasuredCell>& ladder) {
  if (!stored.contains("ladder") || !stored.at("ladder").is_array()) return;
  for (const nlohmann::json& c : stored.at("ladder")) {
    if (!c.is_object() || !c.contains("sets") || !c.at("sets").is_array() || !c.contains("mode") ||
        !c.at("mode").is_string() || !c.contains("procs") || !c.at("procs").is_number_integer())
      continue;
    const std::string mode = c.at("mode").get<std::string>();
    const int procs = c.at("procs").get<int>();
    const auto read = std::find_if(ladder.begin(), ladder.end(),
                                   [&](const MeasuredCell& m) { return m.mode.name == mode && m.procs == procs; });
    const std::size_t had = c.at("sets").size(), has = read == ladder.end() ? 0 : read->sets.size();
    if (has < had)
      throw ResultsError(sweeps.string() + ": holds " + std::to_string(has) + " worker set(s) of " + mode +
                         " N=" + std::to_string(procs) + ", though advice.json says it had " + std::to_string(had) +
                         " (a sweep's folder or its runs gone)");
  }
}

/// The measured cells of an advise folder's child sweeps (`sweeps`): each rung, the sets added to settle the
/// verdict (in their order), the thread limits (in the order they ran: limit_folder); none of a sweep advise
/// stopped (read_when_run).
void read_stored_cells(const fs::path& sweeps, const UnitChoice& unit, const std::vector<int>& rungs,
                       const nlohmann::json& stored, Advice& advice) {
  std::error_code ec;
  for (const int n : rungs) {
    const fs::path rung = sweeps / ("ladder-" + std::to_string(n));
    // A rung advice.json holds cells of, whose runs are gone: the advice would silently lose that N (and with it a
    // mode's sharing), so it is refused as any damaged folder is.
    if (!fs::is_regular_file(rung / "summary.csv", ec) && stored_ran_at(stored, n))
      throw ResultsError((rung / "summary.csv").string() +
                         ": no such file, though advice.json says the ladder ran N=" + std::to_string(n));
    if (!read_when_run(rung)) continue;
    read_cells(rung, unit, advice.ladder);
    // A ladder that ran to its end ran every rung: a rung's folder without a run of its N is damaged, and what it
    // lost would silently leave the advice.
    if (!stopped_early(advice.ladder_end_kind) &&
        std::none_of(advice.ladder.begin(), advice.ladder.end(), [n](const MeasuredCell& c) { return c.procs == n; }))
      throw ResultsError((rung / "summary.csv").string() + ": holds no run of N=" + std::to_string(n) +
                         ", a rung advice.json says ran (" + advice.ladder_end + ")");
  }
  // Every round advise ran, in order: a round adds a set to the best cell of each mode, and the best cells may change
  // from round to round, so there can be more rounds than kMaxSetsPerCell (one cell's cap is not the other's).
  for (int round = 1;; ++round) {
    bool ran = false;
    for (const MeasuredCell& c : std::vector<MeasuredCell>(advice.ladder)) {
      const fs::path more = sweeps / more_folder(round, c.mode.name, c.procs);
      ran = ran || fs::exists(more, ec);
      if (read_when_run(more)) read_cells(more, unit, advice.ladder);
    }
    if (!ran) break;
  }
  // One copy alone again after the ladder (since 4f055cb6, 2026-12-03): read where advise read it, else why it did not run.
  if (read_when_run(sweeps / kAloneLastFolder)) {
    advice.alone_last_ran = true;
    advice.alone_last_skipped = add_alone_last(sweeps / kAloneLastFolder, unit, advice.ladder);
  } else if (stored.contains("alone_last") && stored.at("alone_last").is_object()) {
    // A run advice.json says ran, whose folder is gone: every ratio's anchor would lose a draw, silently.
    if (stored.at("alone_last").value("ran", false) && !fs::exists(sweeps / kAloneLastFolder, ec))
      throw ResultsError((sweeps / kAloneLastFolder).string() +
                         ": no such folder, though advice.json says one copy alone ran again there after the ladder");
    advice.alone_last_skipped = stored.at("alone_last").value("why_not", std::string());
  }
  refuse_lost_sets(sweeps, stored, advice.ladder);
  for (const std::string folder : {"limits", "limits-2x"})
    if (read_when_run(sweeps / folder)) {
      std::vector<MeasuredCell> cells;
      read_cells(sweeps / folder, unit, cells);
      if (!cells.empty()) advice.limits.push_back(cells.front());
    } else if (fs::is_regular_file(sweeps / folder / "summary.csv", ec)) {  // a sweep advise stopped
      advice.limits.push_back(unrun_limit(stored_limit(stored, folder),
                                          "its sweep did not finish (" + folder + "/meta.json: interrupted)"));
    } else if (const nlohmann::json* l = stored_limit(stored, folder); l && !fs::exists(sweeps / folder, ec)) {
      // Never started (the budget would not hold it, c5ef13aa): said as advise said it. One that ran, gone: refused.
      if (l->value("ok", false) || !l->value("sets", nlohmann::json::array()).empty())
        throw ResultsError((sweeps / folder).string() + ": no such folder, though advice.json says " +
                           l->at("mode").get<std::string>() + " ran there");
      advice.limits.push_back(unrun_limit(l, ""));
    }
}

/// A stored number, NaN where it is null (or anything but a number).
double number(const nlohmann::json& v) { return v.is_number() ? v.get<double>() : NAN; }

/// The scheduler the advice was made with, as stored (its hold since the gaps probe), in bounds.
void read_stored_scheduler(const nlohmann::json& stored, const fs::path& file, Advice& advice) {
  const nlohmann::json& sched = stored.at("scheduler");
  advice.scheduler = {number(sched.at("slice_ms")), number(sched.at("switch_ms")), number(sched.at("turn_cost_ms"))};
  advice.scheduler.hold_us = sched.contains("hold_us") ? number(sched.at("hold_us")) : NAN;
  check_scheduler_bounds(advice.scheduler, file.string() + ": scheduler's");
  advice.scheduler_source = sched.at("source").get<std::string>();
}

/// How the ladder ended, its words and its kind (stored before the kind was: from its words, once).
void read_stored_ladder_end(const nlohmann::json& stored, const fs::path& file, Advice& advice) {
  advice.ladder_end = stored.at("ladder_end").get<std::string>();
  if (!stored.contains("ladder_end_kind")) {
    advice.ladder_end_kind = ladder_end_of_stored_words(advice.ladder_end);
  } else if (const auto kind = parse_ladder_end(stored.at("ladder_end_kind").get<std::string>())) {
    advice.ladder_end_kind = *kind;
  } else {
    throw ResultsError(file.string() + ": ladder_end_kind '" +
                       stored.at("ladder_end_kind").get<std::string>().substr(0, 40) + "' is no way a ladder ends");
  }
}

}  // namespace

int redo_advice(const std::string& dir_text, const std::string& basis, const std::string& job_length) {
  const fs::path dir = dir_text;
  const fs::path file = dir / kAdviceJsonFile;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec) && fs::is_regular_file(dir / "beside.json", ec)) {
    if (!basis.empty())
      throw UsageError("--basis: a side-by-side advice has no basis to choose (" + dir.string() + ")");
    if (!job_length.empty())
      throw UsageError("--job-length: a side-by-side advice has no ladder to compose a job from (" + dir.string() +
                       ")");
    return redo_beside(dir);
  }
  if (!fs::exists(file, ec)) throw UsageError("--redo: " + file.string() + " not found (not an advise folder)");
  const nlohmann::json stored = read_stored_json(file);
  Advice advice;
  try {
    if (!stored.at("advice_format_version").is_number_integer())
      throw ResultsError(file.string() + ": advice_format_version " +
                         stored.at("advice_format_version").dump().substr(0, 40) + " is not a whole number");
    if (const int v = stored.at("advice_format_version").get<int>(); v < 1 || v > kAdviceFormatVersion)
      throw ResultsError(file.string() + ": advice_format_version " + stored.at("advice_format_version").dump() +
                         ", this bench_mps reads " + std::to_string(kAdviceFormatVersion));
    advice.meta = advice_meta(stored);
    const nlohmann::json& settings = stored.at("advise");
    const SweepSpec workload = parse_sweep_args(settings.at("workload_args").get<std::vector<std::string>>());
    const nlohmann::json& profiled = settings.value("unit_from_profiles", nlohmann::json(false));
    if (!profiled.is_boolean())
      throw ResultsError(file.string() + ": advise.unit_from_profiles " + profiled.dump().substr(0, 40) +
                         " is not true or false");
    const UnitChoice unit = unit_choice(workload, profiled.get<bool>());
    advice.subject = stored.at("subject").get<std::string>();
    read_stored_scheduler(stored, file, advice);
    read_stored_ladder_end(stored, file, advice);
    const nlohmann::json& seconds = stored.at("seconds");
    if (!seconds.is_number() || !(seconds.get<double>() >= 0) || !std::isfinite(seconds.get<double>()))
      throw ResultsError(file.string() + ": seconds " + seconds.dump().substr(0, 40) + " is not a duration in seconds");
    advice.seconds = seconds.get<double>();
    // One copy alone timed as the run timed it: from its profile where advise measured its units (since
    // 2026-12-03: every program without --exec-metric), whichever unit the ladder then took.
    const fs::path alone_dir = dir / "sweeps" / "alone";
    const UnitChoice alone_unit = unit_choice(workload, fs::is_regular_file(alone_dir / "units.csv", ec));
    advice.alone = read_alone(alone_dir, alone_unit, workload.profile_gap_us, &advice.alone_window);
    if (unit.profiled && advice.alone.unit != LadderUnit::step)
      throw ResultsError(file.string() + ": advise.unit_from_profiles is true, but one copy alone has no step (" +
                         advice.alone.unit_basis + ")");
    // The basis as asked then (format 2 and older: auto), unless --basis asks again (and is stored).
    if (!basis.empty()) advice.meta["advise"]["basis"] = basis;
    if (!job_length.empty()) advice.meta["advise"]["job_length"] = job_length;
    // As stored: absent (format 2 and older: auto) or a word; anything else is a damaged folder, never auto.
    if (settings.contains("basis") && !settings.at("basis").is_string())
      throw ResultsError(file.string() + ": advise.basis " + settings.at("basis").dump().substr(0, 40) +
                         " is not auto, unit or run");
    const nlohmann::json stored_job = settings.value("job_length", nlohmann::json(nullptr));
    if (job_length.empty() && !stored_job.is_null() &&
        !(stored_job.is_string() && parse_job_length(stored_job.get<std::string>())))
      throw ResultsError(file.string() + ": advise.job_length " + stored_job.dump().substr(0, 40) +
                         " is not a job length (a duration such as 2h, a count of units, or 10x; null for none)");
    const std::string asked = settings.contains("basis") ? settings.at("basis").get<std::string>() : "auto";
    if (basis.empty() && !is_basis_word(asked))
      throw ResultsError(file.string() + ": advise.basis '" + asked.substr(0, 40) + "' is not auto, unit or run");
    advice.basis = choose_basis(parse_basis(basis.empty() ? asked : basis), advice.alone);
    advice.sets_end = stored.value("sets_end", std::string());
    if (!workload.params.exec.check.empty()) {  // --check-metric: its tolerance as stored (1 % by default)
      const nlohmann::json& tol =
          settings.contains("check_tolerance_pct") ? settings.at("check_tolerance_pct") : nlohmann::json(1.0);
      if (!tol.is_number() || !(tol.get<double>() >= 0 && tol.get<double>() <= 100))
        throw ResultsError(file.string() + ": advise.check_tolerance_pct " + tol.dump().substr(0, 40) +
                           " is not a percentage");
      advice.check_tolerance_pct = tol.get<double>();
    }
    const nlohmann::json& max_procs = settings.at("max_procs");
    const std::vector<int> rungs = stored_ladder(settings, file);
    // The simulator's phase draws as stored (a folder stored before them: 0, one replay, as it was made).
    const nlohmann::json draws = settings.value("phase_draws", nlohmann::json(0));
    if (!draws.is_number_integer() || draws.get<int>() < 0 || draws.get<int>() > kMaxPhaseDraws)
      throw ResultsError(file.string() + ": advise.phase_draws " + draws.dump().substr(0, 40) +
                         " is not a count from 0 to " + std::to_string(kMaxPhaseDraws));
    advice.predicted = predictions(dir / "sweeps" / "alone", unit, workload.profile_gap_us, advice.alone,
                                   advice.scheduler, max_procs.get<int>(), draws.get<int>());
    read_stored_cells(dir / "sweeps", unit, rungs, stored, advice);
    const double slo = number(settings.at("slo_p99_ms"));  // null (none) or a target --slo-p99-ms would take
    if (!settings.at("slo_p99_ms").is_null() && !(slo >= 0.001 && slo <= 1e7))
      throw ResultsError(file.string() + ": advise.slo_p99_ms " + settings.at("slo_p99_ms").dump().substr(0, 40) +
                         " is not a p99 target in ms (0.001 to 1e7, or null)");
    finish_advice(advice, slo);
    // What advice.md and advice.json read back of the stored settings (started_utc, the machine's names): a value
    // of the wrong type is this file's, refused before anything is written.
    (void)advice_json(advice);
    (void)advice_markdown(advice);
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(file.string() + ": " + json_value_problem(e));
  }
  write_advice(dir, advice);
  print_advice(advice, dir);
  return advice.recommendation.verdict == AdviceVerdict::none ? kExitFailed : kExitOk;
}

}  // namespace bench_mps::harness
