// Finds a Python with matplotlib and runs the plotting script as a child process (common/process),
// with a time limit and its output kept in a log for the error message.
#include "harness/report/report_plotter.hpp"

#include <sys/statvfs.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/process.hpp"
#include "harness/common/signals.hpp"

#ifndef BENCH_MPS_SOURCE_DIR
#error "BENCH_MPS_SOURCE_DIR must be defined (harness/CMakeLists.txt)"
#endif

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The plotting script's environment: a headless backend, no .pyc files in the source tree.
const ChildEnv kPlotEnv{{}, {{"MPLBACKEND", "Agg"}, {"PYTHONDONTWRITEBYTECODE", "1"}}};

int run_child(const std::string& exe, const std::vector<std::string>& args, const fs::path& log, double timeout_s) {
  const int rc = run_logged(exe, args, kPlotEnv, log, timeout_s, &stop_signal());
  throw_if_stopped();
  return rc;
}

/// Whether the filesystem of `dir` has less than 1 MiB left for us (a figure is larger).
bool out_of_room(const fs::path& dir) {
  struct statvfs v {};
  if (::statvfs(dir.c_str(), &v) != 0) return false;
  return static_cast<unsigned long long>(v.f_bavail) * v.f_frsize < (1ull << 20);
}

bool has_matplotlib(const std::string& python) { return run_child(python, {"-c", "import matplotlib"}, {}, 60) == 0; }

std::string last_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (!trim(line).empty()) last = line;
  return one_line(last);
}

}  // namespace

ReportStopped::ReportStopped(int sig)
    : std::runtime_error(std::string("report: stopped by ") +
                         (sigabbrev_np(sig) ? "SIG" + std::string(sigabbrev_np(sig)) : "a signal") +
                         "; the plotting script was ended and nothing was written"),
      signal(sig) {}

void throw_if_stopped() {
  if (const int sig = stop_signal().load()) throw ReportStopped(sig);
}

std::string find_plot_python() {
  if (const char* chosen = std::getenv("BENCH_MPS_PYTHON"); chosen && *chosen) {
    std::string python = chosen;
    if (python.find('/') == std::string::npos) python = find_on_path(python);
    if (!python.empty() && has_matplotlib(python)) return python;
    throw EnvironmentError(std::string("report: BENCH_MPS_PYTHON=") + chosen +
                           " cannot import matplotlib (install python3-matplotlib or unset it)");
  }
  std::vector<std::string> candidates{"/usr/bin/python3"};
  const std::string on_path = find_on_path("python3");
  if (!on_path.empty()) candidates.push_back(on_path);
  for (const std::string& python : candidates) {
    std::error_code ec;
    if (fs::exists(python, ec) && has_matplotlib(python)) return python;
  }
  throw EnvironmentError(
      "report: no Python with matplotlib (tried /usr/bin/python3 and python3 on PATH): install python3-matplotlib "
      "or set BENCH_MPS_PYTHON");
}

fs::path plot_script() {
  const char* dir = std::getenv("BENCH_MPS_SCRIPTS");
  const fs::path script = fs::path(dir && *dir ? dir : BENCH_MPS_SOURCE_DIR "/scripts") / "plot_report.py";
  std::error_code ec;
  if (!fs::is_regular_file(script, ec))
    throw EnvironmentError("report: plotting script " + script.string() + " not found (set BENCH_MPS_SCRIPTS)");
  return script;
}

void run_plot_script(const std::string& python, const fs::path& script, const fs::path& plot_data,
                     const fs::path& out_dir, const fs::path& log, double timeout_s) {
  const int rc = run_child(python, {script.string(), plot_data.string(), out_dir.string()}, log, timeout_s);
  if (rc != 0) {
    const std::string why = last_line(log);
    // A full disk or quota is the machine's (exit 3, as for bench_mps's own files), not a failed report.
    const bool quota = why.find("Disk quota exceeded") != std::string::npos;
    if (quota || why.find("No space left on device") != std::string::npos || out_of_room(out_dir))
      throw FileWriteError("report: " + script.filename().string() + " could not write its figures into " +
                               out_dir.string() + ": " + (why.empty() ? "no space left on device" : why),
                           out_dir, quota ? EDQUOT : ENOSPC);
    throw std::runtime_error("report: " + script.filename().string() +
                             (rc < 0 ? " did not finish" : " failed (exit " + std::to_string(rc) + ")") +
                             (why.empty() ? "" : ": " + why));
  }
  std::error_code ec;  // a script that drew and said nothing leaves no empty log beside its figures
  if (fs::is_regular_file(log, ec) && fs::file_size(log, ec) == 0 && !ec) fs::remove(log, ec);
}

}  // namespace bench_mps::harness
