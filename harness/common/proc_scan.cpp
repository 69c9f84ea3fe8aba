#include "harness/common/proc_scan.hpp"

#include <dirent.h>

#include <cctype>
#include <fstream>
#include <iterator>
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
  return f;
}
bool live_state(char state) { return state != '?' && state != 'Z' && state != 'X'; }
}  // namespace

pid_t parent_pid(pid_t pid) { return static_cast<pid_t>(stat_fields(pid).ppid); }

std::vector<ProcInfo> live_processes_in_group(pid_t pgid) {
  std::vector<ProcInfo> found;
  DIR* dir = opendir("/proc");
  if (!dir) return found;
  while (const dirent* entry = readdir(dir)) {
    if (!std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) continue;
    const auto pid = static_cast<pid_t>(std::stol(entry->d_name));
    const StatFields f = stat_fields(pid);
    if (f.pgrp != pgid || !live_state(f.state)) continue;
    ProcInfo p;
    p.pid = pid;
    p.comm = f.comm;
    p.state = f.state;
    found.push_back(p);
  }
  closedir(dir);
  return found;
}

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  const char state = process_state(pid);
  return state != '?' && state != 'Z' && state != 'X';
}

std::vector<ProcInfo> live_mps_processes() {
  std::vector<ProcInfo> found;
  DIR* dir = opendir("/proc");
  if (!dir) return found;
  while (const dirent* entry = readdir(dir)) {
    if (!std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) continue;
    ProcInfo p;
    p.pid = static_cast<pid_t>(std::stol(entry->d_name));
    const std::string base = "/proc/" + std::string(entry->d_name);
    std::istringstream comm(read_whole_file(base + "/comm"));
    std::getline(comm, p.comm);
    const std::string cmdline = read_whole_file(base + "/cmdline");
    p.exe_arg = cmdline.substr(0, cmdline.find('\0'));
    const std::string prefix = "nvidia-cuda-mps";
    if (p.comm.rfind(prefix, 0) != 0 && basename_of(p.exe_arg).rfind(prefix, 0) != 0) continue;
    p.state = process_state(p.pid);
    if (p.state == '?' || p.state == 'Z' || p.state == 'X') continue;
    found.push_back(p);
  }
  closedir(dir);
  return found;
}

std::optional<std::string> process_env(pid_t pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  if (!in) return std::nullopt;
  std::string entry;
  const std::string key = name + "=";
  while (std::getline(in, entry, '\0'))
    if (entry.rfind(key, 0) == 0) return entry.substr(key.size());
  return std::nullopt;
}

}  // namespace bench_mps::harness
