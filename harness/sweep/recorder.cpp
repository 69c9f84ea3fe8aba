#include "harness/sweep/recorder.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>

#include "harness/common/fatal_signal.hpp"
#include "harness/common/format.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/sweep/exec_gate.hpp"
#include "harness/sweep/exec_metric_note.hpp"
#include "harness/sweep/gpu_profiling.hpp"
#include "harness/sweep/launch.hpp"
#include "harness/sweep/progress.hpp"
#include "harness/sweep/round_checks.hpp"
#include "harness/sweep/run_reduction.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The run's parameters without what its scenario appended (the fault's delay, the X-ray's probe).
std::string base_params(std::string p) {
  for (const char* appended : {";fault_delay_ms=", ";probe="})
    if (const auto at = p.find(appended); at != std::string::npos) p = p.substr(0, at);
  return p;
}

/// The regime's coordinates (burst and duty alone) and the slowdown of an alone run (1).
void set_coordinates(RunRecord& record, const SummaryRecord* alone) {
  SummaryRow& s = record.summary;
  if (record.spec.scenario.is_plain_workload() && record.spec.procs == 1 && s.status == RunStatus::ok) {
    s.slowdown_vs_alone = 1.0;
    s.burst_alone_ms = s.burst_ms;
    s.duty_alone = s.gpu_busy_share;
  } else if (alone) {
    s.burst_alone_ms = alone->burst_ms;
    s.duty_alone = alone->gpu_busy_share;
  }
}

}  // namespace

RunRecorder::RunRecorder(const SweepSpec& spec, const Environment& env, const fs::path& out, SweepMeta& meta,
                         Monitor& monitor)
    : spec_(spec), env_(env), out_(out), meta_(meta), monitor_(monitor), writer_(out) {}

int RunRecorder::last_set() const {
  int last = 0;
  for (const SummaryRecord& r : records_) last = std::max(last, r.worker_set);
  return last;
}

void RunRecorder::resume(std::vector<SummaryRecord> earlier) {
  records_ = std::move(earlier);
  for (const SummaryRecord& r : records_)
    if (r.status != RunStatus::ok) ++failed_;
  done_ = static_cast<int>(records_.size());
}

/// A finished round, reduced to its record, completed (references, proofs, scenarios) and written.
void RunRecorder::record(FinishedRound& round) {
  const RunSpec& run = round.run;
  fatal_signal_context("recording run " + run.run_id());
  name_memory_limit_failures(round.pool, run);
  const SummaryRecord* alone =
      run.scenario.is_plain_workload() ? reference(run, run.scenario, 1, run.workload) : nullptr;
  RunRecord record = reduce(round, alone);
  check_mps_expectation(record, round.pool);
  std::string profile_line;                // --profile-gpu: said under the run's progress line
  std::optional<nlohmann::json> gate_run;  // its copies' passage of the start gate, for meta.json once recorded
  if (runs_user_program(run.workload)) {
    prove_exec_mode(record, round.pool, round.watch, env_.mps_base, env_.device.id);
    note_exec_metric(record, round.pool);
    if (round.extras && round.extras->gate)
      gate_run = record_gate(record, *round.extras->gate, round.extras->gate_point, round.pool.go_ns,
                             round.pool.go_ns + static_cast<std::int64_t>(spec_.run_timeout_s * 1e9));
    if (spec_.profile_gpu)
      profile_line = record_gpu_profiles(record, out_, spec_.profile_gap_us,
                                         {env_.nvml ? "" : "no NVML: no GPU driver or GPU", monitor_.gpm_error()});
  }
  evaluate_scenario(round, record);
  SummaryRow& s = record.summary;
  if (round.session && !server_checked_ && s.workers_ok > 0 &&
      (run.scenario.is_plain_workload() || run.scenario.is_xray())) {
    // One that listed no server is asked again by the next run; one that did not answer is not (verify_server).
    const ServerCheck check = verify_server(*round.session, *round.block, record, meta_);
    server_checked_ = check == ServerCheck::proven;
    if (check == ServerCheck::interrupted) {  // --resume runs it again
      std::cerr << "bench_mps: " << run.run_id()
                << " interrupted while its MPS server was checked; it is not recorded\n";
      return;
    }
  }
  if (gate_run) {
    if (!meta_.exec_gate)
      meta_.exec_gate = nlohmann::json{{"asked", spec_.exec_gate},
                                       {"timeout_s", spec_.exec_gate_timeout_s},
                                       {"after_open", gate_after_open(spec_.profile_gpu)},
                                       {"runs", nlohmann::json::array()}};
    (*meta_.exec_gate)["runs"].push_back(std::move(*gate_run));
  }
  set_coordinates(record, alone);
  note_device(round.pool, meta_);
  writer_.append(record);  // FileWriteError: not recorded (nothing counted), and the sweep stops (a full disk)
  tally(record, round);
  if (!profile_line.empty()) std::cerr << "  " << profile_line << "\n";
  fatal_signal_context("between runs (the last recorded: " + run.run_id() + ")");
}

