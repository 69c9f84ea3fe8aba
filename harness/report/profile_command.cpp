#include "harness/report/profile_command.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <filesystem>
#include <iostream>
#include <map>
#include <vector>

#include "harness/common/cli_checks.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/profile_window.hpp"
#include "harness/results/results_reader.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

CLI::App* add_profile_command(CLI::App& app, ProfileArgs& args) {
  CLI::App* cmd = app.add_subcommand("profile", "summarise GPU profiles written by --profile-gpu (docs/PROFILE.md)");
  cmd->add_option("path", args.path, "a profile-<pid>.json, or a folder searched for them (e.g. OUT/profiles)")
      ->required();
  cmd->add_option("--gap-us", args.gap_us,
                  "a GPU idle gap at least this long ends a burst (not a host wait: those are recorded)")
      ->check(finite_in(1.0, 1e6))
      ->capture_default_str();
  cmd->footer(
      "Example: bench_mps profile OUT/profiles --gap-us 50   (OUT: a sweep run with --profile-gpu)\n"
      "Exit codes: 0 ok; 2 no profile there, or one that cannot be read (named); 128+N stopped by signal N.");
  return cmd;
}

namespace {

/// The steady part on CLOCK_MONOTONIC, or why it cannot be placed there.
std::string clock_line(const GpuProfile& p, const ProfileSummary& s) {
  const ProfileClock c = profile_clock(p);
  if (!c.unavailable.empty()) return "NVML and GPM cannot be set beside it: " + c.unavailable;
  return "on CLOCK_MONOTONIC: steady part " +
         fmt_fixed(static_cast<double>(c.monotonic_ns(s.steady_from_s)) * 1e-9, 3) + "-" +
         fmt_fixed(static_cast<double>(c.monotonic_ns(s.steady_to_s)) * 1e-9, 3) + " s (" + std::to_string(c.anchors) +
         " clock anchors, read within " + fmt_num(static_cast<double>(c.spread_ns) * 1e-3, 3) + " us)";
}

/// A profile under OUT/profiles/<run id>/w<worker>/: its copy's row of OUT/runs.csv, where that copy's
/// steady part was this profile's (its pid); null elsewhere.
const WorkerRecord* copy_row(const fs::path& file, long pid, std::map<fs::path, std::vector<WorkerRecord>>& runs) {
  const fs::path worker_dir = file.parent_path(), run_dir = worker_dir.parent_path(),
                 out = run_dir.parent_path().parent_path();
  const std::string w = worker_dir.filename().string();
  if (run_dir.parent_path().filename() != "profiles" || w.size() < 2 || w[0] != 'w') return nullptr;
  auto it = runs.find(out);
  if (it == runs.end()) {
    std::vector<WorkerRecord> rows;
    std::error_code ec;
    if (fs::is_regular_file(out / "runs.csv", ec)) {
      try {
        rows = read_runs(out / "runs.csv");
      } catch (const UsageError&) {  // a damaged runs.csv: the profile is still summarised, without it
      }
    }
    it = runs.emplace(out, std::move(rows)).first;
  }
  for (const WorkerRecord& r : it->second)
    if (r.run_id == run_dir.filename().string() && "w" + std::to_string(r.worker) == w &&
        r.fact("profile_pid") == pid && !std::isnan(r.fact("profile_nvml_samples")))
      return &r;
  return nullptr;
}

}  // namespace

