// `bench_mps advise --beside B` run, and redone from its folder: see advise_parts.hpp.
#include "harness/advise/advise_parts.hpp"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <iostream>
#include <set>

#include "harness/advise/advise.hpp"
#include "harness/advise/advise_beside.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/json_text.hpp"
#include "harness/common/signals.hpp"
#include "harness/tools/child_sweeps.hpp"
#include "harness/tools/tool_session.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/results/interference_rows.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/sweep/preflight.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The headline of a pair whose sweep did not run to its end; --redo keeps it (and the exit) as it was.
constexpr const char* kBesideSweepFailed = "No advice: the pair's sweep failed (";

/// Where the budget stopped the pair's sweep: how far it got and the budget that would hold it all at that pace
/// (its runs one after another), or "" where no run's record can be read.
std::string budget_words(const SweepOutcome& o, const SweepSpec& spec, double budget_s) {
  std::size_t planned = 0;
  for (const ModeBlock& b : plan_sweep(spec)) planned += b.runs().size();
  std::size_t finished = 0;
  try {
    std::set<std::string> runs;  // a run's workers share its run_id
    for (const WorkerRecord& w : read_runs(o.dir / "runs.csv")) runs.insert(w.run_id);
    finished = runs.size();
  } catch (const std::exception&) {
    return "";
  }
  if (planned == 0) return "";
  const std::string of = std::to_string(finished) + " of its " + std::to_string(planned) + " runs finished in " +
                         fmt_fixed(o.seconds, 0) + " s";
  if (finished == 0) return " " + of + ": give a larger --budget, or shorter runs";
  // the budget's seconds the sweep did not get, and its whole plan at the pace of its first runs, a tenth more
  // for runs that take longer than those did
  const double needed = std::ceil(budget_s - o.seconds + o.seconds * static_cast<double>(planned) / finished * 1.1);
  return " " + of + ": at that pace the pair needs about " + fmt_fixed(needed, 0) + " s" +
         (needed <= kAdviseMaxBudgetS ? "; run advise again with --budget " + fmt_fixed(needed, 0) + " or more"
                                      : ", more than --budget's " + fmt_fixed(kAdviseMaxBudgetS, 0) +
                                            " s: shorten each run (the workload's --duration)");
}

/// beside.json (`meta` with the advice) and beside.md into `out`, and the advice on screen.
void write_beside(const fs::path& out, nlohmann::json meta, const BesideAdvice& advice) {
  meta["beside_format_version"] = kBesideFormatVersion;
  meta["beside"] = beside_json(advice);
  const std::string machine = machine_line(meta, "no GPU (CPU stand-ins: the numbers describe the CPU, not a GPU)");
  write_file_atomically(out / "beside.json", json_text(meta, 2) + "\n");
  write_file_atomically(out / "beside.md", beside_markdown(advice, machine));
  std::cout << advice.headline << "\n";
  for (const std::string& r : advice.reasons) std::cout << "  - " << r << "\n";
  std::cout << "advice: " << (out / "beside.md").string() << "\n" << std::flush;
}

}  // namespace

