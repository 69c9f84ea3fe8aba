#include "harness/workers/instance_runner.hpp"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "harness/common/clock.hpp"

namespace bench_mps::harness {
namespace {

struct Instance {
  int index = 0;
  std::unique_ptr<kernels::Workload> workload;
  void* stream = nullptr;  // the one it was placed on, if any
  int sms_seen = -1;
  long round_tasks = 0;     // tasks run this round
  long reported_tasks = 0;  // task lines sent this round (a task of several spans sends one per span)
};

/// Runs one instance's timed round on the calling thread.
void run_round(Instance& in, const RoundLength& length, const TaskSink& sink, std::int64_t t0,
               const std::atomic<bool>& abort) {
  in.round_tasks = 0;
  in.reported_tasks = 0;
  in.workload->begin_timed();
  const std::int64_t deadline = length.tasks > 0 ? 0 : t0 + static_cast<std::int64_t>(length.duration_s * 1e9);
  std::int64_t now = t0;
  const auto more = [&] {
    if (length.tasks > 0) return in.round_tasks < length.tasks;
    return now < deadline && (length.max_tasks <= 0 || in.round_tasks < length.max_tasks);
  };
  while (more()) {
    if (abort.load()) return;
    const std::int64_t start = monotonic_ns();
    in.workload->run_task();
    now = monotonic_ns();
    const auto [own_start, own_end] = in.workload->last_task_span();
    const auto spans = in.workload->last_task_spans();
    if (!spans.empty()) {
      for (const auto& [span_start, span_end] : spans) sink(in.index, span_start, span_end);
      in.reported_tasks += static_cast<long>(spans.size());
    } else {
      if (own_end > 0)
        sink(in.index, own_start, own_end);
      else
        sink(in.index, start, now);
      ++in.reported_tasks;
    }
    ++in.round_tasks;
  }
}

/// Creates, places, probes, sets up and warms up one instance on the calling thread.
void prepare_instance(Instance& in, const WorkloadFactory& make, const InstanceHooks& hooks, int warmup) {
  void* stream = hooks.enter ? hooks.enter(in.index) : nullptr;
  in.workload = make();
  if (stream && !in.workload->place_on_stream(stream))
    throw std::runtime_error("this workload cannot run on a stream it is given (green contexts)");
  in.stream = stream;
  if (hooks.probe_sms) in.sms_seen = hooks.probe_sms(stream);
  in.workload->setup();
  for (int i = 0; i < warmup; ++i) in.workload->run_task();
}

}  // namespace

struct InstanceRunner::Impl {
  InstanceLayout layout;
  std::vector<WorkloadFactory> factories;
  InstanceHooks hooks;
  std::vector<Instance> instances;

  // threads: one persistent thread per instance, told what to do through `job`.
  struct Job {
    int generation = 0;
    std::function<void(Instance&)> work;
  };
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::condition_variable cv;
  Job job;
  int finished = 0;
  bool quit = false;
  std::exception_ptr failure;
  std::atomic<bool> abort{false};

  /// threads: runs `work` on every instance's thread and waits for all of them; rethrows the first failure.
  void on_every_thread(std::function<void(Instance&)> work) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      job.work = std::move(work);
      ++job.generation;
      finished = 0;
      failure = nullptr;
      abort = false;
    }
    cv.notify_all();
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [this] { return finished == static_cast<int>(instances.size()); });
    if (failure) std::rethrow_exception(failure);
  }

  void thread_main(std::size_t i) {
    int seen = 0;
    for (;;) {
      std::function<void(Instance&)> work;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return quit || job.generation != seen; });
        if (quit) return;
        seen = job.generation;
        work = job.work;
      }
      std::exception_ptr error;
      try {
        work(instances[i]);
      } catch (...) {
        error = std::current_exception();
        abort = true;  // the others stop at their next task
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (error && !failure) failure = error;
        ++finished;
      }
      cv.notify_all();
    }
  }

  /// streams: one thread keeps every instance's stream fed until each has run its length.
  void streams_round(const RoundLength& length, const TaskSink& sink, std::int64_t t0) {
    const std::int64_t deadline = length.tasks > 0 ? 0 : t0 + static_cast<std::int64_t>(length.duration_s * 1e9);
    std::vector<std::int64_t> started(instances.size());
    std::vector<bool> busy(instances.size(), false);
    auto more = [&](const Instance& in, std::int64_t now) {
      if (length.tasks > 0) return in.round_tasks < length.tasks;
      return now < deadline && (length.max_tasks <= 0 || in.round_tasks < length.max_tasks);
    };
    for (std::size_t i = 0; i < instances.size(); ++i) {
      instances[i].round_tasks = 0;
      instances[i].reported_tasks = 0;
      instances[i].workload->begin_timed();
    }
    for (std::size_t i = 0; i < instances.size(); ++i) {
      started[i] = monotonic_ns();
      instances[i].workload->start_task();
      busy[i] = true;
    }
    for (bool any = true; any;) {
      any = false;
      for (std::size_t i = 0; i < instances.size(); ++i) {
        if (!busy[i]) continue;
        any = true;
        Instance& in = instances[i];
        if (!in.workload->poll_task()) continue;
        const std::int64_t now = monotonic_ns();
        sink(in.index, started[i], now);
        ++in.round_tasks;
        ++in.reported_tasks;
        if (more(in, now)) {
          started[i] = now;
          in.workload->start_task();
        } else {
          busy[i] = false;
        }
      }
    }
  }
};

