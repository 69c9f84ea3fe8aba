#include "harness/sweep/cpu_affinity.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "harness/common/errors.hpp"
#include "harness/plan/device_options.hpp"

namespace bench_mps::harness {

CpuPlan plan_cpus(const std::vector<int>& allowed, int max_procs) {
  CpuPlan plan;
  if (allowed.size() < 2 || max_procs < 1) return plan;
  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(max_procs), allowed.size() - 1);
  plan.workers.assign(allowed.begin() + 1, allowed.begin() + 1 + static_cast<std::ptrdiff_t>(k));
  plan.harness.push_back(allowed.front());
  plan.harness.insert(plan.harness.end(), allowed.begin() + 1 + static_cast<std::ptrdiff_t>(k), allowed.end());
  return plan;
}

std::vector<std::vector<int>> split_cpus(const std::vector<int>& allowed, int parts) {
  std::vector<std::vector<int>> shares;
  if (parts < 1 || allowed.size() < static_cast<std::size_t>(parts)) return shares;
  const std::size_t base = allowed.size() / static_cast<std::size_t>(parts);
  const std::size_t extra = allowed.size() % static_cast<std::size_t>(parts);
  auto next = allowed.begin();
  for (std::size_t i = 0; i < static_cast<std::size_t>(parts); ++i) {
    const auto size = static_cast<std::ptrdiff_t>(base + (i < extra ? 1 : 0));
    shares.emplace_back(next, next + size);
    next += size;
  }
  return shares;
}

void check_cpus_allowed(const std::vector<int>& cpus, const std::string& option, const std::string& given_as,
                        const std::string& then) {
  const std::vector<int> allowed = allowed_cpus();
  for (int c : cpus)
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
      throw UsageError(option + ": " + (given_as.empty() ? "" : given_as + ", but ") + "CPU " + std::to_string(c) +
                       " is not one this process may run on (allowed: " + format_cpu_list(allowed) + ")" +
                       (then.empty() ? "" : "; " + then));
}

std::string confine_process(const std::vector<int>& cpus) {
  if (cpus.empty()) return {};
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const pid_t tid = static_cast<pid_t>(std::stol(task.path().filename().string()));
    if (::sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH)  // ESRCH: that thread just ended
      return "sched_setaffinity(thread " + std::to_string(tid) + "): " + std::strerror(errno);
  }
  if (ec) return "cannot list /proc/self/task: " + ec.message();
  return {};
}

}  // namespace bench_mps::harness
