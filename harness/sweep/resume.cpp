#include "harness/sweep/resume.hpp"

#include <unistd.h>

#include <boost/algorithm/string/join.hpp>

#include <fstream>
#include <iterator>
#include <map>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/packed_files.hpp"
#include "harness/plan/exec_options.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/results/gpus_index.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/results_writer.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/workers/workload_config.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

const char* const kCsvFiles[] = {"summary.csv", "runs.csv", "tasks.csv", "timeline.csv"};

/// The keys of meta's sweep section a resumed sweep may change: its limits and exec's warm-ups (untimed runs; absent
/// from older folders).
const char* const kResumableLimits[] = {"run_timeout_s",    "ready_timeout_s", "set_exclusive", "pin_cpus",
                                        "cores_per_worker", "settle_s",        "exec_warmups"};

/// What identifies a sweep: everything in meta's sweep section but the limits, plus the modes.
nlohmann::json sweep_identity(const SweepMeta& meta) {
  nlohmann::json id = meta.sweep ? nlohmann::json(*meta.sweep) : nlohmann::json::object();
  for (const char* limit : kResumableLimits) id.erase(limit);
  nlohmann::json modes = nlohmann::json::array();
  if (meta.mps && meta.mps->modes)
    for (const ModeMeta& m : *meta.mps->modes) modes.push_back(m.name.value_or(""));
  id["modes"] = modes;
  // An exec folder written before --exec-alone-runs planned no added alone runs: what 0 asks.
  bool exec = false;
  for (const auto& w : id.value("workloads", nlohmann::json::array()))
    exec = exec || (w.is_string() && runs_user_program(w.get<std::string>()));
  if (exec && !id.contains("exec_alone_runs")) id["exec_alone_runs"] = 0;
  return id;
}

/// What identifies a sweep beyond meta's sweep section, read from its command line: the device it measures (a
/// command line retyped without --device would go on with CUDA's device 0), where exec copies are held, what of
/// their output is kept, and what is profiled (a resumed sweep gated or profiled otherwise would mix two
/// measurements in one folder).
void add_measurement_options(nlohmann::json& id, const SweepSpec& spec) {
  id["device"] = spec.device;
  if (has_exec(spec)) {
    id["exec_gate"] = spec.exec_gate;
    id["exec_gate_timeout_s"] = spec.exec_gate_timeout_s;
    id["exec_log_cap_bytes"] = spec.params.exec.log_cap_bytes;
  }
  id["profile_gpu"] = spec.profile_gpu;
  if (spec.profile_gpu) {
    id["profile_gap_us"] = spec.profile_gap_us;
    id["exec_unit_range"] = spec.exec_unit_range;
  }
}

/// Every difference between two identities, as "procs [1,4] there vs [1,4,10] here; demo ..." (a `--procs` given
/// to a demo's folder changes both, and naming only the first in key order would hide the one the user typed).
std::string differences(const nlohmann::json& stored, const nlohmann::json& asked) {
  std::vector<std::string> found;
  for (const auto& [key, value] : asked.items())
    if (!stored.contains(key) || stored[key] != value)
      found.push_back(key + " " + (stored.contains(key) ? stored[key].dump() : "(none)") + " there vs " + value.dump() +
                      " here");
  for (const auto& [key, value] : stored.items())
    if (!asked.contains(key)) found.push_back(key + " " + value.dump() + " there, not set here");
  return boost::algorithm::join(found, "; ");
}

/// The header this bench_mps writes to `name` (ResultsWriter's).
std::string expected_header(const std::string& name) {
  if (name == "summary.csv") return csv_line(summary_columns());
  if (name == "runs.csv") return csv_line(runs_columns());
  if (name == "tasks.csv") return csv_line(tasks_columns());
  return csv_line(timeline_columns());
}

/// A file whose first line is not the header the writer will append under is refused before any file of the
/// folder changes (issue 35: the writer would refuse it only after the repairs): CRLF line ends, another
/// version's columns, another program's file.
void check_header(const fs::path& file, const std::string& text) {
  const std::string header = expected_header(file.filename().string());
  if (text.compare(0, header.size(), header) == 0) return;
  const std::string first = text.substr(0, text.find('\n'));
  if (!first.empty() && first.back() == '\r')
    throw ResultsError(file.string() +
                       ": has CRLF line ends (saved by another editor?); bench_mps writes LF and appends "
                       "to no other: convert it back (e.g. sed -i 's/\\r$//') to resume");
  throw ResultsError(file.string() +
                     ": its first line is not the header this bench_mps writes (another program's file, "
                     "or another version's columns: resume it with the version that wrote it)");
}

