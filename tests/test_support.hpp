#pragma once
// Shared by the tests: paths of the built programs and fixtures, temporary folders, and running a
// program as a real process with its exit code, stdout and stderr.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/common/run_status.hpp"

namespace bench_mps::testing {

namespace fs = std::filesystem;

fs::path source_dir();
fs::path build_dir();
fs::path bench_mps_exe();
fs::path bench_worker_exe();
/// tests/fakes: the fake nvidia-cuda-mps-control and nvidia-cuda-mps-server.
fs::path fakes_dir();
fs::path fixtures_dir();
/// results/2026-11-27-predict-study: the committed prediction study (its xray, each program's alone and ladder).
fs::path study();

struct Env {
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<std::string> unset;
};

struct CommandOutput {
  int exit_code = -1;  ///< 128 + signal when a signal ended it
  std::string out, err;
  bool timed_out = false;
};

/// Runs `exe args` to completion (killed after timeout_s) with `env` applied on top of ours.
CommandOutput run_program(const fs::path& exe, const std::vector<std::string>& args, const Env& env = {},
                          double timeout_s = 120);

/// A program running in the background; output is collected until it ends.
class BackgroundProgram {
 public:
  BackgroundProgram(const fs::path& exe, const std::vector<std::string>& args, const Env& env = {});
  ~BackgroundProgram();  ///< kills it if still running
  BackgroundProgram(const BackgroundProgram&) = delete;
  BackgroundProgram& operator=(const BackgroundProgram&) = delete;
  int pid() const;
  void signal(int sig);
  /// Waits for the end (SIGKILL after timeout_s) and returns what it printed.
  CommandOutput wait(double timeout_s = 60);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Polls `condition` every 20 ms for up to timeout_s; returns its last value.
bool wait_until(const std::function<bool()>& condition, double timeout_s);

/// Env with the fakes first on PATH and the fake daemon's journal at `journal`.
Env fake_mps_env(const fs::path& journal);

/// The start of a stand-in command that "connects" to the fake MPS daemon where there is one (its pid appended to
/// $CUDA_MPS_PIPE_DIRECTORY/clients, which the fake's get_client_list reports).
inline const std::string kJoinFakeMps =
    "[ -e \"$CUDA_MPS_PIPE_DIRECTORY/control\" ] && echo $$ >> \"$CUDA_MPS_PIPE_DIRECTORY/clients\"; ";

/// A paced server's CPU stand-in for --command: registers with the fake MPS daemon where there is one, then serves 30
/// requests due every 20 ms, each printed `latency_ms=2.0` (answered 2 ms after it was due): it serves at most 50
/// requests a second, while 1000 over its latency is 500.
inline const std::string kPacedStandIn =
    kJoinFakeMps + "for i in $(seq 1 30); do sleep 0.02; echo latency_ms=2.0; done";
/// The same 30 lines through a block-buffered stdout (sed into a pipe): they reach bench_mps in one batch at its exit.
inline const std::string kBufferedStandIn =
    kJoinFakeMps + "for i in $(seq 1 30); do sleep 0.02; echo $i; done | sed 's/.*/latency_ms=2.0/'";

/// A fresh folder under the system temp dir, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

std::string read_text(const fs::path& file);
/// Every row of a CSV file (quoted cells allowed, one record per line), by column name.
std::vector<std::map<std::string, std::string>> csv_records(const fs::path& file);
std::vector<std::string> read_lines(const fs::path& file);
void write_text(const fs::path& file, const std::string& text);
/// `file` with the cell of `column` (by header name) in data row `row` (1 = the first) set to `value` (a CSV whose
/// cells before it hold no quoted comma).
void set_csv_cell(const fs::path& file, std::size_t row, const std::string& column, const std::string& value);
/// Number of live nvidia-cuda-mps* processes on this machine.
int live_mps_process_count();
/// Another user's MPS daemon (the fake control daemon on its own pipe and log folders under `dir`), started
/// in the constructor and quit in the destructor the way an operator would, also when an assertion ends the
/// test first: no daemon outlives the test. `env` is the environment the tests run bench_mps with.
class ForeignDaemon {
 public:
  ForeignDaemon(const Env& env, const fs::path& dir);
  ~ForeignDaemon();
  ForeignDaemon(const ForeignDaemon&) = delete;
  ForeignDaemon& operator=(const ForeignDaemon&) = delete;
  bool running() const { return running_; }  ///< it started and shows among the live MPS processes
  fs::path pipe_dir() const { return dir_ / "foreign-pipe"; }

 private:
  Env env_;
  fs::path dir_;
  bool running_ = false;
};

/// True if a GPU is visible to CUDA here (GPU tests skip themselves otherwise).
bool gpu_available();

}  // namespace bench_mps::testing

namespace bench_mps::harness {
// The tests state a status as the word the results files hold (EXPECT_EQ(row.status, "ok")); the
// harness itself never compares a status with a word.
inline bool operator==(RunStatus status, std::string_view word) { return status_name(status) == word; }
inline bool operator!=(RunStatus status, std::string_view word) { return !(status == word); }
}  // namespace bench_mps::harness
