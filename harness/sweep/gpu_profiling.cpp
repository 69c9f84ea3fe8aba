#include "harness/sweep/gpu_profiling.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/sweep_spec.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/profile_window.hpp"
#include "harness/results/run_record.hpp"
#include "harness/sweep/worker_pool.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

std::string find_profiler_library() {
  std::string lib;
  if (const char* env = std::getenv("BENCH_MPS_PROFILER")) lib = env;
  if (lib.empty()) {
    std::error_code ec;
    lib = (fs::read_symlink("/proc/self/exe", ec).parent_path() / "libbench_mps_profiler.so").string();
  }
  if (::access(lib.c_str(), R_OK) != 0)
    throw EnvironmentError("--profile-gpu: the GPU profiler library is not there: " + lib +
                           " (build it: scripts/build.sh; or name it with BENCH_MPS_PROFILER)");
  return fs::absolute(lib).string();
}

fs::path profile_dir(const fs::path& out_dir, const std::string& run_id, int worker) {
  return out_dir / "profiles" / run_id / ("w" + std::to_string(worker));
}

void add_profiling_env(WorkerLaunch& launch, const RunSpec& run, const std::string& library, const fs::path& out_dir,
                       const std::string& unit_range) {
  for (int i = 0; i < run.procs; ++i) {
    const fs::path dir = fs::absolute(profile_dir(out_dir, run.run_id(), i));
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("--profile-gpu: cannot create " + dir.string() + ": " + ec.message());
    EnvVars& env = launch.env_for_worker[i];
    env.emplace_back("CUDA_INJECTION64_PATH", library);
    env.emplace_back("BENCH_MPS_PROFILE_DIR", dir.string());
    if (!unit_range.empty()) {
      env.emplace_back(profiler::kUnitRangeVar, unit_range);
      env.emplace_back(profiler::kNvtxInjectionVar, library);
    }
  }
}

namespace {

/// NVML and GPM over the steady part of `s`, as facts (none where the steady part cannot be placed on
/// the harness's clock; the counts 0 where NVML or GPM gave nothing inside it); the line for the screen.
std::string add_window_facts(WorkerRow& row, const GpuProfile& p, const ProfileSummary& s, const RunRecord& record,
                             const WindowSources& sources) {
  const ProfileWindow w =
      profile_window(p, s, record.util_samples, record.gpm_periods, sources.nvml_why, sources.gpm_why);
  add_fact(row, "profile_pid", static_cast<double>(p.pid), 12);
  if (s.bursts > 0) {
    add_fact(row, "profile_steady_from_s", s.steady_from_s);
    add_fact(row, "profile_steady_to_s", s.steady_to_s);
  }
  for (const auto& [name, value] : window_facts(w)) add_fact(row, name, value);
  return describe_window(s, w);
}

/// One copy: its profiles summarised (the busiest process gives duty, bursts and the steady part NVML
/// and GPM are set beside; kernels, contexts and memory are summed over its processes), or the note that
/// says why there is none.
std::string summarise_copy(WorkerRow& row, const fs::path& dir, double gap_us, const RunRecord& record,
                           const WindowSources& sources, std::vector<ProfileSummary>& summaries,
                           std::vector<std::string>& windows) {
  std::vector<GpuProfile> profiles;
  std::string note;
  for (const fs::path& file : gpu_profile_files(dir)) {
    try {
      profiles.push_back(read_gpu_profile(file));
    } catch (const UsageError& e) {
      add_note(note, e.what());
    }
  }
  add_fact(row, "profile_processes", static_cast<double>(profiles.size()));
  if (profiles.empty()) return note.empty() ? "the command never initialised CUDA (no GPU profile)" : note;
  const GpuProfile& main = *std::max_element(
      profiles.begin(), profiles.end(), [](const GpuProfile& a, const GpuProfile& b) { return a.busy_ns < b.busy_ns; });
  const ProfileSummary s = summarise(main, std::max(gap_us, static_cast<double>(main.min_gap_ns) * 1e-3));
  std::uint64_t kernels = 0, memory = 0;
  int contexts = 0;
  for (const GpuProfile& p : profiles) {
    kernels += p.kernel_count;
    memory += p.memory_peak_bytes;
    contexts += p.contexts;
    if (!p.complete)
      add_note(note, "GPU profile of pid " + std::to_string(p.pid) +
                         " is partial: " + (p.errors.empty() ? std::string("a CUPTI call failed") : p.errors.front()));
    if (p.dropped_records)
      add_note(note, "GPU profile of pid " + std::to_string(p.pid) + " lost " + std::to_string(p.dropped_records) +
                         " records");
    if (p.complete && !p.waits_status.empty() && p.waits_status != "ok")
      add_note(note, "GPU profile of pid " + std::to_string(p.pid) + " has no host waits: " + p.waits_status);
  }
  summaries.push_back(s);
  add_fact(row, "profile_duty", s.duty);
  add_fact(row, "profile_bursts", static_cast<double>(s.bursts));
  add_fact(row, "profile_burst_p50_ms", s.burst_p50_ms);
  add_fact(row, "profile_burst_p90_ms", s.burst_p90_ms);
  add_fact(row, "profile_burst_mean_ms", s.burst_mean_ms);
  add_fact(row, "profile_wait_p50_ms", s.wait_p50_ms);
  add_fact(row, "profile_gap_us", s.gap_threshold_us);
  if (s.waits_recorded) {
    add_fact(row, "profile_host_waits", static_cast<double>(s.host_waits));
    const std::pair<const char*, double> per_wait[] = {{"profile_wait_step_ms", s.wait_step_ms},
                                                       {"profile_wait_kernel_ms", s.wait_kernel_ms},
                                                       {"profile_wait_burst_ms", s.wait_burst_ms}};
    for (const auto& [name, value] : per_wait)
      if (!std::isnan(value)) add_fact(row, name, value);
  }
  if (!std::isnan(s.fill)) add_fact(row, "profile_fill", s.fill);
  add_fact(row, "profile_kernels", static_cast<double>(kernels));
  add_fact(row, "profile_contexts", contexts);
  add_fact(row, "profile_mem_peak_mb", static_cast<double>(memory) / (1 << 20));
  windows.push_back("copy " + std::to_string(row.worker) + ": " + add_window_facts(row, main, s, record, sources));
  return note;
}

}  // namespace

