// Renders meta.json for report.md. Every field is optional here: a folder written by a CPU-only
// test run has no GPU, and later schema additions must not break older reports.
#include "harness/report/report_meta.hpp"

#include <cmath>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"

namespace bench_mps::harness {
namespace {

const nlohmann::json* at(const nlohmann::json& meta, const std::string& pointer) {
  try {
    const nlohmann::json::json_pointer p(pointer);
    if (!meta.contains(p)) return nullptr;
    const nlohmann::json& v = meta.at(p);
    return v.is_null() ? nullptr : &v;
  } catch (const nlohmann::json::exception&) {
    return nullptr;  // a parent that is not an object (e.g. "gpu": null)
  }
}

/// 13000 -> "13.0" (CUDA's version integers).
std::string cuda_version(const nlohmann::json& meta, const std::string& pointer) {
  const nlohmann::json* v = at(meta, pointer);
  if (!v || !v->is_number_integer()) return "-";
  const long n = v->get<long>();
  return std::to_string(n / 1000) + "." + std::to_string((n % 1000) / 10);
}

std::string join_values(const nlohmann::json* list, const std::string& sep) {
  if (!list) return "-";
  if (!list->is_array() && !list->is_object()) return list->is_string() ? list->get<std::string>() : list->dump();
  std::string out;
  for (auto it = list->begin(); it != list->end(); ++it) {
    if (!out.empty()) out += sep;
    if (list->is_object()) out += it.key() + ": ";
    out += it->is_string() ? it->get<std::string>() : it->dump();
  }
  return out.empty() ? "-" : out;
}

/// "mlp 0.5 s, spin 30 tasks": each workload's run length per worker (seconds_per_worker is newer
/// than tasks_per_worker; older folders have only the latter).
std::string run_lengths(const nlohmann::json& meta) {
  const nlohmann::json* tasks = at(meta, "/sweep/tasks_per_worker");
  const nlohmann::json* seconds = at(meta, "/sweep/seconds_per_worker");
  if (!tasks || !tasks->is_object()) return "tasks per worker: " + join_values(tasks, ", ");
  std::string out;
  for (auto it = tasks->begin(); it != tasks->end(); ++it) {
    const double s = seconds && seconds->is_object() && seconds->contains(it.key()) && (*seconds)[it.key()].is_number()
                         ? (*seconds)[it.key()].get<double>()
                         : 0.0;
    out += (out.empty() ? "" : ", ") + it.key() + " " +
           (s > 0 ? fmt_num(s) + " s" : (it->is_number() ? std::to_string(it->get<long>()) : it->dump()) + " tasks");
  }
  return "per worker: " + (out.empty() ? std::string("-") : out);
}

}  // namespace

std::string meta_text(const nlohmann::json& meta, const std::string& pointer) {
  const nlohmann::json* v = at(meta, pointer);
  if (!v) return "-";
  if (v->is_string()) return v->get<std::string>();
  return v->dump();
}

std::string gpu_and_driver(const nlohmann::json& meta) {
  if (!at(meta, "/gpu/name")) return "no GPU (CPU-only run)";
  return meta_text(meta, "/gpu/name") + " (driver " + meta_text(meta, "/gpu/driver_version") + ")";
}

std::string gpu_title(const nlohmann::json& meta) {
  if (!at(meta, "/gpu/name")) return "no GPU (CPU-only run)";
  return meta_text(meta, "/gpu/name") + ", driver " + meta_text(meta, "/gpu/driver_version");
}

std::string machine_markdown(const nlohmann::json& meta) {
  MarkdownTable t({"", ""});
  std::string gpu = meta_text(meta, "/gpu/name");
  if (at(meta, "/gpu/name")) {
    std::string details = meta_text(meta, "/gpu/sm_count") + " SMs";
    if (const auto* mem = at(meta, "/gpu/memory_total_bytes"); mem && mem->is_number())
      details += ", " + fmt_fixed(mem->get<double>() / (1024.0 * 1024 * 1024), 1) + " GiB";
    details += ", max clocks SM " + meta_text(meta, "/gpu/max_sm_clock_mhz") + " MHz / memory " +
               meta_text(meta, "/gpu/max_mem_clock_mhz") + " MHz";
    gpu += " (" + details + "), index " + meta_text(meta, "/gpu/index") + ", " + meta_text(meta, "/gpu/uuid");
  } else {
    gpu = "none (CPU-only run)";
  }
  t.add_row({"GPU", gpu});
  t.add_row({"Driver", meta_text(meta, "/gpu/driver_version") + " (CUDA driver API " +
                           cuda_version(meta, "/gpu/cuda_driver_version") + ", runtime " +
                           cuda_version(meta, "/gpu/cuda_runtime_version") + ")"});
  t.add_row({"Compute mode, MIG", meta_text(meta, "/gpu/compute_mode") + ", MIG " + meta_text(meta, "/gpu/mig_mode")});
  std::string mps = meta_text(meta, "/mps/control") + " (" + meta_text(meta, "/mps/version") + ")";
  if (at(meta, "/mps/external"))  // --external-mps: the site's daemon, no time-sliced runs beside it
    mps += "; **external daemon** (the site's): pipe folder " + meta_text(meta, "/mps/external/pipe_directory") +
           ", active-thread percentage from " + meta_text(meta, "/mps/external/active_thread_pct_source") +
           "; no time-sliced baseline was measured";
  t.add_row({"MPS", mps});
  if (at(meta, "/device/key"))
    t.add_row({"Device", meta_text(meta, "/device/key") + " (asked: " + meta_text(meta, "/device/requested") +
                             "), CPU cores given: " + meta_text(meta, "/device/cpus_given")});
  t.add_row({"Host", meta_text(meta, "/host/hostname") + ", " + meta_text(meta, "/host/kernel") + ", " +
                         meta_text(meta, "/host/arch") + ", " + meta_text(meta, "/host/cpus") + " CPUs"});
  if (const auto* w = at(meta, "/cpus/warnings"); w && w->is_array() && !w->empty())  // shared cores (core_claims)
    t.add_row({"CPU cores", "workers " + join_values(at(meta, "/cpus/workers"), ",") + ", harness " +
                                join_values(at(meta, "/cpus/harness"), ",") + "; **warning**: " + join_values(w, "; ")});
  std::string tool = "git " + meta_text(meta, "/tool/git_sha");
  if (const auto* dirty = at(meta, "/tool/git_dirty"); dirty && dirty->is_boolean() && dirty->get<bool>())
    tool += " (uncommitted changes)";
  t.add_row({"bench_mps", tool});
  std::string argv;
  if (const auto* a = at(meta, "/argv"); a && a->is_array())
    for (const auto& arg : *a)
      argv += (argv.empty() ? "" : " ") + (arg.is_string() ? arg.get<std::string>() : arg.dump());
  t.add_row({"Command", argv.empty() ? "-" : "`" + argv + "`"});
  t.add_row({"Time (UTC)", meta_text(meta, "/started_utc") + " to " + meta_text(meta, "/finished_utc") + ", status " +
                               meta_text(meta, "/status")});
  t.add_row({"Sweep", "N = " + join_values(at(meta, "/sweep/procs"), ", ") + "; repeats " +
                          meta_text(meta, "/sweep/repeats") +
                          "; " + run_lengths(meta) +
                          "; warm-up tasks " + (meta_text(meta, "/sweep/warmup_tasks") == "-1" ? std::string("each workload's default") : meta_text(meta, "/sweep/warmup_tasks"))});
  t.add_row({"Workload parameters", join_values(at(meta, "/sweep/params"), "; ")});
  return t.str();
}

bool is_demo_folder(const SweepMeta& meta) { return meta.sweep && meta.sweep->demo.value_or(false); }

void stamp_demo(std::string& markdown, nlohmann::json& plot_data) {
  markdown = "> **DEMO, no GPU data.** CPU stand-in workers and the fake MPS daemon of tests/fakes ran this sweep "
             "(`scripts/run.sh --demo`): it shows what bench_mps runs, records and reports, not how a GPU is "
             "shared. Run `scripts/run.sh --procs 1,4,10` on a machine with an NVIDIA GPU for that.\n\n" +
             markdown;
  if (!plot_data.contains("figures") || !plot_data["figures"].is_array()) return;
  for (auto& f : plot_data["figures"])
    if (f.is_object() && f.contains("title") && f["title"].is_string())
      f["title"] = "DEMO, no GPU data: " + f["title"].get<std::string>();
}

}  // namespace bench_mps::harness
