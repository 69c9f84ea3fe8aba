// `exec` workload: see exec_workload.hpp for what it measures and how it fails.
#include "harness/workers/exec_workload.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "harness/common/format.hpp"
#include "harness/common/proc_scan.hpp"
#include "harness/common/stats.hpp"
#include "harness/workers/worker_protocol.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

bool is_exec_status(const std::string& word) {
  return word == "exec_not_found" || word == "exec_failed" || word == "exec_timeout" || word == "exec_left_children";
}

void validate_exec_params(const ExecParams& p) {
  if (trim(p.command).empty()) throw std::invalid_argument("--command: the exec workload needs a command to run");
  if (p.metric.empty()) return;
  std::regex re;
  try {
    re = std::regex(p.metric, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("--exec-metric: '" + p.metric + "' is not a valid regular expression (" + e.what() + ")");
  }
  if (re.mark_count() != 1)
    throw std::invalid_argument("--exec-metric: '" + p.metric + "' must have exactly one capture group, it has " +
                                std::to_string(re.mark_count()));
}

namespace {

/// One of the command's output streams, kept up to a cap in a file; complete lines go to `on_line`.
class CappedLog {
 public:
  CappedLog(const std::string& path, std::uint64_t cap) : cap_(cap) {
    if (!path.empty()) {
      file_.open(path, std::ios::binary | std::ios::trunc);
      if (!file_) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    }
  }

  template <typename OnLine>
  void add(const char* data, std::size_t n, OnLine&& on_line) {
    total_ += n;
    if (file_.is_open() && kept_ < cap_) {
      const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(n, cap_ - kept_));
      file_.write(data, static_cast<std::streamsize>(keep));
      kept_ += keep;
      if (kept_ == cap_) file_ << "\n[bench_mps: output cut here, " << cap_ << " bytes kept]\n";
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (data[i] == '\n') {
        on_line(partial_);
        partial_.clear();
      } else if (partial_.size() < 65536) {
        partial_ += data[i];
      }
    }
  }

  template <typename OnLine>
  void finish(OnLine&& on_line) {
    if (!partial_.empty()) on_line(partial_);
    partial_.clear();
    if (file_.is_open()) file_.flush();
  }

  std::uint64_t total() const { return total_; }

 private:
  std::ofstream file_;
  std::uint64_t cap_ = 0, kept_ = 0, total_ = 0;
  std::string partial_;
};

/// Reaps every exited child (the worker is a subreaper: orphans of the command come to it).
void reap_orphans() {
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

class ExecWorkload final : public kernels::Workload {
 public:
  ExecWorkload(ExecParams params, int worker_index, std::function<void(long)> on_spawn)
      : p_(std::move(params)), index_(worker_index), on_spawn_(std::move(on_spawn)) {}

  void setup() override {
    validate_exec_params(p_);
    if (!p_.metric.empty()) metric_ = std::regex(p_.metric, std::regex::ECMAScript);
    if (!p_.log_dir.empty()) {
      std::error_code ec;
      fs::create_directories(p_.log_dir, ec);
      if (ec) throw std::runtime_error("cannot create " + p_.log_dir + ": " + ec.message());
    }
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);  // the command's orphans stay ours to find and reap
  }

  void run_task() override {
    if (ran_) throw std::logic_error("exec: the command runs once per worker");
    ran_ = true;
    const std::string base = p_.log_dir.empty() ? "" : (fs::path(p_.log_dir) / ("w" + std::to_string(index_))).string();
    CappedLog out_log(base.empty() ? "" : base + ".stdout", p_.log_cap_bytes);
    CappedLog err_log(base.empty() ? "" : base + ".stderr", p_.log_cap_bytes);

    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("exec: pipe: ") + std::strerror(errno));
    const std::string index = std::to_string(index_);
    start_ns_ = monotonic_ns();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("exec: fork: ") + std::strerror(errno));
    if (pid == 0) {  // the child: only async-signal-safe calls from here to exec
      ::setpgid(0, 0);
      const int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, 0);
      ::dup2(out_pipe[1], 1);
      ::dup2(err_pipe[1], 2);
      ::setenv("BENCH_MPS_WORKER_INDEX", index.c_str(), 1);
      ::execl("/bin/sh", "sh", "-c", p_.command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also from here: whichever runs first makes the group
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (on_spawn_) on_spawn_(pid);

    auto on_out = [this](const std::string& line) { match_metric(line); };
    auto on_err = [this](const std::string& line) {
      if (!trim(line).empty()) last_err_ = one_line(line);
    };
    // A pidfd turns the command's exit into a poll event, so its end is timed to the microsecond
    // rather than to the poll interval (kernels before 5.3 have none: then 2 ms polls).
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    pollfd fds[3] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {pidfd, POLLIN, 0}};
    const std::int64_t deadline = p_.timeout_s > 0 ? start_ns_ + static_cast<std::int64_t>(p_.timeout_s * 1e9) : 0;
    int status = 0;
    bool exited = false, timed_out = false;
    std::int64_t exited_ns = 0;
    char buf[65536];
    for (;;) {
      const bool open_out = fds[0].fd >= 0, open_err = fds[1].fd >= 0;
      if (!open_out && !open_err && exited) break;
      if (exited && monotonic_ns() - exited_ns > 500'000'000) break;  // output held open by a leftover process
      ::poll(fds, 3, pidfd >= 0 ? 50 : 2);
      for (int k = 0; k < 2; ++k) {
        if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = ::read(fds[k].fd, buf, sizeof buf);
        if (n > 0) {
          if (k == 0) out_log.add(buf, static_cast<std::size_t>(n), on_out);
          else err_log.add(buf, static_cast<std::size_t>(n), on_err);
        } else if (n == 0 || errno != EINTR) {
          ::close(fds[k].fd);
          fds[k].fd = -1;
        }
      }
      if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        exited_ns = end_ns_ = monotonic_ns();
        fds[2].fd = -1;  // stays readable from now on: stop polling it
      }
      if (!exited && deadline && monotonic_ns() > deadline) {
        timed_out = true;
        ::kill(-pid, SIGKILL);
      }
    }
    for (int k = 0; k < 2; ++k)
      if (fds[k].fd >= 0) ::close(fds[k].fd);
    if (pidfd >= 0) ::close(pidfd);
    out_log.finish(on_out);
    err_log.finish(on_err);
    out_bytes_ = out_log.total();
    err_bytes_ = err_log.total();
    reap_orphans();

    const std::string tail = last_err_.empty() ? "" : ": " + last_err_;
    if (timed_out) {
      ::kill(-pid, SIGKILL);
      reap_orphans();
      throw std::runtime_error("exec_timeout: still running after " + fmt_num(p_.timeout_s) +
                               " s; its process group was killed" + tail);
    }
    // Processes of the command's group still alive after it exited: wait a moment (children that
    // exit with their parent), then kill and report them.
    std::vector<ProcInfo> left;
    for (int i = 0; i < 25; ++i) {
      left = live_processes_in_group(pid);
      if (left.empty()) break;
      ::usleep(20'000);
      reap_orphans();
    }
    if (!left.empty()) {
      ::kill(-pid, SIGKILL);
      ::usleep(20'000);
      reap_orphans();
    }
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (WIFSIGNALED(status))
      throw std::runtime_error("exec_failed: killed by signal " + std::string(strsignal(WTERMSIG(status))) + tail);
    if (exit_code_ == 127 || exit_code_ == 126)
      throw std::runtime_error("exec_not_found: the shell could not run it (exit " + std::to_string(exit_code_) + ")" + tail);
    if (exit_code_ != 0) throw std::runtime_error("exec_failed: exited with code " + std::to_string(exit_code_) + tail);
    if (!left.empty()) {
      std::string names;
      for (const ProcInfo& l : left) names += (names.empty() ? "" : ", ") + std::to_string(l.pid) + " (" + l.comm + ")";
      throw std::runtime_error("exec_left_children: exited 0 but left " + std::to_string(left.size()) +
                               " process(es) of its group running (" + names + "); they were killed");
    }
  }

  std::size_t device_bytes() const override { return 0; }

  std::pair<std::int64_t, std::int64_t> last_task_span() const override { return {start_ns_, end_ns_}; }

  kernels::WorkloadFacts facts() const override {
    kernels::WorkloadFacts f{{"exit_code", exit_code_},
                             {"completion_s", static_cast<double>(end_ns_ - start_ns_) * 1e-9},
                             {"stdout_bytes", static_cast<double>(out_bytes_)},
                             {"stderr_bytes", static_cast<double>(err_bytes_)}};
    if (!p_.metric.empty()) {
      f.emplace_back("steps", static_cast<double>(steps_ms_.size()));
      if (!steps_ms_.empty()) {
        f.emplace_back("step_mean_ms", mean(steps_ms_));
        f.emplace_back("step_p50_ms", quantile(steps_ms_, 0.5));
        f.emplace_back("step_p99_ms", quantile(steps_ms_, 0.99));
        // Before the first reported step began: imports, context creation, data set-up.
        f.emplace_back("startup_s", static_cast<double>(first_step_seen_ns_ - start_ns_) * 1e-9 - steps_ms_.front() * 1e-3);
      }
    }
    return f;
  }

 private:
  void match_metric(const std::string& line) {
    if (p_.metric.empty()) return;
    std::smatch m;
    if (!std::regex_search(line, m, metric_)) return;
    try {
      std::size_t used = 0;
      const double v = std::stod(m[1].str(), &used);
      if (used != m[1].str().size() || !(v >= 0) || v > 1e12) return;
      if (steps_ms_.empty()) first_step_seen_ns_ = monotonic_ns();
      steps_ms_.push_back(v);
    } catch (const std::exception&) {
      // not a number: the line does not count as a step
    }
  }

  ExecParams p_;
  int index_;
  std::function<void(long)> on_spawn_;
  std::regex metric_;
  bool ran_ = false;
  std::int64_t start_ns_ = 0, end_ns_ = 0, first_step_seen_ns_ = 0;
  int exit_code_ = -1;
  std::uint64_t out_bytes_ = 0, err_bytes_ = 0;
  std::vector<double> steps_ms_;
  std::string last_err_;
};

}  // namespace

std::unique_ptr<kernels::Workload> make_exec_workload(const ExecParams& params, int worker_index,
                                                      std::function<void(long)> on_spawn) {
  return std::make_unique<ExecWorkload>(params, worker_index, std::move(on_spawn));
}

}  // namespace bench_mps::harness
