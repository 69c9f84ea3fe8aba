#pragma once
// Every child process the harness starts goes through here, so that Boost.Process (v1, deprecated
// upstream from Boost 1.86) is used in this one pair of files and its port to v2 is one file:
// - run_command: a short helper program (nvidia-cuda-mps-control, nvidia-smi) run to completion,
//   input from a string, output captured through a file (a daemon it forks cannot hold a pipe open);
// - run_logged: a program run to completion with its output in a log (the plotting script);
// - PipedChild: a long-running child whose stdout/stderr we read line by line (bench_worker).
#include "harness/common/wing.hpp"

#include <sys/types.h>

#include <atomic>
#include <filesystem>
#include <istream>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench_mps::harness {

class CommandError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// The command did not finish within its timeout (run_command); its other failures are plain CommandError.
class CommandTimeout : public CommandError {
 public:
  using CommandError::CommandError;
};

/// Changes to our own environment for a child: names removed, then names set.
struct ChildEnv {
  std::vector<std::string> unset;
  std::vector<std::pair<std::string, std::string>> set;
};

/// Full path of `name` found on PATH; "" when it is not there.
std::string find_on_path(const std::string& name);

struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together, trimmed
};

/// Runs `exe args` with `env_set` added to our environment and `input` on stdin; scratch files go to
/// `scratch_dir`. Throws CommandError if it cannot start or does not finish within timeout_s, or, with
/// `stop_on_signal`, when a stop signal (common/signals) arrives while it runs: it is killed then, with every
/// process it started that is still its descendant.
CommandResult run_command(const std::string& exe, const std::vector<std::string>& args,
                          const std::vector<std::pair<std::string, std::string>>& env_set, const std::string& input,
                          double timeout_s, const std::filesystem::path& scratch_dir, bool stop_on_signal = false);

/// Runs `exe args` in a process group of its own, with stdin /dev/null and stdout+stderr to `log`
/// (empty: discarded). The exit code, or -1 if it could not start, did not finish within timeout_s, or
/// `stop` (when given) became non-zero first: the whole group is killed then, so nothing it started
/// outlives it. With `term_grace_s` > 0 the group gets SIGTERM first and that long to end by itself (a
/// child bench_mps quits its MPS daemon on SIGTERM).
int run_logged(const std::string& exe, const std::vector<std::string>& args, const ChildEnv& env,
               const std::filesystem::path& log, double timeout_s, const std::atomic<int>* stop = nullptr,
               double term_grace_s = 0);

/// A running child with its stdout and stderr on pipes (and stdin on a pipe or /dev/null). The owner
/// reaps it with waitpid(pid()) and then calls forget(); a child not forgotten is killed by the destructor.
class PipedChild {
 public:
  struct Options {
    ChildEnv env;
    bool stdin_pipe = true;          ///< false: stdin is /dev/null
    bool own_process_group = false;  ///< setpgid(0, 0) in the child before exec
    bool die_with_parent = false;    ///< PR_SET_PDEATHSIG SIGKILL in the child before exec
    std::vector<int> cpus;           ///< not empty: pin the child to these CPUs before exec (best effort)
  };
  /// Throws CommandError naming `exe` when it cannot be started.
  PipedChild(const std::string& exe, const std::vector<std::string>& args, const Options& options);
  ~PipedChild();
  PipedChild(const PipedChild&) = delete;
  PipedChild& operator=(const PipedChild&) = delete;

  pid_t pid() const;
  std::istream& out();
  std::istream& err();
  /// Writes `line` and a newline to the child's stdin (a child that is gone is not an error).
  void send_line(const std::string& line);
  /// Closes the child's stdin: it sees end of file.
  void close_input();
  /// send_line, then close_input.
  void send_last_line(const std::string& line);
  /// The child was reaped by the owner (or is left behind on purpose): never wait for or kill it.
  void forget();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bench_mps::harness
