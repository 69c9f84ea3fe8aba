// Renders meta.json for report.md from its SweepMeta: members through the members, the shown-only parts
// by pointer. Every field is optional here: a folder written by a CPU-only test run has no GPU, and later
// schema additions must not break older reports (a member that holds nothing shows what its section kept).
#include "harness/report/report_meta.hpp"

#include <cmath>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/plan/scenario.hpp"

namespace bench_mps::harness {
namespace {

using nlohmann::json;

/// The value at `pointer` in `shown`; null where missing (or below a part that is not an object).
json value_at(const json& shown, const std::string& pointer) {
  try {
    const json::json_pointer p(pointer);
    return shown.contains(p) ? shown.at(p) : json();
  } catch (const json::exception&) {
    return json();  // a pointer that does not parse
  }
}

/// What the report shows of a member: its value, or where it holds none, what its section kept under `key`
/// (absent, null, or a value of another type as another version wrote it), so such a folder renders as before.
template <class T>
json member_value(const std::optional<T>& member, const json& kept, const char* key) {
  return member ? json(*member) : value_at(kept, std::string("/") + key);
}

/// The same for a member of a section that meta.json may lack (null where it does).
template <class S, class T>
json member_of(const std::optional<S>& section, std::optional<T> S::*member, const char* key) {
  return section ? member_value((*section).*member, section->other, key) : json();
}

/// Strings as they are, numbers and booleans printed, "-" for null.
std::string text(const json& v) {
  if (v.is_null()) return "-";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

/// 13000 -> "13.0" (CUDA's version integers); "-" for anything else.
std::string cuda_version(const json& v) {
  if (!v.is_number_integer()) return "-";
  const long n = v.get<long>();
  return std::to_string(n / 1000) + "." + std::to_string((n % 1000) / 10);
}

std::string join_values(const json& list, const std::string& sep) {
  if (list.is_null()) return "-";
  if (!list.is_array() && !list.is_object()) return text(list);
  std::string out;
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (!out.empty()) out += sep;
    if (list.is_object()) out += it.key() + ": ";
    out += it->is_string() ? it->get<std::string>() : it->dump();
  }
  return out.empty() ? "-" : out;
}

/// "mlp 0.5 s, spin 30 tasks": each workload's run length per worker, from the sweep section's shown-only
/// fields (seconds_per_worker is newer than tasks_per_worker; older folders have only the latter).
std::string run_lengths(const json& sweep) {
  const json tasks = value_at(sweep, "/tasks_per_worker");
  const json seconds = value_at(sweep, "/seconds_per_worker");
  if (!tasks.is_object()) return "tasks per worker: " + join_values(tasks, ", ");
  std::string out;
  for (auto it = tasks.begin(); it != tasks.end(); ++it) {
    const double s = seconds.is_object() && seconds.contains(it.key()) && seconds[it.key()].is_number()
                         ? seconds[it.key()].get<double>()
                         : 0.0;
    out += (out.empty() ? "" : ", ") + it.key() + " " +
           (s > 0 ? fmt_num(s) + " s" : (it->is_number() ? std::to_string(it->get<long>()) : it->dump()) + " tasks");
  }
  return "per worker: " + (out.empty() ? std::string("-") : out);
}

/// The GPU row: name, SMs (a member), memory and clocks, index and UUID (shown-only).
std::string gpu_row(const SweepMeta& meta) {
  const json& g = shown_of(meta.gpu);
  if (value_at(g, "/name").is_null()) return "none (CPU-only run)";
  std::string details = text(member_of(meta.gpu, &GpuMeta::sm_count, "sm_count")) + " SMs";
  if (const json mem = value_at(g, "/memory_total_bytes"); mem.is_number())
    details += ", " + fmt_fixed(mem.get<double>() / (1024.0 * 1024 * 1024), 1) + " GiB";
  details += ", max clocks SM " + meta_text(g, "/max_sm_clock_mhz") + " MHz / memory " +
             meta_text(g, "/max_mem_clock_mhz") + " MHz";
  return meta_text(g, "/name") + " (" + details + "), index " + meta_text(g, "/index") + ", " + meta_text(g, "/uuid");
}

/// The MPS row: control and version (shown-only), and the site's daemon where --external-mps found one (a member).
std::string mps_row(const SweepMeta& meta) {
  const json& m = shown_of(meta.mps);
  std::string mps = meta_text(m, "/control") + " (" + meta_text(m, "/version") + ")";
  if (meta.mps && meta.mps->external)  // --external-mps: the site's daemon, no time-sliced runs beside it
    mps += "; **external daemon** (the site's): pipe folder " + meta_text(*meta.mps->external, "/pipe_directory") +
           ", active-thread percentage from " + meta_text(*meta.mps->external, "/active_thread_pct_source") +
           "; no time-sliced baseline was measured";
  return mps;
}

/// The Sweep row: N and repeats (members), run lengths and warm-up (shown-only).
std::string sweep_row(const SweepMeta& meta) {
  const json& s = shown_of(meta.sweep);
  const std::string warmup = meta_text(s, "/warmup_tasks");
  std::string left_out;  // an N the scenario ran nothing at (the fault's N=1)
  if (const std::optional<Scenario> scenario = meta_scenario(meta); scenario && meta.sweep && meta.sweep->procs) {
    const std::vector<int> procs(meta.sweep->procs->begin(), meta.sweep->procs->end());
    if (const std::string note = procs_left_out_note(*scenario, procs); !note.empty()) left_out = " (" + note + ")";
  }
  return "N = " + join_values(member_of(meta.sweep, &SweepSection::procs, "procs"), ", ") + left_out + "; repeats " +
         text(member_of(meta.sweep, &SweepSection::repeats, "repeats")) + "; " + run_lengths(s) + "; warm-up tasks " +
         (warmup == "-1" ? std::string("each workload's default") : warmup);
}

}  // namespace

std::string meta_text(const nlohmann::json& shown, const std::string& pointer) {
  return text(value_at(shown, pointer));
}

std::string workload_params(const SweepMeta& meta, const std::string& workload) {
  return meta_text(member_of(meta.sweep, &SweepSection::params, "params"), "/" + workload);
}

std::string gpu_and_driver(const SweepMeta& meta) {
  const json& g = shown_of(meta.gpu);
  if (value_at(g, "/name").is_null()) return "no GPU (CPU-only run)";
  return meta_text(g, "/name") + " (driver " + meta_text(g, "/driver_version") + ")";
}

std::string gpu_title(const SweepMeta& meta) {
  const json& g = shown_of(meta.gpu);
  if (value_at(g, "/name").is_null()) return "no GPU (CPU-only run)";
  return meta_text(g, "/name") + ", driver " + meta_text(g, "/driver_version");
}

std::string machine_markdown(const SweepMeta& meta) {
  MarkdownTable t({"", ""});
  const json& g = shown_of(meta.gpu);
  t.add_row({"GPU", gpu_row(meta)});
  t.add_row({"Driver", meta_text(g, "/driver_version") + " (CUDA driver API " +
                           cuda_version(value_at(g, "/cuda_driver_version")) + ", runtime " +
                           cuda_version(member_of(meta.gpu, &GpuMeta::cuda_runtime_version, "cuda_runtime_version")) +
                           ")"});
  t.add_row({"Compute mode, MIG", meta_text(g, "/compute_mode") + ", MIG " + meta_text(g, "/mig_mode")});
  t.add_row({"MPS", mps_row(meta)});
  const json device = meta.device.value_or(json());
  if (!value_at(device, "/key").is_null())
    t.add_row({"Device", meta_text(device, "/key") + " (asked: " + meta_text(device, "/requested") +
                             "), CPU cores given: " + meta_text(device, "/cpus_given")});
  t.add_row({"Host", meta_text(meta.other, "/host/hostname") + ", " + meta_text(meta.other, "/host/kernel") + ", " +
                         meta_text(meta.other, "/host/arch") + ", " + meta_text(meta.other, "/host/cpus") + " CPUs"});
  const json cpus = meta.cpus.value_or(json());
  if (const json w = value_at(cpus, "/warnings"); w.is_array() && !w.empty())  // shared cores (core_claims)
    t.add_row({"CPU cores", "workers " + join_values(value_at(cpus, "/workers"), ",") + ", harness " +
                                join_values(value_at(cpus, "/harness"), ",") +
                                "; **warning**: " + join_values(w, "; ")});
  std::string tool = "git " + meta_text(meta.other, "/tool/git_sha");
  if (const json dirty = value_at(meta.other, "/tool/git_dirty"); dirty.is_boolean() && dirty.get<bool>())
    tool += " (uncommitted changes)";
  t.add_row({"bench_mps", tool});
  std::vector<std::string> words;
  if (const json a = member_value(meta.argv, meta.other, "argv"); a.is_array())
    for (const auto& arg : a) words.push_back(arg.is_string() ? arg.get<std::string>() : arg.dump());
  // As a shell reads it back (a --command in quotes), in a code span a backtick inside does not end.
  const std::string argv = shell_words(words);
  const std::string fence = argv.find('`') == std::string::npos ? "`" : "`` ";
  t.add_row({"Command", words.empty() ? "-" : fence + argv + (fence == "`" ? "`" : " ``")});
  t.add_row({"Time (UTC)", text(member_value(meta.started_utc, meta.other, "started_utc")) + " to " +
                               text(member_value(meta.finished_utc, meta.other, "finished_utc")) + ", status " +
                               text(member_value(meta.status, meta.other, "status"))});
  t.add_row({"Sweep", sweep_row(meta)});
  t.add_row({"Workload parameters", join_values(member_of(meta.sweep, &SweepSection::params, "params"), "; ")});
  return t.str();
}

bool is_demo_folder(const SweepMeta& meta) { return meta.sweep && meta.sweep->demo.value_or(false); }

void stamp_demo(std::string& markdown, nlohmann::json& plot_data) {
  markdown =
      "> **DEMO, no GPU data.** CPU stand-in workers and the fake MPS daemon of tests/fakes ran this sweep "
      "(`scripts/run.sh --demo`): it shows what bench_mps runs, records and reports, not how a GPU is "
      "shared. Run `scripts/run.sh --procs 1,4,10` on a machine with an NVIDIA GPU for that.\n\n" +
      markdown;
  if (!plot_data.contains("figures") || !plot_data["figures"].is_array()) return;
  for (auto& f : plot_data["figures"])
    if (f.is_object() && f.contains("title") && f["title"].is_string())
      f["title"] = "DEMO, no GPU data: " + f["title"].get<std::string>();
}

}  // namespace bench_mps::harness
