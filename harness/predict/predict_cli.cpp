// `bench_mps predict`: see predict_cli.hpp and docs/PREDICT.md.
#include "harness/predict/predict_cli.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/common/cli_checks.hpp"
#include "harness/common/csv_table.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/word_table.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/predict/measured_units.hpp"
#include "harness/predict/not_co_run_note.hpp"
#include "harness/predict/predict_inputs.hpp"
#include "harness/predict/predict_output.hpp"
#include "harness/predict/prediction.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/simulate/open_loop.hpp"
#include "harness/simulate/replay.hpp"  // kMinCommonStepEnds

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

constexpr WordTable<AloneDraws, 2> kAloneDrawsWords{{{AloneDraws::one, "one"}, {AloneDraws::all, "all"}}};

/// The largest N predicted: it predicts every N under MPS too, whose server takes this many clients.
constexpr int kMaxPredictProcs = kMpsClientCeiling;

constexpr const char* kFooter =
    "Predicts N copies of a program, time-sliced and under MPS, per unit (its steps: between two host\n"
    "waits, or its own metric) and per whole run (start-up included), from one copy alone and the X-ray:\n"
    "the copy's GPU trace is replayed N times through a model of the scheduler (docs/PREDICT.md). Beside\n"
    "it, the naive and the regime model's predictions. Nothing of the program at N >= 2 is used.\n"
    "\n"
    "Examples:\n"
    "  bench_mps --workloads exec --command 'python3 train.py' --procs 1 --modes timeslice,mps --repeats 1 \\\n"
    "      --profile-gpu --out alone\n"
    "  bench_mps --scenario xray --out xray\n"
    "  bench_mps predict alone --xray xray                 # N = 2..10, both modes\n"
    "  bench_mps predict alone --xray xray --procs 2,4,10 --against ladder --out scored\n"
    "  bench_mps predict --measure ladder                  # ladder/units.csv: each copy's run and unit\n"
    "\n"
    "Exit codes: 0 ok; 2 bad command line or input (a missing, damaged or foreign folder or profile,\n"
    "a bad N; one line naming it, nothing written); 3 a full disk or quota where --out goes; 128+N\n"
    "stopped by signal N.";

/// The name of the alone folder (or profile) as the outputs call the program: its last part, a trailing "/" or
/// "." aside (its resolved name where it has none, e.g. "..").
std::string folder_name(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  std::string name = p.filename().string();
  if (name.find_first_not_of('.') == std::string::npos) {  // "", ".", "..": no name of its own
    std::error_code ec;
    name = fs::weakly_canonical(path, ec).filename().string();
  }
  return name.empty() ? std::string("program") : name;
}

