#include "harness/sweep/kernel_log.hpp"

#include <set>
#include <sstream>

#include "harness/common/format.hpp"
#include "harness/common/process.hpp"

namespace bench_mps::harness {

XidLines read_xid_lines(const std::filesystem::path& scratch_dir) {
  XidLines x;
  const std::string dmesg = find_on_path("dmesg");
  if (dmesg.empty()) {
    x.why_not = "no dmesg on PATH";
    return x;
  }
  try {
    const CommandResult r = run_command(dmesg, {}, {}, "", 10, scratch_dir);
    if (r.exit_code != 0) {
      x.why_not = "dmesg: " + one_line(r.output.empty() ? "exit code " + std::to_string(r.exit_code) : r.output);
      return x;
    }
    x.readable = true;
    std::istringstream in(r.output);
    for (std::string line; std::getline(in, line);)
      if (line.find("NVRM: Xid") != std::string::npos) x.lines.push_back(trim(line));
  } catch (const CommandError& e) {
    x.why_not = e.what();
  }
  return x;
}

std::string new_driver_messages(const XidLines& before, const XidLines& after) {
  if (!before.readable || !after.readable)
    return "kernel log not readable: " + (before.readable ? after.why_not : before.why_not);
  const std::set<std::string> seen(before.lines.begin(), before.lines.end());
  std::string out;
  for (const std::string& line : after.lines)
    if (!seen.count(line)) out += (out.empty() ? "" : "; ") + line;
  return out.empty() ? "none in the kernel log" : out;
}

}  // namespace bench_mps::harness
