// `exec` workload: see exec_workload.hpp for what it measures and how it fails.
#include "harness/workers/exec_workload.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "harness/common/format.hpp"
#include "harness/common/exec_token.hpp"
#include "harness/common/proc_scan.hpp"
#include "harness/common/stats.hpp"
#include "harness/profiler/start_gate.hpp"
#include "harness/workers/exec_metric.hpp"
#include "harness/workers/exec_output.hpp"
#include "harness/workers/worker_protocol.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

void validate_exec_params(const ExecParams& p) {
  if (trim(p.command).empty()) throw std::invalid_argument("--command: the exec workload needs a command to run");
  if (!p.metric.empty()) validate_metric_pattern(p.metric);
  if (p.metric_is_latency && p.metric.empty())
    throw std::invalid_argument("--exec-metric-kind latency: says what --exec-metric reads; give --exec-metric too");
  if (!p.check.empty()) validate_metric_pattern(p.check, "--exec-check");
}

namespace {

/// Reaps every exited child (the worker is a subreaper: orphans of the command come to it).
void reap_orphans() {
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

/// What /bin/sh says when it cannot run a command (dash, bash): "sh: 1: foo: not found".
bool is_shell_complaint(const std::string& line) {
  if (line.rfind("sh: ", 0) != 0) return false;
  for (const char* what :
       {"not found", "Permission denied", "No such file", "cannot execute", "Is a directory", "Exec format error"})
    if (line.find(what) != std::string::npos) return true;
  return false;
}

/// The command's environment, built before fork (the child may only make async-signal-safe calls):
/// ours, with BENCH_MPS_WORKER_INDEX set to this copy's index. Neither copied nor moved: envp points into it.
class CommandEnvironment {
 public:
  explicit CommandEnvironment(int worker_index)
      : index_entry_("BENCH_MPS_WORKER_INDEX=" + std::to_string(worker_index)) {
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "BENCH_MPS_WORKER_INDEX=", 23) != 0) envp_.push_back(*e);
    envp_.push_back(const_cast<char*>(index_entry_.c_str()));
    envp_.push_back(nullptr);
  }
  CommandEnvironment(const CommandEnvironment&) = delete;
  CommandEnvironment& operator=(const CommandEnvironment&) = delete;
  char* const* envp() const { return envp_.data(); }

 private:
  std::string index_entry_;
  std::vector<char*> envp_;
};

class ExecWorkload final : public kernels::Workload {
 public:
  ExecWorkload(ExecParams params, int worker_index, std::function<void(long)> on_spawn)
      : p_(std::move(params)), index_(worker_index), on_spawn_(std::move(on_spawn)) {}

  void setup() override {
    validate_exec_params(p_);
    if (!p_.metric.empty()) metric_ = std::make_unique<MetricReader>(p_.metric);
    if (!p_.check.empty()) check_ = std::make_unique<MetricReader>(p_.check);
    if (!p_.log_dir.empty()) {
      std::error_code ec;
      fs::create_directories(p_.log_dir, ec);
      if (ec) throw std::runtime_error("cannot create " + p_.log_dir + ": " + ec.message());
    }
    // The command's orphans stay ours to find and reap; its token finds those that left (exec_token.hpp).
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
      throw std::runtime_error(std::string("exec: PR_SET_CHILD_SUBREAPER: ") + std::strerror(errno));
    if (const char* token = std::getenv(kExecTokenVar)) {
      token_ = token;  // from bench_mps
    } else {
      token_ = new_exec_token();  // run on its own: a token of this worker's
      if (::setenv(kExecTokenVar, token_.c_str(), 1) != 0)
        throw std::runtime_error(std::string("exec: setenv: ") + std::strerror(errno));
    }
  }

