#pragma once
// A private MPS control daemon for one block of MPS runs: its own pipe and log directories under
// $TMPDIR/bench_mps-<uid>/ (never the system default /tmp/nvidia-mps), its default active-thread
// percentage set before the first client, and `quit` sent on every way out (the destructor too).
// A daemon left behind by a bench_mps that was killed outright is found by its pid file and stopped
// by the next bench_mps (stop_stale_sessions).
#include "harness/mps/wing.hpp"

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/common/proc_scan.hpp"
#include "harness/common/process.hpp"

namespace bench_mps::harness {

class MpsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// The daemon did not answer a command within its timeout.
class MpsTimeout : public MpsError {
 public:
  using MpsError::MpsError;
};

/// Seconds an nvidia-cuda-mps-control command gets once a stop signal has come (MpsSessionOptions'
/// command_timeout_s before).
inline constexpr double kStoppingCommandTimeoutS = 3;

struct MpsSessionOptions {
  std::string control_exe;         ///< path of nvidia-cuda-mps-control
  std::filesystem::path base_dir;  ///< where private session folders live
  std::optional<int> default_active_thread_pct;
  double command_timeout_s = 15;  ///< each nvidia-cuda-mps-control command (after a stop signal: at most 3 s)
  /// Non-empty: attach to the daemon the site runs with this pipe folder (--external-mps) instead of
  /// starting one; it is never sent quit nor given a default percentage.
  std::string external_pipe_dir;
};

class MpsSession {
 public:
  /// Starts the daemon and waits for its pid file; throws MpsError (with the daemon's log) on failure.
  explicit MpsSession(const MpsSessionOptions& options);
  /// Quits the daemon if still running; never throws.
  ~MpsSession();
  MpsSession(const MpsSession&) = delete;
  MpsSession& operator=(const MpsSession&) = delete;

  /// Environment every client of this session needs.
  std::vector<std::pair<std::string, std::string>> client_env() const;
  const std::filesystem::path& dir() const { return dir_; }
  pid_t control_pid() const { return control_pid_; }

  /// Sends one command line to the daemon and returns what it printed (trimmed); MpsTimeout where it does not
  /// answer in time, MpsError on any other failure.
  std::string command(const std::string& line);
  /// Why the daemon did not answer a command of this session (the first such; "": it answered every one).
  const std::string& unanswered() const { return unanswered_; }
  /// PIDs from get_server_list.
  std::vector<pid_t> server_pids();
  /// PIDs from get_client_list: the processes `server` serves now.
  std::vector<pid_t> client_pids(pid_t server);
  /// Asks the daemon to terminate a client's contexts (used on timeouts before killing it).
  void terminate_client(pid_t server, pid_t client);
  /// Sends quit and waits until the daemon and its servers are gone (killing them if they linger).
  void quit();

 private:
  MpsSessionOptions options_;
  std::filesystem::path dir_, pipe_dir_, log_dir_;
  pid_t control_pid_ = 0;
  std::vector<pid_t> seen_servers_;
  bool running_ = false;
  std::string unanswered_;  ///< a command timed out (why): the later ones get the stopping timeout (a few seconds)
  bool external_ = false;
};

/// Private base folder: $TMPDIR (or /tmp) / bench_mps-<uid>.
std::filesystem::path default_mps_base_dir();

/// Path of nvidia-cuda-mps-control on PATH, or empty.
std::string find_mps_control();

/// Stops daemons of sessions whose bench_mps is gone, in base_dir and in every device folder under it
/// (a live bench_mps's sessions are left alone, whichever GPU they serve); returns one line per daemon.
std::vector<std::string> stop_stale_sessions(const std::filesystem::path& base_dir, const std::string& control_exe);

/// The device a sweep measures, as an MPS daemon's CUDA_VISIBLE_DEVICES may name it.
struct MeasuredDevice {
  std::string key;    ///< the GPU's UUID, or the name given where there is none (cpu-<n>, an index without NVML)
  std::string uuid;   ///< "GPU-..."; empty without NVML
  int index = -1;     ///< NVML's index (PCI bus order); -1 when unknown
  int gpu_count = 1;  ///< GPUs the driver sees
};

/// The name of a device's folder (and lock) under the private base folder: "gpu-" and the first 12
/// hex digits of its UUID (short: an MPS pipe folder's sockets must fit in 108 bytes), else its key.
std::string device_dir_name(const MeasuredDevice& device);

/// Whether a daemon started with CUDA_VISIBLE_DEVICES = `visible` (nullopt: unset or unreadable, so
/// every GPU) and CUDA_DEVICE_ORDER = `order` may serve `device`. Where it cannot be told (a bare
/// index under CUDA's fastest-first order on a machine of several GPUs, a MIG or unknown entry), it may.
bool daemon_serves(const std::optional<std::string>& visible, const std::optional<std::string>& order,
                   const MeasuredDevice& device);

/// Live MPS processes that may serve `device` and are not this process's own sessions under own_dir.
/// A live bench_mps's daemon for another GPU is not foreign: it serves that GPU alone.
std::vector<ProcInfo> foreign_mps_processes(const std::filesystem::path& own_dir, const MeasuredDevice& device);

}  // namespace bench_mps::harness
