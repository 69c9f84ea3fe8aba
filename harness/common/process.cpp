#include "harness/common/process.hpp"

#include <sched.h>
#include <sys/prctl.h>
#include <signal.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/proc_scan.hpp"
#include "harness/common/signals.hpp"

namespace bp = boost::process;
namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

bp::environment child_environment(const ChildEnv& changes) {
  bp::environment env = boost::this_process::environment();
  for (const auto& name : changes.unset) env.erase(name);
  for (const auto& [name, value] : changes.set) env[name] = value;
  return env;
}

/// How a wait for a child ended.
enum class WaitEnd { exited, late, stopped };

/// Polls `child` until it exits, `timeout_s` passes or `stopped()` says so; then kills it: with its process group
/// when `group` (after SIGTERM and up to `term_grace_s` to end by itself), else with what it started (a helper it
/// forked, not yet a daemon of its own).
WaitEnd wait_with_timeout(bp::child& child, double timeout_s, const std::function<bool()>& stopped, bool group,
                          double term_grace_s = 0) {
  std::error_code ec;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (child.running(ec)) {
    const WaitEnd end = stopped()                                  ? WaitEnd::stopped
                        : std::chrono::steady_clock::now() > until ? WaitEnd::late
                                                                   : WaitEnd::exited;
    if (end != WaitEnd::exited) {
      if (group && term_grace_s > 0) {
        ::kill(-static_cast<pid_t>(child.id()), SIGTERM);
        const auto grace = std::chrono::steady_clock::now() + std::chrono::duration<double>(term_grace_s);
        while (child.running(ec) && std::chrono::steady_clock::now() < grace)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (group)
        ::kill(-static_cast<pid_t>(child.id()), SIGKILL);
      else
        for (const ProcInfo& p : live_descendants(static_cast<pid_t>(child.id()))) ::kill(p.pid, SIGKILL);
      child.terminate(ec);
      return end;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WaitEnd::exited;
}

/// Before exec: the child leads a process group of its own, and gets SIGTERM when we die, however we die (a
/// SIGKILL included): a child bench_mps then stops its workers and quits its MPS daemon as on Ctrl-C. A parent
/// already gone by then (the race before prctl) is told the same way.
pid_t g_forking_pid = 0;  // set before each fork: the child compares its parent with it
const auto kOwnGroup = bp::extend::on_exec_setup = [](auto&) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != g_forking_pid) ::raise(SIGTERM);
};

}  // namespace

std::string find_on_path(const std::string& name) { return bp::search_path(name).string(); }

CommandResult run_command(const std::string& exe, const std::vector<std::string>& args,
                          const std::vector<std::pair<std::string, std::string>>& env_set, const std::string& input,
                          double timeout_s, const fs::path& scratch_dir, bool stop_on_signal) {
  const int signals_before = stop_signals_received();
  static int counter = 0;
  const std::string stem = "cmd-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const fs::path in_file = scratch_dir / (stem + ".in");
  const fs::path out_file = scratch_dir / (stem + ".out");
  std::ofstream(in_file) << input;
  std::error_code ec;
  bp::child child(exe, bp::args = args, bp::std_in<in_file.string(), (bp::std_out & bp::std_err)> out_file.string(),
                  child_environment({{}, env_set}), ec);
  if (ec) throw CommandError("could not run " + exe + ": " + ec.message());
  const WaitEnd end = wait_with_timeout(
      child, timeout_s, [&] { return stop_on_signal && stop_signals_received() != signals_before; }, false);
  if (end != WaitEnd::exited) {
    fs::remove(in_file, ec);
    fs::remove(out_file, ec);
    const std::string said = " (input: " + one_line(input) + ")";
    if (end == WaitEnd::stopped) throw CommandError(exe + " was stopped by a signal" + said);
    throw CommandTimeout(exe + " did not answer within " + fmt_num(timeout_s) + " s" + said);
  }
  child.wait(ec);
  CommandResult result{child.exit_code(), trim(read_whole_file(out_file))};
  fs::remove(in_file, ec);
  fs::remove(out_file, ec);
  return result;
}

int run_logged(const std::string& exe, const std::vector<std::string>& args, const ChildEnv& env, const fs::path& log,
               double timeout_s, const std::atomic<int>* stop, double term_grace_s) {
  std::error_code ec;
  bp::child child;
  g_forking_pid = ::getpid();
  if (log.empty())
    child = bp::child(exe, bp::args = args, bp::std_in<bp::null, bp::std_out> bp::null, bp::std_err > bp::null,
                      child_environment(env), ec, kOwnGroup);
  else
    child = bp::child(exe, bp::args = args, bp::std_in<bp::null, (bp::std_out & bp::std_err)> log.string(),
                      child_environment(env), ec, kOwnGroup);
  if (ec) return -1;
  ::setpgid(child.id(), child.id());  // whichever runs first: the group exists before we may kill it
  if (wait_with_timeout(
          child, timeout_s, [stop] { return stop && stop->load(); }, true, term_grace_s) != WaitEnd::exited)
    return -1;
  child.wait(ec);
  return ec ? -1 : child.exit_code();
}

struct PipedChild::Impl {
  bp::opstream in;
  bp::ipstream out, err;
  bp::child child;
};

PipedChild::PipedChild(const std::string& exe, const std::vector<std::string>& args, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  const Options o = options;
  auto before_exec = bp::extend::on_exec_setup = [o](auto&) {
    if (o.own_process_group) ::setpgid(0, 0);
    if (o.die_with_parent) ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (!o.cpus.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int cpu : o.cpus) CPU_SET(cpu, &set);
      ::sched_setaffinity(0, sizeof set, &set);  // best effort: unpinned if refused
    }
  };
  std::error_code ec;
  if (options.stdin_pipe)
    impl_->child = bp::child(exe, bp::args = args, bp::std_in<impl_->in, bp::std_out> impl_->out,
                             bp::std_err > impl_->err, child_environment(options.env), ec, before_exec);
  else
    impl_->child = bp::child(exe, bp::args = args, bp::std_in<bp::null, bp::std_out> impl_->out,
                             bp::std_err > impl_->err, child_environment(options.env), ec, before_exec);
  if (ec) throw CommandError("could not start " + exe + ": " + ec.message());
  if (options.own_process_group) ::setpgid(impl_->child.id(), impl_->child.id());  // whichever runs first
}

PipedChild::~PipedChild() = default;  // bp::child kills a child still running that was not forgotten

pid_t PipedChild::pid() const { return static_cast<pid_t>(impl_->child.id()); }
std::istream& PipedChild::out() { return impl_->out; }
std::istream& PipedChild::err() { return impl_->err; }

void PipedChild::send_line(const std::string& line) {
  impl_->in << line << std::endl;
  impl_->in.clear();  // a child that is gone (EPIPE: SIGPIPE is ignored) fails the stream, not us
}

void PipedChild::close_input() {
  if (impl_->in.pipe().is_open()) impl_->in.pipe().close();
}

void PipedChild::send_last_line(const std::string& line) {
  send_line(line);
  close_input();
}

void PipedChild::forget() { impl_->child.detach(); }

}  // namespace bench_mps::harness
