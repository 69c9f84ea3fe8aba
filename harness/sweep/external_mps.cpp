#include "harness/sweep/external_mps.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/process.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/plan/device_options.hpp"
#include "harness/sweep/preflight.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

int parse_active_thread_pct(const std::string& text) {
  const std::string t = trim(text);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(v) || v < 1 || v > 100 ||
      v != std::floor(v))
    return -1;
  return static_cast<int>(v);
}

void attach_external_mps(SweepSpec& spec) {
  if (!spec.external_mps) return;
  check_out_dir(spec);
  const std::string control = find_mps_control();
  if (control.empty())
    throw EnvironmentError(
        "--external-mps: nvidia-cuda-mps-control is not on PATH; bench_mps asks the site's "
        "daemon through it");
  const char* env_pipe = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  const bool pipe_set = env_pipe && *env_pipe;
  spec.external.pipe_dir = pipe_set ? env_pipe : "/tmp/nvidia-mps";
  const std::string whence = pipe_set ? "CUDA_MPS_PIPE_DIRECTORY" : "the default; CUDA_MPS_PIPE_DIRECTORY is not set";
  std::error_code ec;
  if (!fs::is_directory(spec.external.pipe_dir, ec))
    throw EnvironmentError("--external-mps: no MPS daemon: its pipe folder " + spec.external.pipe_dir +
                           " does not exist (" + whence + ")");
  const fs::path scratch = default_mps_base_dir();
  fs::create_directories(scratch, ec);
  fs::permissions(scratch, fs::perms::owner_all, ec);
  CommandResult answer;
  try {
    answer = run_command(control, {}, {{"CUDA_MPS_PIPE_DIRECTORY", spec.external.pipe_dir}},
                         "get_default_active_thread_percentage\n", 15, scratch);
  } catch (const CommandError& e) {
    throw EnvironmentError("--external-mps: the MPS daemon in " + spec.external.pipe_dir +
                           " does not answer: " + one_line(e.what()));
  }
  const int daemon_pct = parse_active_thread_pct(answer.output);
  if (answer.exit_code != 0 || daemon_pct < 0)
    throw EnvironmentError(
        "--external-mps: no MPS daemon answers in " + spec.external.pipe_dir + " (" + whence +
        "): " + (answer.output.empty() ? "exit " + std::to_string(answer.exit_code) : one_line(answer.output)));
  spec.external.daemon_default_pct = trim(answer.output);

  int pct = daemon_pct < 100 ? daemon_pct : 0;  // 0: no limit
  spec.external.pct_source = "the daemon's default (" + spec.external.daemon_default_pct + ")";
  if (const char* v = std::getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")) {
    pct = parse_active_thread_pct(v);
    if (pct < 0)
      throw EnvironmentError(std::string("--external-mps: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE='") +
                             std::string(v).substr(0, 40) + "' is not a whole percentage in 1..100");
    spec.external.pct_source = std::string("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=") + v;
    if (pct == 100) pct = 0;
  }
  for (Mode& m : spec.modes) {
    if (pct && m.active_thread_pct > pct)  // a client may only lower what the site gives it
      throw UsageError("--modes " + m.name.substr(std::string(kExternalModePrefix).size()) + ": more than the " +
                       std::to_string(pct) + "% of threads the site gives this job (" + spec.external.pct_source + ")");
    if (m.active_thread_pct == 0) m.active_thread_pct = pct;  // mps:<p> keeps the limit it asks for
  }
}

}  // namespace bench_mps::harness
