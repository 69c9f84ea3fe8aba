#include "harness/mps/mps_session.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <thread>

#include "harness/common/fatal_signal.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/signals.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

constexpr const char* kPidFile = "nvidia-cuda-mps-control.pid";

std::string log_tail(const fs::path& file, std::size_t lines = 5) {
  std::vector<std::string> all = split(read_whole_file(file), '\n');
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i)
    if (!trim(all[i]).empty()) out += (out.empty() ? "" : " | ") + trim(all[i]);
  return out;
}

pid_t read_pid_file(const fs::path& path) {
  std::istringstream in(read_whole_file(path));
  long pid = 0;
  return in >> pid ? static_cast<pid_t>(pid) : 0;
}

/// Waits until none of `pids` is alive; returns true if they all went within timeout_s (false at once when
/// `signals_before` is given and another stop signal has come since).
bool wait_gone(const std::vector<pid_t>& pids, double timeout_s, int signals_before = -1) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    bool any = false;
    for (pid_t p : pids) any |= process_alive(p);
    if (!any) return true;
    if (std::chrono::steady_clock::now() > until) return false;
    if (signals_before >= 0 && stop_signals_received() != signals_before) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// SIGTERM, then SIGKILL, to whichever of `pids` is still alive.
void force_stop(const std::vector<pid_t>& pids) {
  for (pid_t p : pids)
    if (process_alive(p)) ::kill(p, SIGTERM);
  if (wait_gone(pids, 2)) return;
  for (pid_t p : pids)
    if (process_alive(p)) ::kill(p, SIGKILL);
  wait_gone(pids, 2);
}

/// Live MPS processes started with CUDA_MPS_PIPE_DIRECTORY == pipe_dir.
std::vector<pid_t> mps_processes_of(const fs::path& pipe_dir) {
  std::vector<pid_t> pids;
  for (const ProcInfo& p : live_mps_processes())
    if (process_env(p.pid, "CUDA_MPS_PIPE_DIRECTORY") == pipe_dir.string()) pids.push_back(p.pid);
  return pids;
}

std::vector<std::pair<std::string, std::string>> mps_env(const fs::path& pipe, const fs::path& log) {
  return {{"CUDA_MPS_PIPE_DIRECTORY", pipe.string()}, {"CUDA_MPS_LOG_DIRECTORY", log.string()}};
}

/// Owner pid of a session folder named session-<pid>-<n>, or 0.
pid_t session_owner(const fs::path& dir) {
  static const std::regex name(R"(session-(\d+)-\d+)");
  std::smatch m;
  const std::string base = dir.filename().string();
  return std::regex_match(base, m, name) ? static_cast<pid_t>(std::stol(m[1])) : 0;
}

bool is_running_bench_mps(pid_t pid) {
  if (!process_alive(pid)) return false;
  std::istringstream comm(read_whole_file("/proc/" + std::to_string(pid) + "/comm"));
  std::string name;
  std::getline(comm, name);
  return name == "bench_mps";
}

}  // namespace

namespace {

/// run_command, its failures reported as MpsError (MpsTimeout where the command did not answer in time).
CommandResult mps_command(const std::string& exe, const std::vector<std::string>& args,
                          const std::vector<std::pair<std::string, std::string>>& env_set, const std::string& input,
                          double timeout_s, const fs::path& scratch_dir) {
  try {
    return run_command(exe, args, env_set, input, timeout_s, scratch_dir, /*stop_on_signal=*/true);
  } catch (const CommandTimeout& e) {
    throw MpsTimeout(e.what());
  } catch (const CommandError& e) {
    throw MpsError(e.what());
  }
}

}  // namespace