InstanceRunner::InstanceRunner(InstanceLayout layout, std::vector<WorkloadFactory> factories, InstanceHooks hooks)
    : impl_(std::make_unique<Impl>()) {
  if (factories.empty()) throw std::invalid_argument("no workload instances");
  if (layout == InstanceLayout::single && factories.size() != 1)
    throw std::invalid_argument("a single-instance worker runs one workload");
  impl_->layout = layout;
  impl_->factories = std::move(factories);
  impl_->hooks = std::move(hooks);
  impl_->instances.resize(impl_->factories.size());
  for (std::size_t i = 0; i < impl_->instances.size(); ++i) impl_->instances[i].index = static_cast<int>(i);
  if (layout == InstanceLayout::threads)
    for (std::size_t i = 0; i < impl_->instances.size(); ++i)
      impl_->threads.emplace_back([this, i] { impl_->thread_main(i); });
}

InstanceRunner::~InstanceRunner() {
  Impl& m = *impl_;
  if (!m.threads.empty()) {
    {
      std::lock_guard<std::mutex> lock(m.mutex);
      m.quit = true;
    }
    m.cv.notify_all();
    for (auto& t : m.threads) t.join();
  }
}

void InstanceRunner::prepare(int warmup) {
  Impl& m = *impl_;
  if (m.layout == InstanceLayout::threads) {
    m.on_every_thread([&m, warmup](Instance& in) {
      prepare_instance(in, m.factories[static_cast<std::size_t>(in.index)], m.hooks, warmup);
    });
    return;
  }
  for (Instance& in : m.instances) {
    prepare_instance(in, m.factories[static_cast<std::size_t>(in.index)], m.hooks, warmup);
    if (m.layout == InstanceLayout::streams && !in.workload->supports_async())
      throw std::runtime_error("this workload cannot run in the streams mode (it waits on the host within a task)");
  }
}

void InstanceRunner::round(const RoundLength& length, const TaskSink& sink) {
  Impl& m = *impl_;
  const std::int64_t t0 = monotonic_ns();
  switch (m.layout) {
    case InstanceLayout::single:
      run_round(m.instances.front(), length, sink, t0, m.abort);
      break;
    case InstanceLayout::streams:
      m.streams_round(length, sink, t0);
      break;
    case InstanceLayout::threads:
      m.on_every_thread([&length, &sink, &m, t0](Instance& in) { run_round(in, length, sink, t0, m.abort); });
      break;
  }
}

int InstanceRunner::instances() const { return static_cast<int>(impl_->instances.size()); }

std::size_t InstanceRunner::device_bytes() const {
  std::size_t total = 0;
  for (const Instance& in : impl_->instances) total += in.workload ? in.workload->device_bytes() : 0;
  return total;
}

std::vector<int> InstanceRunner::sms_seen() const {
  std::vector<int> out;
  for (const Instance& in : impl_->instances)
    if (in.sms_seen >= 0) out.push_back(in.sms_seen);
  return out;
}

nlohmann::json InstanceRunner::instance_summaries() const {
  nlohmann::json out = nlohmann::json::array();
  for (const Instance& in : impl_->instances) {
    nlohmann::json facts = nlohmann::json::object();
    if (in.workload)
      for (const auto& [name, value] : in.workload->facts()) facts[name] = value;
    if (in.sms_seen >= 0) facts["sms_seen"] = in.sms_seen;
    out.push_back({{"tasks", in.reported_tasks}, {"facts", facts}});
  }
  return out;
}

}  // namespace bench_mps::harness
