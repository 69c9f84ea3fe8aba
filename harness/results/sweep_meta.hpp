#pragma once
// meta.json as one typed value, like google/benchmark's BenchmarkReporter::Context: the sweep fills a
// SweepMeta and saves it; report, compare, --resume and the fleet read one. Every field bench_mps writes
// at run time or reads by name is a member; the sections written once and only shown (tool, environment,
// host, the GPU's static facts, a mode's settings) and fields of other versions stay as JSON in `other`,
// which the report's machine table renders generically (meta_text by pointer).
//
// Null and absent stay what they were: a member holds a key's value only where the value has the
// member's type; anything else (null, absent, another type) stays in `other` as it was and the member is
// empty. Writing puts `other` back and every member that holds a value over it, so reading a meta.json
// and writing it again gives the same file (nlohmann::json sorts object keys).
#include "harness/results/wing.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/plan/scenario.hpp"

namespace bench_mps::harness {

/// meta.json's status words: the one place that names them.
enum class SweepStatus { running, complete, failed, interrupted, environment_error };
const char* sweep_status_name(SweepStatus status);
/// The status `name` names (as sweep_status_name writes it), or none.
std::optional<SweepStatus> sweep_status_of_name(const std::string& name);

/// The GPU section's facts the sweep learns at run time (the static ones stay in `other`).
struct GpuMeta {
  std::optional<long> sm_count;              ///< null until a worker alone on the GPU without MPS reports it
  std::optional<long> cuda_runtime_version;  ///< null until a worker reports it
  std::optional<long> sm_clock_peak_khz;
  std::optional<std::map<std::string, long>> footprint_bytes;      ///< workload -> device memory it needs
  std::optional<nlohmann::json> conditions_start, conditions_end;  ///< conditions_json + timeslice_policy
  std::optional<std::string> gpm;                                  ///< "available" or "unavailable: why"
  nlohmann::json other = nlohmann::json::object();
};

/// One entry of mps.modes.
struct ModeMeta {
  std::optional<std::string> name;
  std::optional<std::vector<long>> server_pids;     ///< the MPS server each block of this mode ran under
  nlohmann::json other = nlohmann::json::object();  ///< mps, active_thread_pct
};

struct MpsMeta {
  std::optional<std::vector<ModeMeta>> modes;
  std::optional<nlohmann::json> external;           ///< --external-mps: the site's daemon, as found
  nlohmann::json other = nlohmann::json::object();  ///< control, version
};

/// The sweep as asked: the fields that code reads (the rest is shown or compared as it is).
struct SweepSection {
  std::optional<std::string> scenario;  ///< absent in folders older than scenarios
  std::optional<std::vector<long>> procs;
  std::optional<std::vector<std::string>> workloads;
  std::optional<long> repeats, max_repeats;
  std::optional<bool> demo, cpu_stand_in;
  std::optional<nlohmann::json> params;  ///< workload -> its parameter string
  nlohmann::json other = nlohmann::json::object();
};

struct SweepMeta {
  std::optional<long> schema_version;
  std::optional<std::vector<std::string>> argv;
  std::optional<std::string> status;  ///< a sweep_status_name word (another version's word is kept as read)
  std::optional<std::string> started_utc, finished_utc;  ///< finished_utc: null while running
  std::optional<std::vector<std::string>> resumed_utc;   ///< one entry per --resume
  /// One entry per --resume: {utc, runs_recorded_before, limits_changed: {limit: {was, now}}}; absent in older folders
  std::optional<nlohmann::json> resumes;
  std::optional<long> runs_recorded, runs_failed;
  std::optional<std::string> stop_reason, monitor_error;  ///< absent unless set
  std::optional<GpuMeta> gpu;                             ///< null: a CPU-only run
  std::optional<MpsMeta> mps;
  std::optional<SweepSection> sweep;
  // Sections bench_mps writes whole and only shows: named here, their insides JSON.
  std::optional<nlohmann::json> cpus, device, timing, noise, xray, exec_slow_first_runs;
  std::optional<nlohmann::json>
      gpu_profile;  ///< --profile-gpu: the library, the gap and where the profiles are (docs/PROFILE.md)
  std::optional<nlohmann::json> exec_warmup_runs;  ///< a list: one entry per exec mode block
  /// --exec-gate: {asked, timeout_s, runs: one entry per gated run (point, release, arrivals, spreads)}
  std::optional<nlohmann::json> exec_gate;
  nlohmann::json other = nlohmann::json::object();

  void set_status(SweepStatus s) { status = sweep_status_name(s); }
};

// The one conversion to and from JSON (also found by nlohmann::json's get<> and assignment).
void to_json(nlohmann::json& j, const GpuMeta& m);
void from_json(const nlohmann::json& j, GpuMeta& m);
void to_json(nlohmann::json& j, const ModeMeta& m);
void from_json(const nlohmann::json& j, ModeMeta& m);
void to_json(nlohmann::json& j, const MpsMeta& m);
void from_json(const nlohmann::json& j, MpsMeta& m);
void to_json(nlohmann::json& j, const SweepSection& m);
void from_json(const nlohmann::json& j, SweepSection& m);
void to_json(nlohmann::json& j, const SweepMeta& m);
void from_json(const nlohmann::json& j, SweepMeta& m);

/// The first member of meta.json (sections within included) whose value is neither null nor of its member's type,
/// in words ("gpu.sm_count is \"a\", not a whole number"); "" where every one fits. bench_mps never writes such a
/// value: a reader that finds one has a damaged file, not a value to show as it is.
std::string meta_misfit(const nlohmann::json& meta);

/// meta.json's sweep.scenario: sweep where a folder predates scenarios (no such key), nullopt for a
/// word bench_mps never wrote; a value that is not a word throws nlohmann's type_error (the caller
/// names the file).
std::optional<Scenario> meta_scenario(const SweepMeta& meta);

}  // namespace bench_mps::harness