std::string record_gpu_profiles(RunRecord& record, const fs::path& out_dir, double gap_us,
                                const WindowSources& sources) {
  std::vector<ProfileSummary> summaries;
  std::vector<std::string> windows;
  for (WorkerRow& row : record.workers) {
    const std::string note = summarise_copy(row, profile_dir(out_dir, record.spec.run_id(), row.worker), gap_us, record,
                                            sources, summaries, windows);
    if (note.empty()) continue;
    add_note(row.reason, note);
    if (record.summary.status == RunStatus::ok)
      add_note(record.summary.reason, "worker " + std::to_string(row.worker) + ": " + note);
  }
  if (summaries.empty()) return "";
  std::string window_lines;
  for (const std::string& w : windows) window_lines += "\n  " + w;
  std::vector<double> duty, burst, fill, step, kernel;
  for (const ProfileSummary& s : summaries) {
    duty.push_back(s.duty);
    burst.push_back(s.burst_p50_ms);
    if (!std::isnan(s.fill)) fill.push_back(s.fill);
    if (!std::isnan(s.wait_step_ms)) step.push_back(s.wait_step_ms), kernel.push_back(s.wait_kernel_ms);
  }
  return "GPU profile (mean of " + std::to_string(summaries.size()) + " copies): duty " +
         fmt_fixed(100 * mean(duty), 1) + "%, bursts p50 " + fmt_num(mean(burst), 3) + " ms (split at " +
         fmt_num(summaries.front().gap_threshold_us) + " us idle), fill " +
         (fill.empty() ? std::string("-") : fmt_fixed(100 * mean(fill), 1) + "%") +
         (step.empty() ? std::string()
                       : "; per host wait: a step of " + fmt_num(mean(step), 3) + " ms, GPU " +
                             fmt_num(mean(kernel), 3) + " ms") +
         window_lines;
}

}  // namespace bench_mps::harness
