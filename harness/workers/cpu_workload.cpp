#include "harness/workers/cpu_workload.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "harness/common/parallel.hpp"
#include "harness/common/word_table.hpp"

namespace bench_mps::harness {
namespace {

/// Whether the fake daemon was told to ignore something: it leaves a file of that name in its pipe folder.
bool fake_daemon_says(const char* marker) {
  const char* pipe_dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  std::error_code ec;
  return pipe_dir && *pipe_dir && std::filesystem::exists(std::filesystem::path(pipe_dir) / marker, ec);
}

void busy_wait_us(double us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

/// Hangs for good. Tests that must act while a worker hangs set BENCH_MPS_CPU_HANG_MARK to a file,
/// which the hanging worker creates first, so they wait for the hang itself instead of sleeping.
[[noreturn]] void hang_forever() {
  if (const char* mark = std::getenv("BENCH_MPS_CPU_HANG_MARK"); mark && *mark)
    std::ofstream(mark) << ::getpid() << "\n";
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

constexpr WordTable<CpuFault, 7> kCpuFaultWords{{
    {CpuFault::none, "none"},
    {CpuFault::error, "error"},
    {CpuFault::crash, "crash"},
    {CpuFault::abort, "abort"},
    {CpuFault::hang, "hang"},
    {CpuFault::hang_before_ready, "hang-before-ready"},
    {CpuFault::exit_before_ready, "exit-before-ready"},
}};

class CpuWorkload final : public kernels::Workload {
 public:
  CpuWorkload(const CpuParams& params, int worker_index)
      : params_(params),
        index_(worker_index),
        faulty_(params.fault != CpuFault::none && worker_index == params.fault_worker),
        task_us_(params.fill ? params.task_us * 100 / cpu_stand_in_thread_pct() : params.task_us) {}

  void setup() override {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(params_.setup_ms_per_index * index_));
    const char* limit = std::getenv("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT");
    const unsigned long long bytes = static_cast<unsigned long long>(params_.mem_mib) << 20;
    if (limit && *limit && cpu_workload_sees_mps() && !fake_daemon_says("ignore_mem_limit") &&
        bytes > mps_pinned_mem_limit_bytes(limit))
      throw std::runtime_error("cudaMalloc(" + std::to_string(params_.mem_mib) +
                               " MiB) failed: out of memory (cudaErrorMemoryAllocation) [cpu stand-in under "
                               "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=" +
                               limit + "]");
    if (!faulty_) return;
    if (params_.fault == CpuFault::hang_before_ready) hang_forever();
    if (params_.fault == CpuFault::exit_before_ready) std::exit(7);
  }

  void begin_timed() override { timed_ = true; }

  void run_task() override {
    if (faulty_ && timed_ && tasks_ >= params_.fault_after_tasks) inject();
    if (params_.fill)  // the device does the work, the host waits for it: a contended CPU does not stretch it
      std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(task_us_));
    else
      busy_wait_us(task_us_);
    if (timed_) ++tasks_;
  }

  // As a device would run it (the streams mode): the task "runs" for task_us after it was started,
  // while the host thread is free to start others.
  bool supports_async() const override { return true; }
  void start_task() override {
    if (faulty_ && timed_ && tasks_ >= params_.fault_after_tasks) inject();
    async_end_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                        std::chrono::duration<double, std::micro>(task_us_));
  }
  bool poll_task() override {
    if (std::chrono::steady_clock::now() < async_end_) return false;
    if (timed_) ++tasks_;
    return true;
  }

  std::size_t device_bytes() const override { return static_cast<std::size_t>(params_.mem_mib) << 20; }