int redo_beside(const fs::path& dir) {
  const fs::path file = dir / "beside.json";
  const nlohmann::json stored = read_stored_json(file);
  BesideAdvice advice;
  try {
    if (const int v = stored.at("beside_format_version").get<int>(); v < 1 || v > kBesideFormatVersion)
      throw ResultsError(file.string() + ": beside_format_version " + std::to_string(v) + ", this bench_mps reads " +
                         std::to_string(kBesideFormatVersion));
    const fs::path summary = dir / "sweeps" / "beside" / "summary.csv";
    std::error_code ec;
    if (!fs::is_regular_file(summary, ec))
      throw ResultsError(summary.string() + " not found: the pair's sweep never wrote it");
    const std::string a = stored.at("beside").at("a").get<std::string>(),
                      b = stored.at("beside").at("b").get<std::string>();
    const std::string said = stored.at("beside").value("headline", std::string());
    if (said.rfind(kBesideSweepFailed, 0) == 0) {  // as when it ran: the pair's sweep stopped, whatever it left
      advice.a = a;
      advice.b = b;
      advice.headline = said;
      write_beside(dir, stored, advice);
      return kExitFailed;
    }
    std::vector<SummaryRecord> rows = read_summary(summary);
    fill_missing_overlap(summary.parent_path(), rows);  // a folder written before fg_overlap: from its tasks.csv
    advice = beside_from_rows(rows, a, b);
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(file.string() + ": " + json_value_problem(e));
  }
  write_beside(dir, stored, advice);
  // Like the ladder: a comparison that could not be made (a side that never ran ok) is a failed run.
  const auto ran = [&](bool timesliced) {
    return std::any_of(advice.modes.begin(), advice.modes.end(), [&](const BesideMode& m) {
      return m.ok && is_plain(m.mode, ModeKind::timeslice) == timesliced;
    });
  };
  return ran(true) && ran(false) ? kExitOk : kExitFailed;
}

int run_beside(const AdviseSpec& spec) {
  const bool exec = !spec.command.empty();
  const std::vector<std::string> args = beside_args(spec);
  SweepSpec checked = parse_sweep_args(args, "");  // what the child sweep would refuse, refused here (exit 2)
  checked.device = spec.device;
  const ToolSessionSpec session_spec{"advise",
                                     spec.argv,
                                     spec.device,
                                     spec.cpu_stand_in,
                                     spec.out_dir,
                                     "beside-" + (exec ? std::string("exec") : spec.workload) + "-" + spec.beside,
                                     "beside.json",
                                     "a side-by-side advice",
                                     {"beside.md", "sweeps"}};
  check_session_out_dir(session_spec);  // a folder that cannot be used: exit 2 on any machine
  preflight(checked);
  const std::string a = exec ? "`" + spec.command + "`" : spec.workload;
  ToolSession session(session_spec);
  const fs::path& out = session.out();
  std::cerr << "bench_mps advise: " << a << " beside " << spec.beside << ", " << kBesideSets
            << " worker sets per mode (" << kBesideModes << ") -> " << out.string() << std::endl;
  ChildSweeps sweeps(out / "sweeps", {}, spec.budget_s);
  SweepOutcome o;
  try {
    o = sweeps.run("beside", args);
  } catch (const BudgetSpent& e) {
    throw std::runtime_error(std::string("the pair's sweep did not start: ") + e.what());
  }
  BesideAdvice advice;
  if (o.has_runs()) {
    std::vector<SummaryRecord> rows = read_summary(o.dir / "summary.csv");
    fill_missing_overlap(o.dir, rows);
    advice = beside_from_rows(rows, a, spec.beside);
  } else {
    advice.a = a;  // named in beside.md and beside.json all the same, and kept for --redo
    advice.b = spec.beside;
    advice.headline = stop_signal().load()
                          ? "No advice: " + std::string("stopped by a signal (") + strsignal(stop_signal().load()) +
                                ") during the pair's sweep."
                          : std::string(kBesideSweepFailed) + o.last_error + ")." +
                                (o.budget_spent ? budget_words(o, checked, spec.budget_s) + "." : std::string());
  }
  session.finish();
  write_beside(out, session.meta(), advice);
  if (const int exit = ToolSession::signal_exit()) return exit;
  if (o.exit_code == kExitEnvironment) return kExitEnvironment;
  // Like the ladder: a comparison that could not be made (a side that never ran ok) is a failed run.
  const auto ran = [&](bool timesliced) {
    return std::any_of(advice.modes.begin(), advice.modes.end(), [&](const BesideMode& m) {
      return m.ok && is_plain(m.mode, ModeKind::timeslice) == timesliced;
    });
  };
  return ran(true) && ran(false) ? kExitOk : kExitFailed;
}

}  // namespace bench_mps::harness
