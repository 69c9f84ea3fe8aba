#include "harness/conform/conform.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/signals.hpp"
#include "harness/conform/levers.hpp"
#include "harness/tools/tool_session.hpp"
#include "harness/mps/compute_mode.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/results/meta.hpp"
#include "harness/sweep/gpu_select.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/sweep/preflight.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The levers --only names (all when empty); an unknown name is a UsageError listing the known ones.
std::vector<const Lever*> chosen_levers(const std::vector<std::string>& only) {
  std::vector<const Lever*> chosen;
  for (std::size_t i = 0; i < only.size(); ++i) {
    const std::string& id = only[i];
    if (trim(id).empty()) throw UsageError("--only: an empty lever id (a comma too many?)");
    if (std::find(only.begin(), only.begin() + static_cast<std::ptrdiff_t>(i), id) != only.begin() + i)
      throw UsageError("--only: '" + id + "' is listed twice");
    const auto& all = conform_levers();
    if (std::none_of(all.begin(), all.end(), [&](const Lever& l) { return l.id == id; })) {
      std::string known;
      for (const Lever& l : all) known += (known.empty() ? "" : ", ") + l.id;
      throw UsageError("--only: unknown lever '" + id + "' (known: " + known + ")");
    }
  }
  for (const Lever& l : conform_levers())
    if (only.empty() || std::find(only.begin(), only.end(), l.id) != only.end()) chosen.push_back(&l);
  return chosen;
}

}  // namespace

std::vector<std::string> conform_common_args(const std::string& device) {
  std::vector<std::string> common{"--repeats", "1", "--settle", "0"};
  if (!device.empty()) common.insert(common.end(), {"--device", device});
  return common;
}

namespace {

ConformRow run_lever(const Lever& lever, const ConformSetup& setup, ChildSweeps& sweeps) {
  ConformRow row{lever.id, lever.lever, ConformVerdict::error, lever.expectation, "", "", 0};
  const auto start = std::chrono::steady_clock::now();
  try {
    const Judgement j = lever.check(setup, sweeps);
    row.verdict = j.verdict;
    row.evidence = j.evidence;
    row.reason = j.reason;
  } catch (const BudgetSpent& e) {
    row.reason = e.what();
  } catch (const std::exception& e) {  // a results file it could not read, a folder it could not make
    row.reason = std::string("the check failed: ") + one_line(e.what());
  }
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return row;
}

}  // namespace

int run_conform(const ConformSpec& spec) {
  const std::vector<const Lever*> levers = chosen_levers(spec.only);
  const ToolSessionSpec session_spec{"conform",         spec.argv,         spec.device,
                                     spec.cpu_stand_in, spec.out_dir,      "conform",
                                     kConformJsonFile,  "conform results", {"conform.md", "conform.csv", "sweeps"}};
  check_session_out_dir(session_spec);  // a folder that cannot be used: exit 2 on any machine
  {  // the machine, checked as its child sweeps will check it: a busy GPU, a foreign MPS daemon, the compute
     // mode are exit 3 before anything is written, as for a sweep and advise (issue 35)
    SweepSpec probe;
    probe.workloads = {spec.cpu_stand_in ? "cpu" : "spin"};
    probe.procs = {2};
    probe.modes = parse_modes("timeslice,mps");
    probe.device = spec.device;
    probe.cpu_stand_in = spec.cpu_stand_in;
    preflight(probe);  // its GPU lock is let go at once: each child sweep takes it in turn
  }
  ToolSession session(session_spec);
  const fs::path& out = session.out();
  const DeviceChoice& device = session.device();
  ConformSetup setup{spec.cpu_stand_in, spec.set_exclusive, session.gpu()};
  ConformResults results;
  results.meta = session.meta();
  results.meta["conform"] = {{"budget_s", spec.budget_s},
                             {"cpu_stand_in", spec.cpu_stand_in},
                             {"set_exclusive", spec.set_exclusive},
                             {"only", spec.only},
                             {"device", device.id.key}};
  ChildSweeps sweeps(out / "sweeps", conform_common_args(session.device_key()), spec.budget_s);

  std::cerr << "bench_mps conform: " << levers.size() << " levers on " << device.describe() << ", at most "
            << fmt_num(spec.budget_s) << " s -> " << out.string() << "\n";
  std::size_t judged = 0;
  for (std::size_t i = 0; i < levers.size() && !stop_signal().load(); ++i) {
    std::cerr << "[" << i + 1 << "/" << levers.size() << "] " << levers[i]->id << ": " << levers[i]->lever << " ..."
              << std::endl;
    ConformRow row = run_lever(*levers[i], setup, sweeps);
    if (stop_signal().load()) break;  // stopped part way: not judged (its sweep was stopped, not failed)
    ++judged;
    std::cerr << "[" << i + 1 << "/" << levers.size() << "] " << row.id << ": " << conform_verdict_name(row.verdict)
              << " (" << fmt_fixed(row.seconds, 1) << " s)" << (row.evidence.empty() ? "" : ": " + row.evidence)
              << (row.reason.empty() ? "" : ": " + row.reason) << std::endl;
    results.rows.push_back(std::move(row));
    write_conform(out, results);  // each row durable as it is judged
  }

  if (judged < levers.size()) {  // a stop: the levers not judged are named, not left out silently
    results.meta["not_judged"] = nlohmann::json::array();
    for (std::size_t i = judged; i < levers.size(); ++i) results.meta["not_judged"].push_back(levers[i]->id);
  }
  session.finish();
  results.meta["status"] = session.meta()["status"];
  results.meta["finished_utc"] = session.meta()["finished_utc"];
  write_conform(out, results);
  std::cout << conform_table_markdown(results.rows) << "\nresults: " << out.string() << "\n" << std::flush;
  if (const int exit = ToolSession::signal_exit()) return exit;
  const bool failed = std::any_of(results.rows.begin(), results.rows.end(), [](const ConformRow& r) {
    return r.verdict == ConformVerdict::fail || r.verdict == ConformVerdict::error;
  });
  return failed ? kExitFailed : kExitOk;
}

}  // namespace bench_mps::harness