  /// Where the worker ran: the CPU it ended on and how many it was allowed (the harness pins it).
  kernels::WorkloadFacts facts() const override {
    const std::vector<int> allowed = allowed_cpus();
    const int count = allowed.empty() ? -1 : static_cast<int>(allowed.size());  // -1: the mask could not be read
    kernels::WorkloadFacts f{{"cpu", ::sched_getcpu()}, {"allowed_cpus", count}};
    // The MPS settings this client was given, as a real client's driver would read them.
    for (const auto& [var, fact] :
         {std::pair<const char*, const char*>{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "mps_active_thread_pct"},
          {"CUDA_MPS_CLIENT_PRIORITY", "mps_client_priority"},
          {"CUDA_DEVICE_MAX_CONNECTIONS", "max_connections"}})
      if (const char* v = std::getenv(var); v && *v) f.emplace_back(fact, std::atof(v));
    if (const char* v = std::getenv("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"); v && *v)
      f.emplace_back("mps_mem_limit_mib", static_cast<double>(mps_pinned_mem_limit_bytes(v) >> 20));
    return f;
  }

 private:
  void inject() {
    switch (params_.fault) {
      case CpuFault::error:
        throw std::runtime_error("injected fault: cpu workload error");
      case CpuFault::crash:
        std::_Exit(3);
      case CpuFault::abort:
        std::raise(SIGSEGV);
        return;
      case CpuFault::hang:
        hang_forever();
        return;
      default:
        return;  // none, and the faults of setup
    }
  }

  CpuParams params_;
  int index_;
  bool faulty_;
  double task_us_;  ///< busy time of one task, stretched for a filling task under a thread percentage
  bool timed_ = false;
  long tasks_ = 0;  // timed tasks completed
  std::chrono::steady_clock::time_point async_end_;
};

}  // namespace

const std::vector<std::string>& cpu_fault_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& entry : kCpuFaultWords) n.emplace_back(entry.second);
    return n;
  }();
  return names;
}

std::string cpu_fault_name(CpuFault fault) { return std::string(word_of(kCpuFaultWords, fault).value_or("?")); }

std::optional<CpuFault> parse_cpu_fault(std::string_view word) { return value_of(kCpuFaultWords, word); }

std::unique_ptr<kernels::Workload> make_cpu_workload(const CpuParams& params, int worker_index) {
  return std::make_unique<CpuWorkload>(params, worker_index);
}

unsigned long long mps_pinned_mem_limit_bytes(const std::string& value) {
  std::string entry = value.substr(0, value.find(','));  // device 0's is first
  if (const auto eq = entry.find('='); eq != std::string::npos) entry = entry.substr(eq + 1);
  std::size_t used = 0;
  double number = 0;
  try {
    number = std::stod(entry, &used);
  } catch (const std::exception&) {
    throw std::invalid_argument("cannot read CUDA_MPS_PINNED_DEVICE_MEM_LIMIT='" + value + "'");
  }
  const std::string unit = entry.substr(used);
  double scale = 1;
  if (unit == "G" || unit == "GB")
    scale = 1ull << 30;
  else if (unit == "M" || unit == "MB")
    scale = 1ull << 20;
  else if (unit == "K" || unit == "KB")
    scale = 1ull << 10;
  else if (!unit.empty())
    throw std::invalid_argument("cannot read CUDA_MPS_PINNED_DEVICE_MEM_LIMIT='" + value + "'");
  return static_cast<unsigned long long>(number * scale);
}

bool cpu_workload_sees_mps() { return fake_daemon_says("control"); }

double cpu_stand_in_thread_pct() {
  if (!cpu_workload_sees_mps() || fake_daemon_says("ignore_thread_pct")) return 100;
  double pct = 100;
  if (const char* v = std::getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"); v && *v) pct = std::atof(v);
  std::ifstream daemon_default(std::filesystem::path(std::getenv("CUDA_MPS_PIPE_DIRECTORY")) / "default_pct");
  if (double d = 0; daemon_default >> d && d > 0) pct = std::min(pct, d);
  return pct > 0 && pct <= 100 ? pct : 100;
}

int cpu_stand_in_sms_seen() {
  if (!cpu_workload_sees_mps()) return 0;
  return static_cast<int>(std::lround(kCpuStandInSms * cpu_stand_in_thread_pct() / 100));
}

}  // namespace bench_mps::harness
