#pragma once
// --exec-gate: the start gate of an exec run's copies (harness/profiler/start_gate.hpp). Copies of a real
// program spend seconds starting (imports, pinned to one core) and a few working, so released together by
// the start barrier their steady parts hardly overlap and "N copies at once" measures something else. The
// gate holds each copy at one point of its run until every copy of its worker set is there:
// - steady (the default): after the host wait where the program's steady part began alone, counted in the
//   GPU profile of the mode block's last warm-up run (profiled for it), else of the latest profiled N=1 run;
//   where neither has one, first-kernel (said on screen and in meta.json);
// - wait:K: after the K-th host wait (a synchronising call; synchronous copies are not counted);
// - first-kernel: at the first kernel or graph launch; off: no gate.
// The harness makes one gate per worker set before the spawn and removes it after; the copies reach it
// through the profiler library (injected for the gate alone where --profile-gpu is off). Alone runs pass
// the same gate. Each copy's arrival and release go to runs.csv (gate_* facts: s after the start barrier,
// on CLOCK_MONOTONIC, where the profile's steady part is placed too); its time held is left out of its run.
#include "harness/sweep/wing.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/plan/sweep_spec.hpp"
#include "harness/profiler/start_gate.hpp"
#include "harness/results/results_reader.hpp"

namespace bench_mps::harness {

struct WorkerLaunch;
struct RunRecord;

/// Whether `run` passes a start gate under `spec` (exec, a plain sweep, --exec-gate not off).
bool run_is_gated(const SweepSpec& spec, const RunSpec& run);

/// The gate point a copy is given for --exec-gate `asked`: first-kernel or wait:K as they are; for steady,
/// wait:K from the GPU profile in `profile_dir` (the alone run's steady part), else first-kernel, with
/// `note` saying why.
std::string resolve_gate_point(const std::string& asked, const std::filesystem::path& profile_dir, std::string& note);

/// The number of host waits that ended before the steady part of the busiest profile in `dir` began (0 where
/// it began before any); -1 where `dir` holds no profile with host waits (`why` says so).
long waits_before_steady(const std::filesystem::path& dir, std::string& why);

/// One worker set's gate: made before the spawn, removed with this object.
class ExecGate {
 public:
  ExecGate(int copies, double timeout_s, std::string point);
  /// Gives every copy the gate (its file and point) and the profiler library that holds it there.
  void add_env(WorkerLaunch& launch, int copies, const std::string& library) const;
  profiler::GateReading read() const { return file_.read(); }
  const std::string& point() const { return point_; }

 private:
  profiler::GateFile file_;
  std::string point_;
};

/// The sweep's gates: where each mode block's copies are held, and each worker set's gate.
class ExecGates {
 public:
  ExecGates(const SweepSpec& spec, std::filesystem::path out, std::string library)
      : spec_(spec), out_(std::move(out)), library_(std::move(library)) {}
  /// A warm-up's launch, profiled where --exec-gate steady needs its steady part (the block's last one counts).
  void add_warmup_profiling(WorkerLaunch& launch, const RunSpec& warm);
  /// The gate of a set whose first run is `run`, its copies' environment added to `launch` (null where the
  /// run is not gated); `records`: the runs recorded so far (a profiled N=1 run stands in for a warm-up).
  std::unique_ptr<ExecGate> for_set(const RunSpec& run, WorkerLaunch& launch,
                                    const std::vector<SummaryRecord>& records);

 private:
  std::filesystem::path alone_profile(const RunSpec& run, const std::vector<SummaryRecord>& records) const;

  const SweepSpec& spec_;
  std::filesystem::path out_;
  std::string library_;
  std::map<std::string, std::filesystem::path> warmup_profile_;  ///< by mode: its block's last warm-up's
  std::set<std::string> said_;                                   ///< notes already on screen
};

/// The round's passage into its rows' facts (gate_arrive_s, gate_release_s after `go_ns`; gate_held_s is
/// the worker's) and notes: a copy that never arrived, a release at the timeout, a copy still held at `deadline_ns`
/// (the run's --timeout on the same clock: a copy released then was let go by the others' killing). Returns the
/// run's entry for meta.json's exec_gate.runs.
nlohmann::json record_gate(RunRecord& record, const profiler::GateReading& gate, const std::string& point,
                           std::int64_t go_ns, std::int64_t deadline_ns);

/// What the copies' CUPTI does once their gate opens, for meta.json's exec_gate.after_open: "profile" with
/// --profile-gpu (the profile goes on), else BENCH_MPS_GATE_CALLBACKS's value in effect ("detach" unset).
std::string gate_after_open(bool profile_gpu);

}  // namespace bench_mps::harness