/// Drops a last line without its newline (a write cut short by a crash).
std::string without_torn_tail(const std::string& text) {
  if (text.empty() || text.back() == '\n') return text;
  const auto last_newline = text.rfind('\n');
  return last_newline == std::string::npos ? std::string() : text.substr(0, last_newline + 1);
}

/// Keeps the header and the rows of recorded runs (run ids never need CSV quoting).
std::string only_recorded(const std::string& text, const std::set<std::string>& ids, int& dropped) {
  std::string out;
  std::size_t pos = 0;
  bool header = true;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    const std::string line = text.substr(pos, end - pos + 1);
    pos = end == std::string::npos ? text.size() : end + 1;
    if (header || ids.count(line.substr(0, line.find(',')))) {
      out += line;
    } else {
      ++dropped;
    }
    header = false;
  }
  return out;
}

/// Runs `read` on repaired copies in `scratch`; a defect it finds names the user's file in `dir`, never
/// the scratch copy the user has not seen.
template <class Read>
void read_as_users(const fs::path& scratch, const fs::path& dir, Read read) {
  try {
    read();
  } catch (const ResultsError& e) {
    std::string message = e.what();
    const std::string from = scratch.string(), to = dir.string();
    for (auto at = message.find(from); at != std::string::npos; at = message.find(from, at + to.size()))
      message.replace(at, from.size(), to);
    throw ResultsError(message);
  }
}

/// A recorded run (a summary row) has a runs.csv row per worker, as every sweep writes them: one with fewer or more
/// is a damaged or edited folder, refused before any repair (a resume would seal it complete without them).
void check_recorded_workers(const std::vector<SummaryRecord>& recorded, const std::vector<WorkerRecord>& workers,
                            const fs::path& runs) {
  std::map<std::string, int> rows;
  for (const WorkerRecord& w : workers) ++rows[w.run_id];
  for (const SummaryRecord& r : recorded)
    if (const int n = rows[r.run_id]; n != r.procs)
      throw ResultsError(runs.string() + ": run " + r.run_id + " has " + std::to_string(n) + " worker rows of its " +
                         std::to_string(r.procs) +
                         " (summary.csv records it): the folder was edited or damaged; resume a copy made before, "
                         "or start the sweep again");
}

void check_recorded_in_plan(const std::set<std::string>& recorded, const SweepSpec& spec, const fs::path& summary) {
  std::set<std::string> planned;
  for (const ModeBlock& block : plan_sweep(spec))
    for (const RunSpec& r : block.runs()) planned.insert(r.configuration_id());
  for (const std::string& id : recorded)
    if (!planned.count(configuration_of_run_id(id)))
      throw ResultsError(summary.string() + ": run " + id +
                         " is none of this sweep's configurations (an edited file, or rows of another sweep); "
                         "remove its rows, or start the sweep again in a new folder");
}

}  // namespace

SweepSpec stored_sweep(const fs::path& dir) {
  refuse_if_claimed(dir, "--resume");  // a sweep writing it now: exit 2 naming its pid, before its meta.json is read
  std::error_code ec;
  if (!fs::exists(dir / "meta.json", ec) && fs::exists(dir / kGpusIndexFile, ec)) {
    std::string members;  // the folders its index lists, those that did not complete first
    try {
      const GpusIndex index = read_gpus_index(dir);
      for (const bool complete : {false, true})
        for (const GpusIndexEntry& e : index.gpus)
          if ((e.status == "complete") == complete)
            members += (members.empty() ? "" : ", ") + (dir / e.folder).string() + " (" + e.status + ")";
    } catch (const std::exception&) {
      // an index that does not read: the general form below
    }
    throw UsageError("--resume: " + dir.string() + " holds one sweep per GPU (--gpus): resume each GPU's folder on " +
                     "its own: " + (members.empty() ? (dir / "<i>-<gpu>").string() : members));
  }
  const SweepMeta meta = read_sweep_meta(dir);
  if (!meta.argv || meta.argv->empty())
    throw ResultsError((dir / "meta.json").string() + ": no stored command line (argv)");
  SweepSpec spec = parse_sweep_args(std::vector<std::string>(meta.argv->begin() + 1, meta.argv->end()));
  spec.argv = *meta.argv;
  return spec;
}

