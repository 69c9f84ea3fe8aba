#pragma once
// Reads /proc: which processes are alive (zombies count as gone), their names and environments.
// Used to find MPS daemons that are not ours, and to check that none of ours is left behind.
#include "harness/common/wing.hpp"

#include <optional>
#include <string>
#include <utility>
#include <sys/types.h>
#include <vector>

namespace bench_mps::harness {

struct ProcInfo {
  pid_t pid = 0;
  std::string comm;                    ///< /proc/PID/comm (15 characters at most)
  std::string exe_arg;                 ///< argv[0] from /proc/PID/cmdline
  char state = '?';                    ///< from /proc/PID/stat: R, S, D, Z, ...
  unsigned long long start_ticks = 0;  ///< start time in clock ticks after boot: with pid, names one process
};

/// The parent of `pid`, or 0 if it is gone.
pid_t parent_pid(pid_t pid);

/// Live (non-zombie) processes of process group `pgid` (pid, comm, state).
std::vector<ProcInfo> live_processes_in_group(pid_t pgid);

/// True if `pid` exists and is not a zombie.
bool process_alive(pid_t pid);

/// Live (non-zombie) processes whose comm or argv[0] basename starts with "nvidia-cuda-mps".
std::vector<ProcInfo> live_mps_processes();

/// Start time of `pid` in clock ticks after boot (/proc/PID/stat); 0 if it is gone.
unsigned long long process_start_ticks(pid_t pid);

/// Live processes whose chain of parents leads to `root` (root itself not included).
std::vector<ProcInfo> live_descendants(pid_t root);

/// Live processes (readable: the user's own) whose environment holds `name`, with its value.
std::vector<std::pair<ProcInfo, std::string>> live_processes_with_env(const std::string& name);

/// Value of `name` in the environment of process `pid`, if readable.
std::optional<std::string> process_env(pid_t pid, const std::string& name);

}  // namespace bench_mps::harness