void print_profile_summary(std::ostream& out, const GpuProfile& p, const ProfileSummary& s,
                           const ProfileWindow* window) {
  out << p.file << "\n  pid " << p.pid << ": " << one_line(p.command) << "\n";  // a file's bytes: no control codes
  if (!p.complete) out << "  status error: " << (p.errors.empty() ? "" : p.errors.front()) << "\n";
  out << "  kernels " << p.kernel_count << " (" << p.signatures.size() << " signatures), copies " << p.copy_count
      << ", memsets " << p.memset_count << ", contexts " << p.contexts << ", device memory peak "
      << fmt_fixed(static_cast<double>(p.memory_peak_bytes) / (1 << 20), 1) << " MiB\n";
  out << "  steady part " << fmt_fixed(s.steady_from_s, 3) << "-" << fmt_fixed(s.steady_to_s, 3) << " s"
      << (s.truncated ? " (the run's last spans: the profile kept its first and last)" : "") << ": duty "
      << fmt_fixed(100 * s.duty, 1) << "% (whole run "
      << (std::isnan(s.duty_whole) ? std::string("-: its busy total counts late spans twice, a profile before "
                                                 "2026-12-05")
                                   : fmt_fixed(100 * s.duty_whole, 1) + "%")
      << ")\n";
  out << "  " << (window ? "over it, as its run recorded: " + describe_nvml_gpm(*window) : clock_line(p, s)) << "\n";
  out << "  bursts split at " << fmt_num(s.gap_threshold_us) << " us idle: " << s.bursts << ", p50 "
      << fmt_num(s.burst_p50_ms, 4) << " ms, p90 " << fmt_num(s.burst_p90_ms, 4) << " ms, mean "
      << fmt_num(s.burst_mean_ms, 4) << " ms; idle gaps between them p50 " << fmt_num(s.wait_p50_ms, 4) << " ms\n";
  auto ms = [](double v) { return std::isnan(v) ? std::string("-") : fmt_num(v, 4) + " ms"; };
  if (s.waits_recorded)
    out << "  host waits" << (p.waits_source.empty() ? "" : " (" + p.waits_source + ")")
        << " in the steady part: " << s.host_waits << "; per wait-to-wait step: " << ms(s.wait_step_ms)
        << " long, GPU busy " << ms(s.wait_kernel_ms) << ", burst " << ms(s.wait_burst_ms)
        << " (first start to last end)\n";
  if (s.waits_recorded && !p.waits.empty()) {  // where `--exec-gate steady` holds copies, this run alone
    const long k = waits_before_unit(p, s);
    out << "  start gate (--exec-gate steady, from this run alone): "
        << (k > 0 ? "after host wait " + std::to_string(k) + ", where its unit's steady part begins"
                  : std::string("at the first kernel (its unit's steady part begins before its first host wait)"))
        << "\n";
  }
  if (!s.waits_recorded)
    out << "  host waits: not recorded ("
        << (p.waits_status.empty() ? std::string("a format_version 1 profile") : p.waits_status) << ")\n";
  if (const UnitRange& r = p.unit_range; !r.name.empty()) {  // --exec-unit-range: the range followed
    out << "  NVTX range '" << r.name << "': ";
    if (r.recorded()) {
      std::vector<double> lengths;
      for (const HostWait& w : r.spans) lengths.push_back(static_cast<double>(w.end_ns - w.start_ns) * 1e-6);
      out << r.count << " occurrences"
          << (r.spans.size() < r.count ? " (the first " + std::to_string(r.kept_head) + " and the last " +
                                             std::to_string(r.spans.size() - r.kept_head) + " kept)"
                                       : std::string())
          << ", middle length " << (lengths.empty() ? std::string("-") : ms(median(lengths))) << "\n";
    } else {
      out << "not recorded (" << r.status << ")\n";
    }
  }
  out << "  fill " << (std::isnan(s.fill) ? std::string("-") : fmt_fixed(100 * s.fill, 1) + "%")
      << " of the GPU (kernel-time-weighted blocks / (SMs x resident blocks per SM))\n";
  out << "  gaps (whole run; " << fmt_fixed(100 * s.gaps_at_threshold_share, 1) << "% at or above "
      << fmt_num(s.gaps_share_from_us, 3) << " us, the first bin edge at or above the " << fmt_num(s.gap_threshold_us)
      << " us threshold):";
  for (const GapBin& b : s.gaps)
    out << " [" << fmt_num(b.from_us, 3) << "," << fmt_num(b.to_us, 3) << ") us " << b.count << ";";
  out << "\n";
}

int run_profile(const ProfileArgs& args) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(args.path, ec)) {
    files = gpu_profile_files(args.path, true);
  } else if (fs::is_regular_file(args.path, ec)) {
    files.push_back(args.path);
  } else {
    throw UsageError("profile: " + args.path + " is neither a profile nor a folder");
  }
  if (files.empty()) throw UsageError("profile: no profile-<pid>.json under " + args.path);
  std::map<fs::path, std::vector<WorkerRecord>> runs;  // each results folder's runs.csv, read once
  // Every profile read and summarised before the first line is printed: a bad one is the command's one line
  // (exit 2) without the summaries of those before it.
  std::ostringstream text;
  for (const fs::path& f : files) {
    const GpuProfile p = read_gpu_profile(f);
    const ProfileSummary s = summarise(p, args.gap_us);
    if (const WorkerRecord* row = copy_row(f, p.pid, runs)) {
      const ProfileWindow w = window_from_facts([row](const std::string& key) { return row->fact(key); });
      print_profile_summary(text, p, s, &w);
    } else {
      print_profile_summary(text, p, s);
    }
  }
  std::cout << text.str();
  return 0;
}

}  // namespace bench_mps::harness