void check_same_sweep(const SweepSpec& spec, const SweepMeta& meta) {
  nlohmann::json stored = sweep_identity(meta), asked = sweep_identity(make_meta(spec, std::nullopt, ""));
  if (meta.argv && !meta.argv->empty()) {
    add_measurement_options(stored,
                            parse_sweep_args(std::vector<std::string>(meta.argv->begin() + 1, meta.argv->end())));
    add_measurement_options(asked, spec);
  }
  const std::string diff = differences(stored, asked);
  if (diff.empty()) return;
  const std::string started = meta.argv && !meta.argv->empty() ? "; it was started as: " + shell_words(*meta.argv) : "";
  throw UsageError("--resume: the folder holds another sweep (" + diff + "); " + kResumeForms + started);
}

void note_resumed_limits(SweepMeta& meta, const SweepSpec& spec, const std::string& utc, std::size_t recorded) {
  const nlohmann::json now = nlohmann::json(*make_meta(spec, std::nullopt, "").sweep);
  nlohmann::json sweep = meta.sweep ? nlohmann::json(*meta.sweep) : nlohmann::json::object();
  nlohmann::json changed = nlohmann::json::object();
  const auto note = [&changed](const std::string& key, const nlohmann::json& was, const nlohmann::json& is) {
    if (was != is) changed[key] = {{"was", was}, {"now", is}};
  };
  for (const char* limit : kResumableLimits) {
    if (!now.contains(limit)) continue;
    note(limit, sweep.value(limit, nlohmann::json()), now[limit]);
    sweep[limit] = now[limit];
  }
  const nlohmann::json device = meta.device.value_or(nlohmann::json::object());
  note("cpus", device.is_object() ? device.value("cpus_given", nlohmann::json()) : nlohmann::json(),
       spec.cpus.empty() ? nlohmann::json() : nlohmann::json(format_cpu_list(spec.cpus)));
  meta.sweep = sweep.get<SweepSection>();
  if (!meta.resumes || !meta.resumes->is_array()) meta.resumes = nlohmann::json::array();
  meta.resumes->push_back({{"utc", utc}, {"runs_recorded_before", recorded}, {"limits_changed", changed}});
}

ResumeState prepare_resume(const fs::path& dir, const SweepSpec* spec) {
  ResumeState state;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ResultsError("--resume: " + dir.string() + " is not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw UsageError("--resume: " + dir.string() + " is not writable");
  state.meta = read_sweep_meta(dir);

  // Repair into a scratch copy first and validate it there: the folder changes only if all is well.
  const fs::path scratch = fs::temp_directory_path() / ("bench_mps-resume-" + std::to_string(::getpid()));
  fs::remove_all(scratch, ec);
  fs::create_directories(scratch, ec);
  if (ec) throw UsageError("--resume: cannot create " + scratch.string() + ": " + ec.message());
  struct ScratchGuard {
    fs::path path;
    ~ScratchGuard() {
      std::error_code e;
      fs::remove_all(path, e);
    }
  } guard{scratch};

  std::map<std::string, std::string> texts;
  for (const char* name : kCsvFiles) {
    if (const fs::path packed = packed_copy(dir / name); !packed.empty())
      throw ResultsError(packed.string() + ": the folder was packed for the repository (scripts/pack_results.py); " +
                         "gunzip it to resume the sweep");
    if (!fs::exists(dir / name)) throw ResultsError((dir / name).string() + ": no such file");
    const std::string original = read_whole_file(dir / name);
    texts[name] = without_torn_tail(original);
    if (texts[name].size() != original.size())
      state.repairs.push_back(std::string("dropped a torn last line of ") + name);
    std::ofstream(scratch / name, std::ios::binary) << texts[name];
  }
  std::vector<WorkerRecord> workers;
  read_as_users(scratch, dir, [&] {
    state.recorded = read_summary(scratch / "summary.csv");
    workers = read_runs(scratch / "runs.csv");
    read_tasks(scratch / "tasks.csv");
  });
  for (const auto& r : state.recorded) state.recorded_ids.insert(r.run_id);
  if (spec) check_recorded_in_plan(state.recorded_ids, *spec, dir / "summary.csv");
  check_recorded_workers(state.recorded, workers, dir / "runs.csv");
  for (const char* name : kCsvFiles) check_header(dir / name, texts[name]);  // still before any file changes

  for (const char* name : kCsvFiles) {
    int dropped = 0;
    const std::string kept = only_recorded(texts[name], state.recorded_ids, dropped);
    if (dropped)
      state.repairs.push_back("dropped " + std::to_string(dropped) + " rows of unrecorded runs from " + name);
    if (kept.size() != read_whole_file(dir / name).size()) write_file_atomically(dir / name, kept);
  }
  return state;
}

}  // namespace bench_mps::harness
