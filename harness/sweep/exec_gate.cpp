// The start gate of an exec run's copies: see exec_gate.hpp.
#include "harness/sweep/exec_gate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "harness/common/format.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/run_record.hpp"
#include "harness/sweep/gpu_profiling.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// Where the gate's file goes: $TMPDIR where set, else shared memory where the machine has it, else /tmp.
std::string gate_dir() {
  const char* tmp = std::getenv("TMPDIR");
  if (tmp && *tmp) return tmp;
  return ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

}  // namespace

bool run_is_gated(const SweepSpec& spec, const RunSpec& run) {
  return spec.exec_gate != "off" && runs_user_program(run.workload) && spec.scenario == Scenario::sweep &&
         run.scenario.kind == RunKind::plain && !run.mode.in_process();
}

long waits_before_steady(const fs::path& dir, std::string& why) {
  const std::vector<fs::path> files = gpu_profile_files(dir);
  if (files.empty()) {
    why = "no GPU profile of the alone run";
    return -1;
  }
  try {
    const GpuProfile p = busiest_profile(files);
    const ProfileSummary s = summarise(p, std::max(20.0, static_cast<double>(p.min_gap_ns) * 1e-3));
    if (!s.waits_recorded || p.waits.empty()) {
      why = "the alone run's profile has no host waits";
      return -1;
    }
    return waits_before_unit(p, s);
  } catch (const std::exception& e) {
    why = std::string("the alone run's profile cannot be read: ") + e.what();
    return -1;
  }
}

std::string resolve_gate_point(const std::string& asked, const fs::path& profile_dir, std::string& note) {
  if (asked != "steady") return asked;
  std::string why;
  const long k = profile_dir.empty() ? -1 : waits_before_steady(profile_dir, why);
  if (profile_dir.empty()) why = "no alone run was profiled";
  if (k < 0) {
    note = "--exec-gate steady: " + why + "; the copies are held at their first kernel launch instead";
    return "first-kernel";
  }
  if (k == 0) {
    note = "--exec-gate steady: the alone run's steady part began before its first host wait: first-kernel";
    return "first-kernel";
  }
  note = "--exec-gate steady: after host wait " + std::to_string(k) + ", where the alone run's steady part began";
  return "wait:" + std::to_string(k);
}

ExecGate::ExecGate(int copies, double timeout_s, std::string point)
    : file_(gate_dir(), copies, timeout_s), point_(std::move(point)) {}

void ExecGate::add_env(WorkerLaunch& launch, int copies, const std::string& library) const {
  for (int i = 0; i < copies; ++i) {
    EnvVars& env = launch.env_for_worker[i];
    const bool injected =
        std::any_of(env.begin(), env.end(), [](const auto& kv) { return kv.first == "CUDA_INJECTION64_PATH"; });
    if (!injected && !library.empty()) env.emplace_back("CUDA_INJECTION64_PATH", library);
    env.emplace_back(profiler::kGateFileVar, file_.path());
    env.emplace_back(profiler::kGatePointVar, point_);
  }
}

void ExecGates::add_warmup_profiling(WorkerLaunch& launch, const RunSpec& warm) {
  RunSpec plain = warm;  // a warm-up is a run of its block's first exec run, with its own scenario tag
  plain.scenario = RunScenario(RunKind::plain);
  if (spec_.exec_gate != "steady" || library_.empty() || !run_is_gated(spec_, plain)) return;
  // Beside the warm-up's output (exec-warmups/<run>/), not under profiles/, which holds the timed runs' only.
  const fs::path dir = fs::absolute(out_ / "exec-warmups" / warm.run_id() / "profile");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("--exec-gate steady: cannot create " + dir.string() + ": " + ec.message());
  launch.env_for_worker[0].emplace_back("CUDA_INJECTION64_PATH", library_);
  launch.env_for_worker[0].emplace_back("BENCH_MPS_PROFILE_DIR", dir.string());
  warmup_profile_[warm.mode.name] = dir;
}

fs::path ExecGates::alone_profile(const RunSpec& run, const std::vector<SummaryRecord>& records) const {
  if (const auto w = warmup_profile_.find(run.mode.name);
      w != warmup_profile_.end() && !gpu_profile_files(w->second).empty())
    return w->second;
  fs::path any;
  for (auto r = records.rbegin(); r != records.rend(); ++r) {
    if (r->procs != 1 || r->workload != run.workload || r->status != RunStatus::ok) continue;
    const fs::path dir = profile_dir(out_, r->run_id, 0);
    if (gpu_profile_files(dir).empty()) continue;
    if (r->mode == run.mode.name) return dir;
    if (any.empty()) any = dir;
  }
  return any;
}