MpsSession::MpsSession(const MpsSessionOptions& options) : options_(options) {
  static int sequence = 0;
  std::error_code ec;
  fs::create_directories(options_.base_dir, ec);
  fs::permissions(options_.base_dir, fs::perms::owner_all, ec);
  dir_ = options_.base_dir / ("session-" + std::to_string(::getpid()) + "-" + std::to_string(sequence++));
  pipe_dir_ = dir_ / "pipe";
  log_dir_ = dir_ / "log";
  fs::remove_all(dir_, ec);
  if (!options_.external_pipe_dir.empty()) {  // the site's daemon: dir_ only holds our command scratch files
    external_ = true;
    pipe_dir_ = options_.external_pipe_dir;
    const char* log = std::getenv("CUDA_MPS_LOG_DIRECTORY");
    log_dir_ = log && *log ? fs::path(log) : fs::path();
    if (!fs::create_directories(dir_, ec)) throw MpsError("cannot create " + dir_.string() + ": " + ec.message());
    running_ = true;
    return;
  }
  if (!fs::create_directories(pipe_dir_, ec) || !fs::create_directories(log_dir_, ec))
    throw MpsError("cannot create the MPS session folder " + dir_.string() + ": " + ec.message());

  // A start that does not end well stops what it may have started: the daemon forks into a session of its own
  // at once, so a control client stopped part way (a Ctrl-C, its timeout) can leave one that no one would quit.
  const auto abandon = [this](const std::string& why) {
    const std::string log = log_tail(log_dir_ / "control.log");
    for (int look = 0; look < 2; ++look) {  // again a moment later: one forking as the client was stopped
      force_stop(mps_processes_of(pipe_dir_));
      if (look == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
    return MpsError(why + (log.empty() ? "" : " | control.log: " + log));
  };
  CommandResult start;
  try {
    start = mps_command(options_.control_exe, {"-d"}, client_env(), "", options_.command_timeout_s, dir_);
  } catch (const MpsError& e) {
    throw abandon(e.what());
  }
  if (start.exit_code != 0)
    throw abandon("nvidia-cuda-mps-control -d failed (exit " + std::to_string(start.exit_code) +
                  "): " + one_line(start.output));
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!control_pid_ && std::chrono::steady_clock::now() < until && !stop_signal().load()) {
    const pid_t pid = read_pid_file(pipe_dir_ / kPidFile);
    if (pid > 0 && process_alive(pid)) control_pid_ = pid;
    for (pid_t p : mps_processes_of(pipe_dir_))
      if (!control_pid_) control_pid_ = p;
    if (!control_pid_) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!control_pid_)
    throw abandon(stop_signal().load() ? "stopped by a signal while the MPS control daemon started"
                                       : "the MPS control daemon did not come up in " + pipe_dir_.string());
  running_ = true;
  fatal_signal_mps_pipe(pipe_dir_.string());  // a crash of ours says where it is left

  if (options_.default_active_thread_pct) {
    const int pct = *options_.default_active_thread_pct;
    command("set_default_active_thread_percentage " + std::to_string(pct));
    const std::string got = command("get_default_active_thread_percentage");
    double value = -1;
    std::istringstream(got) >> value;
    if (static_cast<int>(value + 0.5) != pct) {
      quit();
      throw MpsError("the MPS daemon did not take the default active thread percentage " + std::to_string(pct) +
                     " (it answered '" + one_line(got) + "')");
    }
  }
}

MpsSession::~MpsSession() {
  try {
    quit();
  } catch (...) {
    // quit() already forced the processes down; nothing more to do in a destructor
  }
}

std::vector<std::pair<std::string, std::string>> MpsSession::client_env() const {
  if (external_ && log_dir_.empty()) return {{"CUDA_MPS_PIPE_DIRECTORY", pipe_dir_.string()}};
  return mps_env(pipe_dir_, log_dir_);
}

std::string MpsSession::command(const std::string& line) {
  // Once a stop signal has come, the control client is part of the way out: it gets a few seconds, not the
  // full timeout (a daemon that hangs would hold Ctrl-C up for a timeout per command); a responsive one
  // answers in milliseconds.
  // So does each command after one that did not answer: the daemon that hung once is asked again (the way out's
  // get_server_list and quit), but not held for 15 s a command (a teardown took 30 s more).
  const double timeout_s = stop_signal().load() || !unanswered_.empty()
                               ? std::min(options_.command_timeout_s, kStoppingCommandTimeoutS)
                               : options_.command_timeout_s;
  CommandResult r;
  try {
    r = mps_command(options_.control_exe, {}, client_env(), line + "\n", timeout_s, dir_);
  } catch (const MpsTimeout& e) {
    if (unanswered_.empty()) unanswered_ = e.what();
    throw;
  }
  if (r.exit_code != 0)
    throw MpsError("MPS command '" + line + "' failed (exit " + std::to_string(r.exit_code) +
                   "): " + one_line(r.output));
  return r.output;
}

std::vector<pid_t> MpsSession::server_pids() {
  std::vector<pid_t> pids;
  std::istringstream in(command("get_server_list"));
  for (long pid = 0; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
  for (pid_t p : pids)
    if (std::find(seen_servers_.begin(), seen_servers_.end(), p) == seen_servers_.end()) seen_servers_.push_back(p);
  return pids;
}

std::vector<pid_t> MpsSession::client_pids(pid_t server) {
  std::vector<pid_t> pids;
  std::istringstream in(command("get_client_list " + std::to_string(server)));
  for (long pid = 0; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

void MpsSession::terminate_client(pid_t server, pid_t client) {
  command("terminate_client " + std::to_string(server) + " " + std::to_string(client));
}

void MpsSession::quit() {
  if (!running_) return;
  running_ = false;
  std::error_code ec;
  if (external_) {  // the site's daemon stays as it was
    fs::remove_all(dir_, ec);
    return;
  }
  const int signals_before = stop_signals_received();  // one more (a second Ctrl-C) forces them down at once
  std::vector<pid_t> pids{control_pid_};
  try {
    server_pids();
  } catch (const MpsError&) {
    // an unresponsive daemon is forced down below
  }
  pids.insert(pids.end(), seen_servers_.begin(), seen_servers_.end());
  for (pid_t p : mps_processes_of(pipe_dir_)) pids.push_back(p);
  std::string problem;
  try {
    command("quit");
  } catch (const MpsError& e) {
    problem = e.what();
  }
  if (!wait_gone(pids, problem.empty() ? 10 : 1, signals_before)) {  // one that did not take quit is not leaving
    force_stop(pids);
    if (problem.empty()) problem = "the daemon was still running 10 s after quit";
  }
  fs::remove_all(dir_, ec);
  fatal_signal_mps_pipe("");
  if (!problem.empty()) throw MpsError("MPS quit: " + problem + " (the daemon was ended with SIGTERM/SIGKILL instead)");
}

fs::path default_mps_base_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return fs::path(tmp && *tmp ? tmp : "/tmp") / ("bench_mps-" + std::to_string(::getuid()));
}

std::string find_mps_control() { return find_on_path("nvidia-cuda-mps-control"); }

namespace {

/// Stops the daemon of session folder `dir` if its bench_mps is gone, and removes the folder; a line
/// for `stopped` when a daemon was running.
void stop_stale_session(const fs::path& dir, const std::string& control_exe, std::vector<std::string>& stopped) {
  const pid_t owner = session_owner(dir);
  if (!owner || owner == ::getpid() || is_running_bench_mps(owner)) return;
  const fs::path pipe = dir / "pipe";
  std::vector<pid_t> pids = mps_processes_of(pipe);
  const pid_t control = read_pid_file(pipe / kPidFile);
  if (control > 0 && process_alive(control) && std::find(pids.begin(), pids.end(), control) == pids.end())
    pids.push_back(control);
  if (!pids.empty()) {
    if (!control_exe.empty()) {
      try {
        mps_command(control_exe, {}, mps_env(pipe, dir / "log"), "quit\n", 10, dir);
      } catch (const MpsError&) {
        // forced below
      }
    }
    if (!wait_gone(pids, 10)) force_stop(pids);
    std::string list;
    for (pid_t p : pids) list += (list.empty() ? "" : ",") + std::to_string(p);
    stopped.push_back("stopped MPS daemon pid " + list + " left behind by bench_mps pid " + std::to_string(owner) +
                      " (" + pipe.string() + ")");
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

/// "GPU-8d3f..." matches a UUID prefix, "1" an index, anything else only itself.
bool entry_names(const std::string& entry, const std::optional<std::string>& order, const MeasuredDevice& d) {
  if (entry == d.key) return true;
  if (entry.rfind("GPU-", 0) == 0) return !d.uuid.empty() && d.uuid.rfind(entry, 0) == 0;
  const bool digits = std::all_of(entry.begin(), entry.end(), [](unsigned char c) { return std::isdigit(c); });
  if (digits) {
    if (d.index < 0) return false;  // no GPU behind this device: a GPU index is another device
    const bool pci_order = order && *order == "PCI_BUS_ID";
    return (!pci_order && d.gpu_count > 1) || entry.size() > 4 || std::stoi(entry) == d.index;
  }
  if (entry.rfind("cpu-", 0) == 0) return false;  // another pretend device
  return true;                                    // MIG-... or unknown: it may be ours
}

}  // namespace

std::vector<std::string> stop_stale_sessions(const fs::path& base_dir, const std::string& control_exe) {
  std::vector<std::string> stopped;
  std::error_code ec;
  if (!fs::is_directory(base_dir, ec)) return stopped;
  for (const auto& entry : fs::directory_iterator(base_dir, ec)) {
    if (session_owner(entry.path())) {
      stop_stale_session(entry.path(), control_exe, stopped);
    } else if (entry.is_directory(ec) && !entry.is_symlink(ec)) {  // a device folder: <uuid>/session-*
      for (const auto& session : fs::directory_iterator(entry.path(), ec))
        if (session_owner(session.path())) stop_stale_session(session.path(), control_exe, stopped);
    }
  }
  return stopped;
}

std::string device_dir_name(const MeasuredDevice& device) {
  if (device.uuid.empty()) return device.key;
  std::string hex;
  for (char c : device.uuid.substr(4))
    if (std::isxdigit(static_cast<unsigned char>(c)) && hex.size() < 12) hex += c;
  return "gpu-" + hex;
}

bool daemon_serves(const std::optional<std::string>& visible, const std::optional<std::string>& order,
                   const MeasuredDevice& device) {
  if (!visible) return true;
  for (const std::string& raw : split(*visible, ',')) {
    const std::string entry = trim(raw);
    if (!entry.empty() && entry_names(entry, order, device)) return true;
  }
  return false;
}

std::vector<ProcInfo> foreign_mps_processes(const fs::path& own_dir, const MeasuredDevice& device) {
  std::vector<ProcInfo> foreign;
  const std::string own_prefix = (own_dir / ("session-" + std::to_string(::getpid()) + "-")).string();
  auto is_foreign = [&](const ProcInfo& p) {
    const auto pipe = process_env(p.pid, "CUDA_MPS_PIPE_DIRECTORY");
    if (pipe && pipe->rfind(own_prefix, 0) == 0) return false;
    return daemon_serves(process_env(p.pid, "CUDA_VISIBLE_DEVICES"), process_env(p.pid, "CUDA_DEVICE_ORDER"), device);
  };
  for (const ProcInfo& p : live_mps_processes()) {
    // A process that ends (or execs) while its environment is read shows none, which reads as "serves
    // every GPU": look again, and only a process still there, the same one, that still looks foreign is.
    bool foreign_now = is_foreign(p);
    for (int again = 0; foreign_now && again < 3; ++again) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (process_start_ticks(p.pid) != p.start_ticks)
        foreign_now = false;
      else
        foreign_now = is_foreign(p);
    }
    if (foreign_now) foreign.push_back(p);
  }
  return foreign;
}

}  // namespace bench_mps::harness
