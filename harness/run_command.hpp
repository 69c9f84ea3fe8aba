#pragma once
// Runs a short helper program (nvidia-cuda-mps-control, nvidia-smi) to completion with a timeout,
// input from a string, output captured through a file (a daemon it forks cannot hold a pipe open).
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench_mps::harness {

class CommandError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together, trimmed
};

/// Runs `exe args` with `env_set` added to our environment and `input` on stdin; scratch files go to
/// `scratch_dir`. Throws CommandError if it cannot start or does not finish within timeout_s (it is
/// killed then).
CommandResult run_command(const std::string& exe, const std::vector<std::string>& args,
                          const std::vector<std::pair<std::string, std::string>>& env_set, const std::string& input,
                          double timeout_s, const std::filesystem::path& scratch_dir);

}  // namespace bench_mps::harness