std::unique_ptr<ExecGate> ExecGates::for_set(const RunSpec& run, WorkerLaunch& launch,
                                             const std::vector<SummaryRecord>& records) {
  if (!run_is_gated(spec_, run)) return nullptr;
  std::string note;
  const std::string point = resolve_gate_point(spec_.exec_gate, alone_profile(run, records), note);
  if (!note.empty() && said_.insert(run.mode.name + note).second)
    std::cerr << "bench_mps: " << run.mode.name << ": " << note << "\n";  // beside the runs' progress
  std::unique_ptr<ExecGate> gate;
  try {
    gate = std::make_unique<ExecGate>(run.procs, spec_.exec_gate_timeout_s, point);
  } catch (const std::exception& e) {  // no place for the gate: the run goes on ungated, and says so
    std::cerr << "bench_mps: warning: " << run.run_id() << " runs without its start gate: " << e.what() << "\n";
    return nullptr;
  }
  gate->add_env(launch, run.procs, library_);
  return gate;
}

std::string gate_after_open(bool profile_gpu) {
  if (profile_gpu) return "profile";
  const char* set = std::getenv(profiler::kGateCallbacksVar);
  return profiler::gate_callbacks_in_effect(set ? set : "");
}

nlohmann::json record_gate(RunRecord& record, const profiler::GateReading& gate, const std::string& point,
                           std::int64_t go_ns, std::int64_t deadline_ns) {
  using State = profiler::GateSlotReading::State;
  const auto after_go = [go_ns](std::int64_t t) { return static_cast<double>(t - go_ns) * 1e-9; };
  std::vector<double> arrivals, releases;
  int missing = 0, attached = 0;
  for (WorkerRow& row : record.workers) {
    if (row.worker < 0 || row.worker >= static_cast<int>(gate.slots.size())) continue;
    const profiler::GateSlotReading& s = gate.slots[static_cast<std::size_t>(row.worker)];
    if (s.pid != 0) ++attached;  // its CUDA started (or it arrived)
    if (s.state == State::arrived) {
      add_fact(row, "gate_arrive_s", after_go(s.arrive_ns), 9);
      arrivals.push_back(after_go(s.arrive_ns));
      if (!s.release_ns || s.release_ns >= deadline_ns)
        add_note(row.reason, "held at the start gate (" + point + ") when the run ended");
      if (s.release_ns) {
        add_fact(row, "gate_release_s", after_go(s.release_ns), 9);
        // Where a gated copy's co-run part begins, on CLOCK_MONOTONIC as its profile is placed (measured_units).
        add_fact(row, "gate_release_mono_s=" + fmt_fixed(static_cast<double>(s.release_ns) * 1e-9, 6));
        releases.push_back(after_go(s.release_ns));
      }
    } else if (++missing, gate.arrived() > 0 || s.pid != 0) {  // neither: it never used CUDA (meta.json says so)
      add_note(row.reason, "never reached the start gate (" + point +
                               (s.state == State::left ? "): it ended first" : "): it did not get there"));
    }
  }
  const std::string opened = profiler::gate_release_words(gate.release);
  if (record.workers.size() > 1 && gate.arrived() > 0 && gate.release != profiler::GateRelease::all_arrived) {
    const bool all_late = gate.arrived() == gate.copies;  // the last arrived after the timeout had opened it
    const std::string note = "start gate " + point + ": " + opened + " (" + std::to_string(gate.arrived()) + " of " +
                             std::to_string(gate.copies) + " copies arrived" +
                             (all_late ? ", the last after it opened" : "") + ")";
    add_note(record.summary.reason, note);
  }
  if (gate.arrived() == 0 && attached > 0)  // the point lies past where the program got: the run went ungated
    add_note(record.summary.reason, "start gate " + point + ": no copy got there (" + std::to_string(attached) +
                                        " of " + std::to_string(gate.copies) +
                                        " started CUDA and ended first): the run was not gated");
  const auto spread = [](const std::vector<double>& v) {
    return v.empty() ? nlohmann::json()
                     : nlohmann::json(*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end()));
  };
  return {{"run_id", record.spec.run_id()},
          {"point", point},
          {"release", opened},
          {"arrived", gate.arrived()},
          {"copies", gate.copies},
          {"missing", missing},
          {"attached", attached},
          {"arrival_spread_s", spread(arrivals)},
          {"release_spread_s", spread(releases)},
          {"opened_s", gate.release_ns ? nlohmann::json(after_go(gate.release_ns)) : nlohmann::json()}};
}

}  // namespace bench_mps::harness
