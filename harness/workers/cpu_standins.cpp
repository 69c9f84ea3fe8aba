#include "harness/workers/cpu_standins.hpp"

#include <stdexcept>
#include <vector>

#include "harness/common/clock.hpp"
#include "kernels/xray_stats.hpp"

namespace bench_mps::harness {
namespace {

void busy_until(std::int64_t t_ns) {
  while (monotonic_ns() < t_ns) {
  }
}

std::int64_t ns_of_us(double us) { return static_cast<std::int64_t>(us * 1e3); }

class CpuDuty final : public kernels::Workload {
 public:
  explicit CpuDuty(const kernels::DutyParams& p) : p_(p) {
    if (!(p.burst_us > 0) || p.host_us < 0 || p.steps_per_task < 1)
      throw std::invalid_argument("duty: burst must be positive, host work >= 0, counts >= 1");
  }
  void setup() override { begin_timed(); }
  void begin_timed() override {
    phase_start_ = monotonic_ns();
    last_end_ = phase_start_;
    burst_ns_ = 0;
    steps_ = 0;
  }
  void run_task() override {
    for (int s = 0; s < p_.steps_per_task; ++s) {
      busy_until(monotonic_ns() + ns_of_us(p_.host_us));
      const std::int64_t t0 = monotonic_ns();
      busy_until(t0 + ns_of_us(p_.burst_us));  // the burst, on this core
      last_end_ = monotonic_ns();
      burst_ns_ += last_end_ - t0;
      ++steps_;
    }
  }
  std::size_t device_bytes() const override { return 0; }
  kernels::WorkloadFacts facts() const override {
    if (!steps_) return {};
    const double burst_ms = static_cast<double>(burst_ns_) * 1e-6 / static_cast<double>(steps_);
    const double wall_ms = static_cast<double>(last_end_ - phase_start_) * 1e-6;
    return {{"blocks", static_cast<double>(p_.blocks)},
            {"burst_ms", burst_ms},
            {"bursts_timed", static_cast<double>(steps_)},
            {"sync_steps", static_cast<double>(steps_)},
            {"gpu_busy_share", wall_ms > 0 ? burst_ms * static_cast<double>(steps_) / wall_ms : 0.0}};
  }

 private:
  kernels::DutyParams p_;
  std::int64_t phase_start_ = 0, last_end_ = 0, burst_ns_ = 0;
  long steps_ = 0;
};

class CpuXray final : public kernels::Workload {
 public:
  explicit CpuXray(const kernels::XrayParams& p) : p_(p), busy_(p.role == kernels::XrayRole::busy) {}
  // The gaps role: each "kernel" is busy time right after its launch on the worker's own core, so a
  // CPU scheduler that shares the core shows as the wait before it.
  void setup() override {}
  void begin_timed() override {
    timed_ = true;
    busy_stats_.reset();
    step_stats_.reset();
    gap_stats_.reset();
  }
  void run_task() override {
    spans_.clear();
    if (p_.role == kernels::XrayRole::gaps) {  // kernel A, the gap, kernel B: all on the worker's core
      for (double gap_us : kernels::kGapsUs) {
        busy_until(monotonic_ns() + ns_of_us(kernels::kGapKernelUs));
        const std::int64_t a_end = monotonic_ns();
        busy_until(a_end + ns_of_us(gap_us));
        const std::int64_t launched = monotonic_ns(), started = monotonic_ns();
        busy_until(started + ns_of_us(kernels::kGapKernelUs));
        gap_stats_.add(launched, started, a_end, kernels::kGapKeptNs);
      }
      return;
    }
    if (!busy_) {
      const std::int64_t t0 = monotonic_ns();
      busy_until(t0 + ns_of_us(p_.step_us));
      step_stats_.add(t0, monotonic_ns());
      return;
    }
    // The X-ray's logger on the host clock: a pause longer than gap_us is the scheduler running others.
    const std::int64_t gap = ns_of_us(p_.gap_us), end = monotonic_ns() + ns_of_us((timed_ ? p_.busy_ms : 1.0) * 1e3);
    std::int64_t t = monotonic_ns(), begin = t, prev = t;
    long lost = 0;
    while (t < end) {
      t = monotonic_ns();
      if (t - prev > gap) {
        if (static_cast<int>(spans_.size()) < p_.max_intervals)
          spans_.push_back({begin, prev});
        else
          ++lost;
        begin = t;
      }
      prev = t;
    }
    spans_.push_back({begin, prev});
    busy_stats_.add(spans_, lost);
  }
  std::vector<kernels::Span> last_task_spans() const override { return spans_; }
  std::size_t device_bytes() const override { return 0; }
  kernels::WorkloadFacts facts() const override {
    return kernels::xray_facts(p_.role, 1.0, busy_stats_, step_stats_, gap_stats_);  // the host clock's "tick": 1 ns
  }

 private:
  kernels::XrayParams p_;
  bool busy_, timed_ = false;
  std::vector<kernels::Span> spans_;
  kernels::BusyIntervalStats busy_stats_;
  kernels::StepStampStats step_stats_;
  kernels::IdleHoldStats gap_stats_;
};

}  // namespace

std::unique_ptr<kernels::Workload> make_cpu_duty_workload(const kernels::DutyParams& params) {
  return std::make_unique<CpuDuty>(params);
}

std::unique_ptr<kernels::Workload> make_cpu_xray_workload(const kernels::XrayParams& params) {
  return std::make_unique<CpuXray>(params);
}

std::unique_ptr<kernels::Workload> make_cpu_stand_in(WorkloadKind kind, const kernels::DutyParams& duty,
                                                     const kernels::XrayParams& xray) {
  if (kind == WorkloadKind::duty) return make_cpu_duty_workload(duty);
  if (kind == WorkloadKind::xray) return make_cpu_xray_workload(xray);
  throw std::invalid_argument("--cpu-stand-in: no CPU stand-in for the " + to_string(kind) +
                              " workload (duty and xray have one)");
}

}  // namespace bench_mps::harness