/// The pool's result reduced to the run's rows, with the harness's own time and the GPM metrics.
RunRecord RunRecorder::reduce(const FinishedRound& round, const SummaryRecord* alone) {
  const PoolResult& pool = round.pool;
  RunRecord record =
      make_run_record(round.run, pool, monitor_.take(pool.go_ns, pool.end_ns), alone ? alone->task_mean_ms : 0.0,
                      env_.nvml ? env_.nvml->utilization_samples(pool.go_ns) : std::vector<UtilSample>{});
  record.gpm_periods = monitor_.take_gpm(pool.go_ns, pool.end_ns);
  SummaryRow& s = record.summary;
  s.worker_set = round.set;
  s.round = round.round;
  s.settle_s = round.overhead.settle_s;
  s.startup_s = round.overhead.startup_s;
  s.teardown_s = round.overhead.teardown_s;
  if (const auto& gpm = round.extras ? round.extras->gpm : std::nullopt) {
    s.gpm_sm_util = gpm->sm_util;
    s.gpm_sm_occupancy = gpm->sm_occupancy;
    s.gpm_dram_bw_util = gpm->dram_bw_util;
  }
  return record;
}

/// The scenario's own columns (its hooks: the fault's victims and recovery, the X-ray's, the interference's).
void RunRecorder::evaluate_scenario(FinishedRound& round, RunRecord& record) {
  const auto evaluate = run_hooks(round.run.scenario).evaluate;
  if (!evaluate) return;
  const RoundContext ctx{spec_,
                         round.run,
                         round.pool,
                         round.session,
                         round.extras ? &*round.extras : nullptr,
                         [&](const RunScenario& scenario, int procs, const std::string& workload) {
                           return reference(round.run, scenario, procs, workload);
                         },
                         [&](const RunSpec& probe) { return make_launch(spec_, probe, env_, round.session, out_); }};
  evaluate(ctx, record);
}

/// A written run: into the sweep's list, its time into the totals, its line on the screen.
void RunRecorder::tally(const RunRecord& record, const FinishedRound& round) {
  const SummaryRow& s = record.summary;
  records_.push_back(summary_record(record));
  if (!std::isnan(s.makespan_s)) timing_.timed_s += s.makespan_s;
  timing_.settle_s += round.overhead.settle_s;
  timing_.startup_s += round.overhead.startup_s;
  timing_.teardown_s += round.overhead.teardown_s;
  ++timing_.runs;
  if (s.status != RunStatus::ok) ++failed_;
  print_progress(record, ++done_, total_, round.seconds);
}

/// The recorded ok run of `run`'s repeat and mode with this scenario, N and workload (params too
/// where the workload is the run's own), or null.
const SummaryRecord* RunRecorder::reference(const RunSpec& run, const RunScenario& scenario, int procs,
                                            const std::string& workload) const {
  for (const SummaryRecord& e : records_)
    if (e.repeat == run.repeat && e.mode == run.mode.name && e.scenario == scenario && e.procs == procs &&
        e.workload == workload && e.status == RunStatus::ok &&
        (workload != run.workload || scenario.is_interference() || base_params(e.params) == base_params(run.params)))
      return &e;
  return nullptr;
}

/// Where this invocation's wall time went: inside timed windows (each run's makespan) and the harness's own.
nlohmann::json SweepTiming::json() const {
  return {{"wall_s", wall_s},
          {"timed_s", timed_s},
          {"timed_share", timed_share()},
          {"startup_s", startup_s},
          {"settle_s", settle_s},
          {"teardown_s", teardown_s},
          {"runs", runs},
          {"invocations", invocations},
          {"note", invocations == 1 ? "this invocation's runs; wall_s from the end of the preflight to the last run's "
                                      "record"
                                    : "the first invocation's and its resumes' runs, summed; each one's wall_s from "
                                      "the end of its preflight to its last run's record"}};
}

void SweepTiming::add_earlier(const nlohmann::json& earlier) {
  if (!earlier.is_object()) return;
  const auto num = [&earlier](const char* key) {
    const auto it = earlier.find(key);
    return it != earlier.end() && it->is_number() && std::isfinite(it->get<double>()) && it->get<double>() >= 0
               ? it->get<double>()
               : 0.0;
  };
  wall_s += num("wall_s");
  timed_s += num("timed_s");
  startup_s += num("startup_s");
  settle_s += num("settle_s");
  teardown_s += num("teardown_s");
  runs += static_cast<int>(num("runs"));
  const auto it = earlier.find("invocations");
  invocations +=
      it != earlier.end() && it->is_number_integer() && it->get<long>() >= 1 ? static_cast<int>(it->get<long>()) : 1;
}

std::string SweepTiming::line() const {
  return "sweep: " + fmt_fixed(wall_s, 1) + " s" +
         (invocations > 1 ? " over " + std::to_string(invocations) + " invocations (a first run and its resumes)"
                          : "") +
         ", of which " + fmt_fixed(timed_s, 1) + " s timed (" + fmt_fixed(100.0 * timed_share(), 0) +
         "%); harness: start-up " + fmt_fixed(startup_s, 1) + " s, settle " + fmt_fixed(settle_s, 1) + " s, teardown " +
         fmt_fixed(teardown_s, 1) + " s, other " + fmt_fixed(other_s(), 1) + " s";
}

SweepTiming RunRecorder::timing(double wall) const {
  SweepTiming t = timing_;
  t.wall_s = wall;
  return t;
}

}  // namespace bench_mps::harness