/// The folder for predict.*: new, or empty (a folder holding anything is refused: nothing of the user's
/// is overwritten).
void claim_out(const fs::path& out) {
  std::error_code ec;
  const fs::file_status st = fs::status(out, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw UsageError("--out " + out.string() + ": cannot be used (" + ec.message() + ")");
  std::error_code lec;
  if (!fs::exists(st) && fs::is_symlink(fs::symlink_status(out, lec)))
    throw UsageError("--out " + out.string() + ": a link to nothing (give a new or empty folder)");
  if (fs::exists(st)) {
    if (!fs::is_directory(out, ec)) throw UsageError("--out " + out.string() + ": exists and is not a folder");
    if (fs::directory_iterator(out, ec) != fs::directory_iterator())
      throw UsageError("--out " + out.string() + ": not empty (give a new or empty folder)");
  }
}

/// Refuses (ResultsError) to write `units` over a units.csv in `dir` that holds a unit they lack: measured
/// from profiles that are gone, it could not be made again.
void check_units_replaceable(const fs::path& dir, const std::vector<MeasuredUnit>& units) {
  std::error_code ec;
  if (!fs::exists(dir / "units.csv", ec)) return;
  std::vector<MeasuredUnit> old;
  try {
    old = read_units(dir / "units.csv");
  } catch (const ResultsError&) {
    return;  // a damaged units.csv holds nothing to keep: measured anew
  }
  std::map<std::pair<std::string, int>, const MeasuredUnit*> now;
  for (const MeasuredUnit& u : units) now[{u.run_id, u.worker}] = &u;
  for (const MeasuredUnit& o : old) {
    if (std::isnan(o.unit_ms)) continue;
    const auto n = now.find({o.run_id, o.worker});
    if (n == now.end() || (std::isnan(n->second->unit_ms) && n->second->basis != UnitBasis::not_co_run))
      throw ResultsError((dir / "units.csv").string() + ": holds units these runs can no longer give (" + o.run_id +
                         " copy " + std::to_string(o.worker) + ": " +
                         (n == now.end() ? std::string("not in runs.csv") : n->second->basis_text()) +
                         "); not overwritten: move it away to measure again");
  }
}

int measure_only(const PredictArgs& a) {
  const fs::path dir = a.measure;
  std::vector<MeasuredUnit> units;
  try {
    units = measure_units(dir, a.gap_us);
  } catch (const ResultsError& e) {  // the folder given: named by its option, as every input of predict is
    throw ResultsError("--measure " + std::string(e.what()));
  }
  if (units.empty()) throw ResultsError(dir.string() + ": runs.csv holds no copy to measure");
  const bool any =
      std::any_of(units.begin(), units.end(), [](const MeasuredUnit& u) { return u.basis != UnitBasis::none; });
  check_units_replaceable(dir, units);
  if (!any)
    throw ResultsError(dir.string() + ": not a ladder: it holds no profiled exec run (" + units.front().basis_text() +
                       "; run it with --workloads exec --profile-gpu)");
  write_units(dir / "units.csv", units);
  std::map<std::string, int> bases;
  for (const MeasuredUnit& u : units) ++bases[u.basis_text()];
  std::cout << "units.csv: " << units.size() << " copies of " << dir.string() << " (";
  bool first = true;
  for (const auto& [b, n] : bases) {
    std::cout << (first ? "" : ", ") << n << " " << b;
    first = false;
  }
  std::cout << ")\n";
  std::vector<double> coverage;
  long co_run = 0;  // by the basis: a window that covers enough but holds too few step ends is no co-run either
  for (const MeasuredUnit& u : units)
    if (u.procs >= 2 && std::isfinite(u.coverage)) {
      coverage.push_back(100 * u.coverage);
      co_run += harness::co_run(u.basis) ? 1 : 0;
    }
  if (!coverage.empty()) {
    std::sort(coverage.begin(), coverage.end());
    std::cout << "co-run (N >= 2): " << co_run << " of " << coverage.size()
              << " copies in a run whose common window covered at least " << fmt_fixed(100 * kMinCoRunCoverage, 0)
              << " % of every copy's steady part and held at least " << kMinCommonStepEnds
              << " of its step ends; coverage median " << fmt_fixed(coverage[coverage.size() / 2], 1) << " %, least "
              << fmt_fixed(coverage.front(), 1) << " %\n";
  }
  const std::string note = not_co_run_line(not_co_run_note(units, read_runs(dir / "runs.csv")));
  if (!note.empty()) std::cout << note << "\n";
  return 0;
}

/// The N to predict: --procs (each from 2 to kMaxPredictProcs), sorted, else 2 to --max-procs.
std::vector<int> procs_to_predict(const PredictArgs& a) {
  std::vector<int> procs;
  if (!a.procs.empty()) {
    if (a.max_procs_given)
      throw UsageError(
          "--max-procs: does not apply with --procs (it bounds the N predicted where --procs is not given)");
    procs = parse_procs(a.procs, "--procs", kMaxPredictProcs);
    for (int n : procs)
      if (n < 2 || n > kMaxPredictProcs)
        throw UsageError("--procs: " + std::to_string(n) + " is not an N from 2 to " +
                         std::to_string(kMaxPredictProcs));
    std::sort(procs.begin(), procs.end());
  } else {
    for (int n = 2; n <= a.max_procs; ++n) procs.push_back(n);
  }
  return procs;
}

/// The units to score against: of each sweep --against names (against_sweeps), its units.csv where it has one,
/// else measured from its runs now (none without --against). Where it names several (an advise folder's
/// ladder), each run id is prefixed with its sweep's folder (`ladder-4/r1-mps-exec-n4`): the sweeps number
/// their runs alike.
/// units.csv of the sweep `dir` holds each copy of its runs.csv once, and no other (ResultsError naming --against
/// where not: a damaged or stale units.csv scores nothing).
void check_units_match_runs(const std::string& option, const fs::path& dir, const std::vector<MeasuredUnit>& units) {
  std::set<std::pair<std::string, int>> runs, seen;
  std::map<std::string, std::pair<std::string, int>> config;  // each run's mode and N, as runs.csv has them
  for (const WorkerRecord& w : read_runs(dir / "runs.csv")) {
    runs.insert({w.run_id, w.worker});
    config[w.run_id] = {w.mode, w.procs};
  }
  const std::string file = option + (dir / "units.csv").string() + ": ";
  const std::string again = " (run bench_mps predict --measure " + dir.string() + " again)";
  for (const MeasuredUnit& u : units) {
    const std::string copy = "copy " + std::to_string(u.worker) + " of run " + u.run_id;
    if (!seen.insert({u.run_id, u.worker}).second) throw ResultsError(file + copy + " twice: damaged" + again);
    if (!runs.count({u.run_id, u.worker}))
      throw ResultsError(file + copy + " is not in its runs.csv: stale or of another sweep" + again);
    if (const auto& [mode, procs] = config.at(u.run_id); u.mode.name != mode || u.procs != procs)
      throw ResultsError(file + copy + " says " + u.mode.name + " N=" + std::to_string(u.procs) + ", its runs.csv " +
                         mode + " N=" + std::to_string(procs) + ": damaged" + again);
  }
  for (const auto& [run, worker] : runs)
    if (!seen.count({run, worker}))
      throw ResultsError(file + "lacks copy " + std::to_string(worker) + " of run " + run +
                         ", which its runs.csv holds" + again);
}

std::vector<MeasuredUnit> against_units(const PredictArgs& a) {
  std::vector<MeasuredUnit> units;
  if (a.against.empty()) return units;
  const std::vector<fs::path> sweeps = against_sweeps(a.against);
  for (const fs::path& dir : sweeps) {
    std::error_code ec;
    const bool stored = fs::exists(dir / "units.csv", ec);
    std::vector<MeasuredUnit> these;
    try {
      these = stored ? read_units(dir / "units.csv") : measure_units(dir, a.gap_us);
    } catch (const ResultsError& e) {
      throw ResultsError(std::string("--against: ") + e.what());
    }
    if (stored) check_units_match_runs("--against ", dir, these);
    if (sweeps.size() > 1)
      for (MeasuredUnit& u : these) u.run_id = dir.filename().string() + "/" + u.run_id;
    units.insert(units.end(), these.begin(), these.end());
  }
  mark_other_phase(units);  // a stored units.csv of before copies followed their runs alone
  return units;
}

/// A calibration is of one machine (the host's) or one GPU (MPS contention): refused (exit 2) where what it was
/// calibrated on (`on`) is not what the program ran on (`ran_on`), where both are named; `how` says what to do.
void check_calibrated_on(const std::string& option, const std::string& folder, const std::string& on,
                         const std::vector<std::string>& ran_on, const std::string& how) {
  if (on.empty()) return;
  for (const std::string& r : ran_on)
    if (!r.empty() && r != on)
      throw UsageError(option + " " + folder + ": calibrated on " + on + "; the program ran on " + r + " (" + how +
                       ")");
}

}  // namespace

