#pragma once
// Runs scripts/plot_report.py, the only place figures are drawn (matplotlib, Agg backend). The
// interpreter is $BENCH_MPS_PYTHON when set (and then only it), else the first of /usr/bin/python3
// and python3 on PATH that can import matplotlib; none is an EnvironmentError (exit 3).
#include "harness/report/wing.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>

namespace bench_mps::harness {

/// SIGINT, SIGTERM or SIGHUP arrived while a report was being made (common/signals): the plotting
/// script's process group was ended; `bench_mps report` exits 128 + signal.
class ReportStopped : public std::runtime_error {
 public:
  explicit ReportStopped(int sig);
  int signal;
};

/// Throws ReportStopped when a stop signal has arrived.
void throw_if_stopped();

/// A Python interpreter that can `import matplotlib`; throws EnvironmentError when there is none.
std::string find_plot_python();

/// The plotting script: $BENCH_MPS_SCRIPTS/plot_report.py, else the source tree's scripts/plot_report.py;
/// throws EnvironmentError when it is not there.
std::filesystem::path plot_script();

/// `python script plot_data out_dir`, its output into `log`; throws std::runtime_error quoting the
/// script's last line of output when it fails or runs past `timeout_s`, ReportStopped when a stop
/// signal ended it. An empty log is removed after a script that succeeded.
void run_plot_script(const std::string& python, const std::filesystem::path& script,
                     const std::filesystem::path& plot_data, const std::filesystem::path& out_dir,
                     const std::filesystem::path& log, double timeout_s = 300);

}  // namespace bench_mps::harness