  void run_task() override {
    if (ran_) throw std::logic_error("exec: the command runs once per worker");
    ran_ = true;
    const std::string base = p_.log_dir.empty() ? "" : (fs::path(p_.log_dir) / ("w" + std::to_string(index_))).string();
    CappedLog out_log(base.empty() ? "" : base + ".stdout", p_.log_cap_bytes,
                      [this](const LongLine& l) { keep_for_matching(l); });
    CappedLog err_log(base.empty() ? "" : base + ".stderr", p_.log_cap_bytes, [this](const LongLine& l) {
      if (l.head().find_first_not_of(" \t\r") == std::string::npos && !l.cut()) return;
      last_err_ = one_line(l.text(kErrorLineKeepBytes));
      if (is_shell_complaint(last_err_)) shell_complaint_ = last_err_;
    });
    const Started command = start_command();
    const Ended ended = wait_for_exit(command, out_log, err_log);
    pass_gate_at_exit();
    out_log.finish();
    err_log.finish();
    match_kept_lines();  // after the command's end: matching takes none of its time
    out_bytes_ = out_log.total();
    err_bytes_ = err_log.total();
    // Every process the command started, in its group or not, still alive: given a moment to exit
    // with their parent (none after a timeout), then ended.
    const std::vector<ProcInfo> left = end_leftovers(command.pid, ended.timed_out ? 0.0 : 0.5);
    read_usage();
    classify_exit(command.exec_errno, ended, left);
  }

  std::size_t device_bytes() const override { return 0; }

  /// The task is the command's run less its time held at the start gate (harness/profiler/start_gate.hpp):
  /// what copies started together without a gate would take.
  std::pair<std::int64_t, std::int64_t> last_task_span() const override {
    return {std::min(end_ns_, start_ns_ + held_ns_), end_ns_};
  }

  kernels::WorkloadFacts facts() const override {
    // A failed copy's facts are said too: its exit code where it exited (not killed by a signal or the timeout), its
    // completion where it ended.
    kernels::WorkloadFacts f;
    if (exit_code_ >= 0) f.emplace_back("exit_code", exit_code_);
    if (end_ns_ > 0) f.emplace_back("completion_s", static_cast<double>(end_ns_ - start_ns_ - held_ns_) * 1e-9);
    f.emplace_back("stdout_bytes", static_cast<double>(out_bytes_));
    f.emplace_back("stderr_bytes", static_cast<double>(err_bytes_));
    if (usage_read_) {  // the CPU the command's processes used, each reaped by it or by this worker
      f.emplace_back("cpu_user_s", seconds(usage_.ru_utime));
      f.emplace_back("cpu_system_s", seconds(usage_.ru_stime));
      f.emplace_back("context_switches_voluntary", static_cast<double>(usage_.ru_nvcsw));
      f.emplace_back("context_switches_involuntary", static_cast<double>(usage_.ru_nivcsw));
    }
    if (gated_) {  // its passage: whether it reached the gate, how long it was held (left out of its run)
      f.emplace_back("gate_arrived", arrived_ ? 1.0 : 0.0);
      f.emplace_back("gate_held_s", static_cast<double>(held_ns_) * 1e-9);
    }
    if (!p_.check.empty()) {  // no line matched: no value (advise says the check could not be read)
      f.emplace_back("check_matches", static_cast<double>(check_matches_));
      if (check_matches_ > 0) f.emplace_back("check_value", check_value_);
      if (check_->rejected()) f.emplace_back("check_rejected", static_cast<double>(check_->rejected()));
    }
    if (!p_.metric.empty()) {
      // Held at the start gate: the lines from its release on, the steps its N copies share (alone: from its
      // arrival); those printed before (a warm-up before the gate point) are counted apart.
      const std::size_t from = lines_before_release();
      if (gated_ && arrived_) f.emplace_back("steps_before_release", static_cast<double>(from));
      const std::vector<double> steps_ms(steps_ms_.begin() + static_cast<std::ptrdiff_t>(from), steps_ms_.end());
      std::uint64_t batched = 0;  // lines read with the one before, among those kept
      for (std::size_t k = from + 1; k < steps_ms_.size(); ++k) batched += step_read_[k] == step_read_[k - 1];
      const std::int64_t first_step_seen_ns = steps_ms.empty() ? 0 : step_seen_ns_[from];
      const std::int64_t last_step_seen_ns = steps_ms.empty() ? 0 : step_seen_ns_.back();
      f.emplace_back("steps", static_cast<double>(steps_ms.size()));
      if (metric_->lines_cut()) f.emplace_back("metric_lines_cut", static_cast<double>(metric_->lines_cut()));
      if (metric_->rejected()) f.emplace_back("metric_rejected", static_cast<double>(metric_->rejected()));
      if (metric_->stopped()) f.emplace_back("metric_stopped", 1.0);
      if (!steps_ms.empty()) {
        f.emplace_back("step_mean_ms", mean(steps_ms));
        f.emplace_back("step_p50_ms", quantile(steps_ms, 0.5));
        f.emplace_back("step_p99_ms", quantile(steps_ms, 0.99));
        // Before the first reported step began: imports, context creation, data set-up.
        // (Time held at the start gate before it is not start-up.)
        const std::int64_t held_before = arrived_ && arrive_ns_ < first_step_seen_ns ? held_ns_ : 0;
        f.emplace_back("startup_s", static_cast<double>(first_step_seen_ns - start_ns_ - held_before) * 1e-9 -
                                        steps_ms.front() * 1e-3);
        // From the first matched line read to the last: steps - 1 of them came in this time (a served rate).
        if (steps_ms.size() >= 2) {
          f.emplace_back("steps_span_s", static_cast<double>(last_step_seen_ns - first_step_seen_ns) * 1e-9);
          f.emplace_back("steps_batched", static_cast<double>(batched));
          // The first and last line read, on CLOCK_MONOTONIC in whole ns (runs.csv writes whole numbers whole):
          // where a run's copies printed together (measured_units.hpp's metric_window).
          f.emplace_back("steps_first_mono_ns", static_cast<double>(first_step_seen_ns));
          f.emplace_back("steps_last_mono_ns", static_cast<double>(last_step_seen_ns));
        }
      }
    }
    return f;
  }