const char* alone_draws_word(AloneDraws d) { return word_of(kAloneDrawsWords, d).value_or("").data(); }

CLI::App* add_predict_command(CLI::App& app, PredictArgs& args) {
  CLI::App* cmd = app.add_subcommand("predict", "predict N copies from one copy alone and the X-ray (docs/PREDICT.md)");
  cmd->footer(kFooter);
  cmd->add_option("alone", args.alone,
                  "a results folder of one copy alone run with --profile-gpu (or a profile-<pid>.json)")
      ->check(not_blank());
  cmd->add_option("--xray", args.xray, "an xray or regimes results folder of the same GPU (the scheduler)")
      ->check(not_blank());
  cmd->add_option("--procs", args.procs, "the N to predict, e.g. 2,4,10 (default 2..--max-procs)")->check(not_blank());
  cmd->add_option_function<int>(
         "--max-procs",
         [&args](int n) {
           args.max_procs = n;
           args.max_procs_given = true;
         },
         "the largest N (with --procs not given; default 10)")
      ->check(whole_in(2, kMaxPredictProcs));
  cmd->add_option("--against", args.against,
                  "a sweep of the same program at N >= 2 (with --profile-gpu), or an advise folder (its ladder): "
                  "the error of each cell")
      ->check(not_blank());
  cmd->add_option("--measure", args.measure, "write DIR/units.csv: each copy's run and unit (predicts nothing)")
      ->check(not_blank());
  cmd->add_option("--out", args.out, "a new or empty folder for predict.csv, predict.json, predict.md")
      ->check(not_blank());
  cmd->add_option("--label", args.label, "the program's name in the outputs (default: the alone folder's name)")
      ->check(not_blank());
  cmd->add_option_function<int>(
         "--phases",
         [&args](int k) {
           args.phases = k;
           args.phases_given = true;
         },
         "copies out of phase: replays with random start offsets and steady steps rotated, their mean the "
         "prediction and their spread its interval (0: one replay, copies a step/N apart; default " +
             std::to_string(kDefaultPhaseDraws) +
             "); the draws replay on the CPUs this process may use (taskset -c to limit them), the same files on "
             "any count")
      ->check(whole_in(0, kMaxPhaseDraws));  // decimal only, as every whole number typed
  cmd->add_flag("--paced", args.paced,
                "the program serves requests due on the clock (sleeping until due, late ones at once): replay its "
                "steady steps open-loop, so copies that fall behind build a backlog")
      ->disable_flag_override();  // a flag: --paced=anything is refused, not read as on or off
  cmd->add_option_function<std::string>(
         "--draws", [&args](const std::string& word) { args.draws = *value_of(kAloneDrawsWords, word); },
         "which runs alone are replayed: one (the one that stands for the program; default) or all (each its own "
         "trace; a cell the median of their ratios to their own unit alone, the interval their spread)")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return value_of(kAloneDrawsWords, v) ? std::string()
                                                 : "'" + v.substr(0, 40) + "' is not a choice of runs: one or all";
          },
          "one|all", "draws"));
  cmd->add_option("--host-calibration", args.host_calibration,
                  "a host calibration of this machine (scripts/device_steps/hostcal.sh): each copy's host time and "
                  "launches stretched by how N copies slowed its host loop (docs/PREDICT.md)")
      ->check(not_blank());
  cmd->add_option("--mps-calibration", args.mps_calibration,
                  "an MPS contention calibration of this GPU (scripts/device_steps/mpscal.sh): kernels running "
                  "together under MPS slowed beyond their shares as synthetic shapes were (docs/PREDICT.md)")
      ->check(not_blank());
  cmd->add_option("--gap-us", args.gap_us,
                  "without host waits, an idle gap at least this long ends a step (raised to a profile's min gap where "
                  "that is longer)")
      ->check(finite_in(1.0, 1e6))
      ->capture_default_str();
  return cmd;
}

