#include "harness/common/exec_token.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <map>
#include <set>
#include <thread>

#include "harness/common/clock.hpp"

namespace bench_mps::harness {
namespace {

struct TokenOwner {
  pid_t pid = 0;
  unsigned long long start_ticks = 0;
  bool valid = false;
};

TokenOwner owner_of(const std::string& token) {
  TokenOwner o;
  const auto dot = token.find('.');
  if (dot == std::string::npos) return o;
  try {
    o.pid = static_cast<pid_t>(std::stol(token.substr(0, dot)));
    o.start_ticks = std::stoull(token.substr(dot + 1));
    o.valid = o.pid > 0;
  } catch (const std::exception&) {
  }
  return o;
}

/// Whether the bench_mps that handed out the token still runs (a zombie does not: it was killed).
bool owner_alive(const TokenOwner& o) { return process_alive(o.pid) && process_start_ticks(o.pid) == o.start_ticks; }

/// The PID namespace of `pid` (its /proc/<pid>/ns/pid inode); 0 where it cannot be read.
unsigned long long pid_namespace_of(const std::string& pid) {
  struct stat st {};
  return ::stat(("/proc/" + pid + "/ns/pid").c_str(), &st) == 0 ? static_cast<unsigned long long>(st.st_ino) : 0;
}

/// A token's pid is numbered in the PID namespace of the sweep that made it: a process of another namespace (a
/// container, or a test's isolated sweep, sharing this /tmp and /proc) names an owner this process cannot look up,
/// so it is never judged orphaned here.
bool same_pid_namespace(pid_t pid) {
  static const unsigned long long mine = pid_namespace_of("self");
  return mine != 0 && pid_namespace_of(std::to_string(pid)) == mine;
}

/// SIGKILL to `p` if it is still the process that was seen (same start time); false if it is gone.
bool kill_if_same(const ProcInfo& p) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, p.pid, 0));
  if (fd < 0) {
    if (errno == ESRCH) return false;
    // No pidfds (kernel < 5.3): the start time checked just before the kill.
    return process_start_ticks(p.pid) == p.start_ticks && ::kill(p.pid, SIGKILL) == 0;
  }
  // The pidfd holds this very process: checked now, a reused pid cannot be hit.
  const bool same = process_start_ticks(p.pid) == p.start_ticks;
  const bool sent = same && ::syscall(SYS_pidfd_send_signal, fd, SIGKILL, nullptr, 0) == 0;
  ::close(fd);
  return sent;
}

}  // namespace

std::string new_exec_token() {
  static std::atomic<long> serial{0};
  const pid_t self = ::getpid();
  return std::to_string(self) + "." + std::to_string(process_start_ticks(self)) + "." + std::to_string(++serial);
}

std::vector<ProcInfo> processes_with_token(const std::string& token, pid_t except) {
  std::vector<ProcInfo> found;
  for (auto& [proc, value] : live_processes_with_env(kExecTokenVar))
    if (value == token && proc.pid != except && proc.pid != ::getpid()) found.push_back(proc);
  return found;
}

std::vector<ProcInfo> end_processes(const std::function<std::vector<ProcInfo>()>& find, double give_up_s) {
  std::vector<ProcInfo> ended;
  std::set<std::pair<pid_t, unsigned long long>> seen;
  const std::int64_t until = monotonic_ns() + static_cast<std::int64_t>(give_up_s * 1e9);
  for (;;) {
    const std::vector<ProcInfo> left = find();
    if (left.empty() || monotonic_ns() > until) break;
    for (const ProcInfo& p : left) {
      if (seen.insert({p.pid, p.start_ticks}).second) ended.push_back(p);
      kill_if_same(p);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // SIGKILL is delivered asynchronously
  }
  return ended;
}

std::string describe_processes(const std::vector<ProcInfo>& procs, std::size_t at_most) {
  std::string text;
  for (std::size_t i = 0; i < procs.size() && i < at_most; ++i)
    text += (text.empty() ? "" : ", ") + std::to_string(procs[i].pid) + " (" + procs[i].comm + ")";
  if (procs.size() > at_most) text += ", and " + std::to_string(procs.size() - at_most) + " more";
  return text;
}

std::vector<std::string> end_orphaned_exec_processes() {
  std::map<pid_t, std::vector<ProcInfo>> by_owner;
  auto orphaned = [&by_owner] {
    std::vector<ProcInfo> found;
    by_owner.clear();
    for (auto& [proc, token] : live_processes_with_env(kExecTokenVar)) {
      const TokenOwner o = owner_of(token);
      if (!o.valid || proc.pid == ::getpid() || !same_pid_namespace(proc.pid) || owner_alive(o)) continue;
      found.push_back(proc);
      by_owner[o.pid].push_back(proc);
    }
    return found;
  };
  orphaned();
  const std::map<pid_t, std::vector<ProcInfo>> first_seen = by_owner;
  if (first_seen.empty()) return {};
  end_processes(orphaned);
  std::vector<std::string> lines;
  for (const auto& [owner, procs] : first_seen)
    lines.push_back("ended " + std::to_string(procs.size()) + " process(es) left running by the exec commands of " +
                    "bench_mps pid " + std::to_string(owner) +
                    ", which is gone (killed outright?): " + describe_processes(procs));
  return lines;
}

}  // namespace bench_mps::harness