 private:
  static constexpr std::size_t kErrorLineKeepBytes = 1024;  ///< of the last stderr line, in a message

  /// The command once started: its pid (and process group), the read ends of its stdout and stderr,
  /// and the errno of a failed exec of /bin/sh (0 if it ran).
  struct Started {
    pid_t pid = 0;
    int out_fd = -1, err_fd = -1;
    int exec_errno = 0;
  };
  /// How it ended: its wait status, and whether the timeout killed its process group.
  struct Ended {
    int status = 0;
    bool timed_out = false;
  };

  Started start_command() {
    int out_pipe[2], err_pipe[2], exec_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 || ::pipe2(exec_pipe, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("exec: pipe: ") + std::strerror(errno));
    const CommandEnvironment env(index_);
    start_ns_ = monotonic_ns();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("exec: fork: ") + std::strerror(errno));
    if (pid == 0) exec_in_child(out_pipe[1], err_pipe[1], exec_pipe[1], env);
    ::setpgid(pid, pid);  // also from here: whichever runs first makes the group
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    ::close(exec_pipe[1]);
    const int exec_errno = read_exec_errno(exec_pipe[0]);
    if (on_spawn_) on_spawn_(pid);
    return {pid, out_pipe[0], err_pipe[0], exec_errno};
  }

  /// The forked child: only async-signal-safe calls from here to exec.
  [[noreturn]] void exec_in_child(int out_fd, int err_fd, int exec_fd, const CommandEnvironment& env) const {
    ::setpgid(0, 0);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    // Only 0-2 reach the command: the worker's logs (their cap) and its pipes to the harness close on exec.
    if (::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) != 0) {  // kernels before 5.11: one by one
      const long open_max = ::sysconf(_SC_OPEN_MAX);
      const int last = open_max > 0 && open_max < 65536 ? static_cast<int>(open_max) : 65536;
      for (int fd = 3; fd < last; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    // Signals the harness ignores (SIGPIPE, SIGXFSZ) stay ignored across exec, and the mask stays: the
    // user's command starts with every disposition at its default, as from a shell.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; ++s)
      if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execle("/bin/sh", "sh", "-c", p_.command.c_str(), static_cast<char*>(nullptr), env.envp());
    const int error = errno;  // exec failed: say why on the CLOEXEC pipe (a successful exec closes it)
    if (::write(exec_fd, &error, sizeof error) < 0) ::_exit(127);
    ::_exit(127);
  }

  /// Copies the command's output into the logs until it has exited and closed both (or 0.5 s after its
  /// exit, when a leftover holds them open); kills its process group at the timeout. Closes the pipes.
  Ended wait_for_exit(const Started& command, CappedLog& out_log, CappedLog& err_log) {
    // A pidfd turns the command's exit into a poll event, so its end is timed to the microsecond
    // rather than to the poll interval (kernels before 5.3 have none: then 2 ms polls).
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, command.pid, 0));
    pollfd fds[3] = {{command.out_fd, POLLIN, 0}, {command.err_fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    const std::int64_t deadline = p_.timeout_s > 0 ? start_ns_ + static_cast<std::int64_t>(p_.timeout_s * 1e9) : 0;
    Ended ended;
    bool exited = false;
    std::int64_t exited_ns = 0;
    char buf[65536];
    for (;;) {
      const bool open_out = fds[0].fd >= 0, open_err = fds[1].fd >= 0;
      if (!open_out && !open_err && exited) break;
      if (exited && monotonic_ns() - exited_ns > 500'000'000) break;  // output held open by a leftover process
      if (::poll(fds, 3, pidfd >= 0 ? 50 : 2) < 0 && errno != EINTR)
        throw std::runtime_error(std::string("exec: poll: ") + std::strerror(errno));
      for (int k = 0; k < 2; ++k) {
        if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = ::read(fds[k].fd, buf, sizeof buf);
        if (n > 0) {
          if (k == 0) ++stdout_reads_;
          (k == 0 ? out_log : err_log).add(buf, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          ::close(fds[k].fd);
          fds[k].fd = -1;
        }
      }
      if (!exited && ::waitpid(command.pid, &ended.status, WNOHANG) == command.pid) {
        exited = true;
        exited_ns = end_ns_ = monotonic_ns();
        fds[2].fd = -1;  // stays readable from now on: stop polling it
      }
      if (!exited && deadline && monotonic_ns() > deadline) {
        ended.timed_out = true;
        ::kill(-command.pid, SIGKILL);
      }
    }
    for (int k = 0; k < 2; ++k)
      if (fds[k].fd >= 0) ::close(fds[k].fd);
    if (pidfd >= 0) ::close(pidfd);
    return ended;
  }

  /// What every process the command started used, once each has been reaped: the worker's only children are the
  /// command and the orphans it inherits as their subreaper, and a process's own reaped children count in its usage.
  void read_usage() { usage_read_ = ::getrusage(RUSAGE_CHILDREN, &usage_) == 0; }

  static double seconds(const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  }

  /// The matched lines read before the start gate released the copy (0 where it was not held at one).
  std::size_t lines_before_release() const {
    if (!gated_ || !arrived_) return 0;
    const std::int64_t release = arrive_ns_ + held_ns_;
    return static_cast<std::size_t>(std::lower_bound(step_seen_ns_.begin(), step_seen_ns_.end(), release) -
                                    step_seen_ns_.begin());
  }

  /// With a start gate: the copy marked gone if it never arrived (the others go on), its time held read.
  void pass_gate_at_exit() {
    const char* file = std::getenv(profiler::kGateFileVar);
    if (!file || !*file) return;
    gated_ = true;
    const profiler::GateSlotReading r = profiler::gate_leave(file, index_);
    arrived_ = r.state == profiler::GateSlotReading::State::arrived;
    arrive_ns_ = r.arrive_ns;
    held_ns_ = arrived_ && r.release_ns > r.arrive_ns ? r.release_ns - r.arrive_ns : 0;
  }

  /// Throws the StatusError that says how the command failed, if it did; records its exit code.
  void classify_exit(int exec_errno, const Ended& ended, const std::vector<ProcInfo>& left) {
    const std::string tail = last_err_.empty() ? "" : ": " + last_err_;
    const std::string also_left = left.empty() ? "" : "; it also left " + left_text(left) + ", ended";
    if (exec_errno)
      throw StatusError(RunStatus::exec_not_found, "cannot run /bin/sh: " + std::string(std::strerror(exec_errno)));
    if (ended.timed_out)
      throw StatusError(RunStatus::exec_timeout, "still running after " + fmt_num(p_.timeout_s) +
                                                     " s; its process group was killed" + also_left + tail);
    const int status = ended.status;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (WIFSIGNALED(status))
      throw StatusError(RunStatus::exec_failed,
                        "killed by signal " + std::string(strsignal(WTERMSIG(status))) + also_left + tail);
    // 127 and 126 are also what a program may exit with itself: "not found" only when the shell said so.
    if ((exit_code_ == 127 || exit_code_ == 126) && !shell_complaint_.empty())
      throw StatusError(RunStatus::exec_not_found, "the shell could not run it (exit " + std::to_string(exit_code_) +
                                                       "): " + shell_complaint_ + also_left);
    if (exit_code_ != 0)
      throw StatusError(RunStatus::exec_failed, "exited with code " + std::to_string(exit_code_) + also_left + tail);
    if (!left.empty())
      throw StatusError(RunStatus::exec_left_children, "exited 0 but left " + left_text(left) + "; they were ended");
  }

  /// A line of stdout, with when it was read and which read brought it, kept to be matched once the command has
  /// ended: matching as it comes would take CPU from the command (its worker shares its core) and, where the
  /// reader falls behind, stall it on a full pipe. Past kKeptLinesMaxBytes the lines kept are matched, and the
  /// rest as they come (a flood of output).
  struct KeptLine {
    MetricText text;
    std::int64_t seen_ns;
    std::uint64_t read;
  };
  static constexpr std::size_t kKeptLinesMaxBytes = std::size_t{64} << 20;

  void keep_for_matching(const LongLine& line) {
    if (!metric_ && !check_) return;
    KeptLine kept{MetricText::of(line), monotonic_ns(), stdout_reads_};
    if (!matching_as_read_) {
      kept_bytes_ += sizeof(KeptLine) + kept.text.head.size() + kept.text.end.size();
      if (kept_bytes_ <= kKeptLinesMaxBytes) {
        kept_lines_.push_back(std::move(kept));
        return;
      }
      match_kept_lines();
      matching_as_read_ = true;
    }
    match_metric(kept);
  }

  void match_kept_lines() {
    for (const KeptLine& k : kept_lines_) match_metric(k);
    kept_lines_.clear();
    kept_lines_.shrink_to_fit();
  }

  void match_metric(const KeptLine& line) {
    if (check_)  // the last value a line gives is the run's: a final loss or accuracy
      if (const std::optional<double> c = check_->read(line.text)) {
        check_value_ = *c;
        ++check_matches_;
      }
    if (!metric_) return;
    const std::optional<double> v = metric_->read(line.text);
    if (!v) return;
    step_seen_ns_.push_back(line.seen_ns);
    step_read_.push_back(line.read);
    steps_ms_.push_back(*v);
  }

  /// errno of a failed exec of /bin/sh, 0 if it ran (the pipe closed on exec).
  static int read_exec_errno(int fd) {
    int error = 0;
    ssize_t n;
    do n = ::read(fd, &error, sizeof error);
    while (n < 0 && errno == EINTR);
    ::close(fd);
    return n == static_cast<ssize_t>(sizeof error) ? error : 0;
  }

  /// The command's leftovers: the worker's descendants (orphans come to it, a subreaper), the
  /// processes carrying its token (those whose worker ... is this one, or that left its tree), and its group.
  std::vector<ProcInfo> leftovers(pid_t group) const {
    std::vector<ProcInfo> found = live_descendants(::getpid());
    auto add = [&found](const std::vector<ProcInfo>& more) {
      for (const ProcInfo& p : more)
        if (std::none_of(found.begin(), found.end(), [&p](const ProcInfo& f) { return f.pid == p.pid; }))
          found.push_back(p);
    };
    add(processes_with_token(token_, ::getpid()));
    add(live_processes_in_group(group));
    return found;
  }

  /// Waits up to `grace_s` for the leftovers to exit by themselves, then ends them; those it ended.
  std::vector<ProcInfo> end_leftovers(pid_t group, double grace_s) {
    const std::int64_t until = monotonic_ns() + static_cast<std::int64_t>(grace_s * 1e9);
    for (;;) {
      reap_orphans();
      if (leftovers(group).empty()) return {};
      if (monotonic_ns() >= until) break;
      ::usleep(20'000);
    }
    // What is left now is what the command left behind: the group's SIGKILL may end (and reaping may
    // remove) some of it before end_processes looks, and those count too.
    std::vector<ProcInfo> ended = leftovers(group);
    ::kill(-group, SIGKILL);
    for (const ProcInfo& p : end_processes([&] {
           reap_orphans();
           return leftovers(group);
         }))
      if (std::none_of(ended.begin(), ended.end(),
                       [&](const ProcInfo& q) { return q.pid == p.pid && q.start_ticks == p.start_ticks; }))
        ended.push_back(p);
    reap_orphans();
    return ended;
  }

  static std::string left_text(const std::vector<ProcInfo>& left) {
    return std::to_string(left.size()) + " process(es) running (" + describe_processes(left) + ")";
  }

  ExecParams p_;
  int index_;
  std::function<void(long)> on_spawn_;
  std::unique_ptr<MetricReader> metric_;
  std::unique_ptr<MetricReader> check_;  ///< --exec-check: a value of the program's result
  double check_value_ = 0;
  long check_matches_ = 0;
  std::string token_;
  bool ran_ = false;
  std::int64_t start_ns_ = 0, end_ns_ = 0;
  /// Reads of the command's stdout so far (step_read_ keeps the one that brought each matched line): a
  /// block-buffered stdout delivers its lines in batches, so their arrival times say nothing of when they were
  /// printed.
  std::uint64_t stdout_reads_ = 0;
  bool gated_ = false, arrived_ = false;  ///< a start gate was set; the copy reached it
  std::int64_t arrive_ns_ = 0, held_ns_ = 0;
  int exit_code_ = -1;
  rusage usage_{};
  bool usage_read_ = false;
  std::uint64_t out_bytes_ = 0, err_bytes_ = 0;
  std::vector<double> steps_ms_;            ///< each matched line's number
  std::vector<std::int64_t> step_seen_ns_;  ///< when each came (CLOCK_MONOTONIC)
  std::vector<std::uint64_t> step_read_;    ///< the read of stdout that brought it
  std::string last_err_, shell_complaint_;
  std::vector<KeptLine> kept_lines_;  ///< stdout's lines read, not matched yet
  std::size_t kept_bytes_ = 0;
  bool matching_as_read_ = false;  ///< past kKeptLinesMaxBytes
};

}  // namespace

std::unique_ptr<kernels::Workload> make_exec_workload(const ExecParams& params, int worker_index,
                                                      std::function<void(long)> on_spawn) {
  return std::make_unique<ExecWorkload>(params, worker_index, std::move(on_spawn));
}

}  // namespace bench_mps::harness
