#include "harness/common/proc_scan.hpp"

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "harness/common/files.hpp"

namespace bench_mps::harness {
namespace {

char process_state(pid_t pid) {
  const std::string stat = read_whole_file("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');  // comm may contain spaces and parentheses
  if (paren == std::string::npos || paren + 2 >= stat.size()) return '?';
  return stat[paren + 2];
}

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

namespace {
/// State, parent and process group from /proc/PID/stat; state '?' if it is gone.
struct StatFields {
  char state = '?';
  long ppid = 0, pgrp = 0;
  unsigned long long start_ticks = 0;  // field 22
  std::string comm;
};
StatFields stat_fields(pid_t pid) {
  StatFields f;
  const std::string stat = read_whole_file("/proc/" + std::to_string(pid) + "/stat");
  const auto open = stat.find('('), close = stat.rfind(')');  // comm may contain spaces and parentheses
  if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size()) return f;
  f.comm = stat.substr(open + 1, close - open - 1);
  std::istringstream rest(stat.substr(close + 2));
  rest >> f.state >> f.ppid >> f.pgrp;
  std::string skip;
  for (int field = 6; field < 22 && rest; ++field) rest >> skip;  // session .. itrealvalue
  rest >> f.start_ticks;
  return f;
}
ProcInfo info_of(pid_t pid, const StatFields& f) {
  ProcInfo p;
  p.pid = pid;
  p.comm = f.comm;
  p.state = f.state;
  p.start_ticks = f.start_ticks;
  return p;
}
/// Calls `each(pid)` for every process in /proc.
template <typename Each>
void for_each_pid(Each&& each) {
  DIR* dir = opendir("/proc");
  if (!dir) return;
  while (const dirent* entry = readdir(dir))
    if (std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) each(static_cast<pid_t>(std::stol(entry->d_name)));
  closedir(dir);
}
bool live_state(char state) { return state != '?' && state != 'Z' && state != 'X'; }
}  // namespace

pid_t parent_pid(pid_t pid) { return static_cast<pid_t>(stat_fields(pid).ppid); }

std::vector<ProcInfo> live_processes_in_group(pid_t pgid) {
  std::vector<ProcInfo> found;
  for_each_pid([&](pid_t pid) {
    const StatFields f = stat_fields(pid);
    if (f.pgrp == pgid && live_state(f.state)) found.push_back(info_of(pid, f));
  });
  return found;
}

unsigned long long process_start_ticks(pid_t pid) { return stat_fields(pid).start_ticks; }

std::vector<ProcInfo> live_descendants(pid_t root) {
  std::map<pid_t, std::vector<std::pair<pid_t, StatFields>>> children;  // by parent
  for_each_pid([&](pid_t pid) {
    StatFields f = stat_fields(pid);
    if (f.state != '?') children[static_cast<pid_t>(f.ppid)].emplace_back(pid, std::move(f));
  });
  std::vector<ProcInfo> found;
  std::vector<pid_t> todo{root};
  std::set<pid_t> seen{root};
  while (!todo.empty()) {
    const pid_t parent = todo.back();
    todo.pop_back();
    for (const auto& [pid, f] : children[parent]) {
      if (!seen.insert(pid).second) continue;
      todo.push_back(pid);  // a zombie's children were reparented already, but look anyway
      if (live_state(f.state)) found.push_back(info_of(pid, f));
    }
  }
  return found;
}

std::vector<std::pair<ProcInfo, std::string>> live_processes_with_env(const std::string& name) {
  std::vector<std::pair<ProcInfo, std::string>> found;
  for_each_pid([&](pid_t pid) {
    const auto value = process_env(pid, name);
    if (!value) return;
    const StatFields f = stat_fields(pid);
    if (live_state(f.state)) found.emplace_back(info_of(pid, f), *value);
  });
  return found;
}

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  const char state = process_state(pid);
  return state != '?' && state != 'Z' && state != 'X';
}

std::vector<ProcInfo> live_mps_processes() {
  std::vector<ProcInfo> found;
  for_each_pid([&](pid_t pid) {
    ProcInfo p;
    p.pid = pid;
    const std::string base = "/proc/" + std::to_string(pid);
    std::istringstream comm(read_whole_file(base + "/comm"));
    std::getline(comm, p.comm);
    const std::string cmdline = read_whole_file(base + "/cmdline");
    p.exe_arg = cmdline.substr(0, cmdline.find('\0'));
    const std::string prefix = "nvidia-cuda-mps";
    if (p.comm.rfind(prefix, 0) != 0 && basename_of(p.exe_arg).rfind(prefix, 0) != 0) return;
    const StatFields f = stat_fields(p.pid);
    p.state = f.state;
    p.start_ticks = f.start_ticks;
    if (p.state == '?' || p.state == 'Z' || p.state == 'X') return;
    found.push_back(p);
  });
  return found;
}

std::optional<std::string> process_env(pid_t pid, const std::string& name) {
  // read(2) through read_whole_file: an ifstream on the environ of a process that exits meanwhile may throw.
  const std::string environ = read_whole_file("/proc/" + std::to_string(pid) + "/environ");
  const std::string key = name + "=";
  for (std::size_t at = 0; at < environ.size();) {
    const std::size_t end = std::min(environ.find('\0', at), environ.size());
    if (environ.compare(at, key.size(), key) == 0 && end - at >= key.size())
      return environ.substr(at + key.size(), end - at - key.size());
    at = end + 1;
  }
  return std::nullopt;
}

}  // namespace bench_mps::harness