int run_predict(const PredictArgs& a) {
  if (!a.measure.empty()) {
    if (!a.alone.empty() || !a.xray.empty() || !a.against.empty() || !a.out.empty())
      throw UsageError(
          "--measure DIR measures a sweep's units alone: give it without a program, --xray, --against or --out");
    for (const auto& [given, name] : {std::pair<bool, const char*>{!a.procs.empty(), "--procs"},
                                      {!a.label.empty(), "--label"},
                                      {a.max_procs_given, "--max-procs"},
                                      {a.phases_given, "--phases"},
                                      {a.paced, "--paced"},
                                      {a.draws != AloneDraws::one, "--draws"},
                                      {!a.host_calibration.empty(), "--host-calibration"},
                                      {!a.mps_calibration.empty(), "--mps-calibration"}})
      if (given) throw UsageError(std::string(name) + ": does not apply to --measure (it predicts nothing)");
    return measure_only(a);
  }
  if (a.alone.empty())
    throw UsageError("predict needs one copy alone: a results folder run with --profile-gpu, or a profile");
  if (a.xray.empty()) throw UsageError("predict needs the scheduler: --xray DIR (bench_mps --scenario xray)");
  const std::vector<int> procs = procs_to_predict(a);
  check_predict_inputs(a);
  if (!a.out.empty()) claim_out(a.out);

  const auto t0 = std::chrono::steady_clock::now();
  SchedulerFacts sched;
  try {
    sched = read_scheduler(a.xray);
  } catch (const ResultsError& e) {
    throw ResultsError("--xray " + std::string(e.what()));
  }
  std::vector<AloneRun> alone = read_alone_runs(a.alone, a.gap_us);
  Calibrations cal;
  if (!a.host_calibration.empty()) cal.host = read_host_calibration(a.host_calibration);
  const HostCalibration& host = cal.host;
  std::error_code ec;
  if (!host.empty() && fs::is_directory(a.alone, ec))
    check_calibrated_on("--host-calibration", host.folder, host.cpu, {cpu_model_of(a.alone)},
                        "calibrate on its machine: scripts/device_steps/hostcal.sh");
  if (!a.mps_calibration.empty()) cal.mps = read_mps_calibration(a.mps_calibration, a.gap_us);
  sched.mps = cal.mps.model();
  if (a.paced)
    for (AloneRun& r : alone) {
      std::vector<AloneRun*> replayed{&r};  // and each run alone where --draws all replays them all
      if (a.draws == AloneDraws::all)
        for (AloneRun& d : r.draws) replayed.push_back(&d);
      for (AloneRun* x : replayed)
        if (!make_open_loop(x->program.trace))
          throw UsageError("--paced: " + x->source + ": its steady part launches no GPU work, nothing to pace");
    }
  std::vector<std::string> profiles_gpu;
  for (const AloneRun& r : alone) profiles_gpu.push_back(r.gpu);
  check_profiles_gpu(a, profiles_gpu);
  if (!cal.mps.empty())
    check_calibrated_on("--mps-calibration", cal.mps.folder, cal.mps.gpu, profiles_gpu,
                        "calibrate on its GPU: scripts/device_steps/mpscal.sh");
  const std::vector<MeasuredUnit> units = against_units(a);
  // One N at a time, saying how far it got where that takes a while (64 N x 16 phase draws: minutes).
  std::vector<PredictedRow> cells;
  for (std::size_t i = 0; i < procs.size(); ++i) {
    for (PredictedRow& c : predict_cells(alone, sched, {procs[i]}, a.phases, host, a.draws == AloneDraws::all))
      cells.push_back(c);
    const double so_far = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (so_far > 5 && i + 1 < procs.size())
      std::cerr << "predict: N=" << procs[i] << " done, " << i + 1 << " of " << procs.size() << " N in "
                << fmt_fixed(so_far, 0) << " s" << std::endl;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto measured = measured_cells(units);
  // One line in every output: a line break or tab in the name (given, or the folder's) is a space, as in predict.csv.
  std::string label = !a.label.empty() ? a.label : folder_name(a.alone);
  std::replace_if(
      label.begin(), label.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, ' ');

  PredictTables tables;
  write_md_head(tables.md, label, alone, sched, a.xray, cal, a.draws == AloneDraws::all);
  write_cells(tables, cells, measured, label, !units.empty());
  std::cout << tables.md.str();
  // The time it took goes to stderr alone, so that the files stay the same from one run to the next.
  std::cerr << "predict: " << label << ": " << procs.size() * 2 << " cells predicted in " << fmt_fixed(seconds, 2)
            << " s\n";
  if (!a.out.empty()) write_outputs(a, label, sched, alone, cal, tables);
  return 0;
}

}  // namespace bench_mps::harness
