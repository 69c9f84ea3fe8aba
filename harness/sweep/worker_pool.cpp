#include "harness/sweep/worker_pool.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "harness/common/exec_token.hpp"
#include "harness/common/format.hpp"
#include "harness/common/process.hpp"

namespace bench_mps::harness {
namespace {

struct Event {
  int worker = 0;
  bool is_stderr = false;
  bool eof = false;
  std::string line;
  std::int64_t at_ns = 0;
};

class EventQueue {
 public:
  void push(Event e) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      events_.push_back(std::move(e));
    }
    cv_.notify_one();
  }
  /// Waits up to `timeout` for events and returns all that are queued.
  std::deque<Event> drain(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, timeout, [this] { return !events_.empty(); });
    std::deque<Event> out;
    out.swap(events_);
    return out;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Event> events_;
};

struct Worker {
  WorkerResult result;                ///< the process's status so far; tasks/done of the current round
  std::unique_ptr<PipedChild> child;  ///< null when it could not be started
  bool out_eof = false, err_eof = false;
  bool exited = false;
  bool killed = false;
  int dones = 0;  ///< DONE lines so far (one per round)
  std::int64_t last_done_ns = 0;
  std::thread out_reader, err_reader;
  std::string exec_token;                ///< BENCH_MPS_EXEC_TOKEN of this worker and whatever its command starts
  std::vector<ProcInfo> exec_leftovers;  ///< tagged processes still alive once the worker was gone (ended)

  bool gone() const { return exited && out_eof && err_eof; }
};

constexpr std::size_t kStderrTail = 20;

std::int64_t seconds_to_ns(double s) { return static_cast<std::int64_t>(s * 1e9); }

void kill_group(Worker& w) {
  for (long pgid : w.result.spawned_pgids) ::kill(static_cast<pid_t>(-pgid), SIGKILL);  // exec's command
  if (w.exited) return;
  const pid_t pid = static_cast<pid_t>(w.result.pid);
  if (::kill(-pid, SIGKILL) != 0) ::kill(pid, SIGKILL);  // group not made yet: the process itself
  w.killed = true;
}

/// Reaps the child if it has exited; fills exit_code / term_signal.
bool try_reap(Worker& w, bool block) {
  if (w.exited) return true;
  int status = 0;
  const pid_t pid = static_cast<pid_t>(w.result.pid);
  const pid_t r = ::waitpid(pid, &status, block ? 0 : WNOHANG);
  if (r == 0) return false;
  w.exited = true;
  w.result.ended_ns = monotonic_ns();
  if (r == pid) {
    if (WIFEXITED(status)) w.result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) w.result.term_signal = WTERMSIG(status);
  }
  if (w.child) w.child->forget();  // reaped here: never wait for it again
  return true;
}

void set_status(WorkerResult& r, RunStatus status, const std::string& reason) {
  if (r.status != RunStatus::ok) return;  // the first cause wins
  r.status = status;
  r.reason = reason;
}

/// Final word on a worker that has exited, from what it said and how it ended. `round_done`: whether
/// it said DONE for the round it was in.
void classify_exit(WorkerResult& r, bool barrier_passed, bool round_done) {
  if (r.status != RunStatus::ok) return;
  const std::string tail = r.stderr_tail.empty() ? "" : ": " + r.stderr_tail.back();
  if (r.term_signal) {
    set_status(r, RunStatus::crashed, std::string("killed by signal ") + strsignal(r.term_signal) + tail);
  } else if (r.exit_code != 0) {
    set_status(r, RunStatus::crashed, "exited with code " + std::to_string(r.exit_code) + tail);
  } else if (!r.ready) {
    set_status(r, RunStatus::crashed, "exited before READY" + tail);
  } else if (barrier_passed && !round_done) {
    set_status(r, RunStatus::crashed, "exited without DONE" + tail);
  }
}

/// A DONE whose task count is not what the worker sent in the round.
void check_task_count(WorkerResult& r) {
  if (r.status != RunStatus::ok || r.done.is_null()) return;
  if (r.done.value("tasks", -1L) != static_cast<long>(r.tasks.size()))
    set_status(
        r, RunStatus::crashed,
        "reported " + std::to_string(r.done.value("tasks", -1L)) + " tasks but sent " + std::to_string(r.tasks.size()));
}

/// A worker process that ran N instances gives N results, indexed by instance.
void expand_instances(const WorkerResult& w, std::vector<WorkerResult>& out) {
  const int n = w.ready_info.instances;
  if (n <= 1) {
    out.push_back(w);
    return;
  }
  for (int i = 0; i < n; ++i) {
    WorkerResult r = w;
    r.index = i;
    r.tasks.clear();
    for (const TaskRecord& t : w.tasks)
      if (t.instance == i) r.tasks.push_back(t);
    if (static_cast<std::size_t>(i) < w.ready_info.instance_sms.size())
      r.ready_info.sm_count_seen = w.ready_info.instance_sms[static_cast<std::size_t>(i)];
    r.done = nlohmann::json();
    if (w.done.is_object() && w.done.contains("instances") && w.done["instances"].is_array() &&
        static_cast<std::size_t>(i) < w.done["instances"].size())
      r.done = w.done["instances"][static_cast<std::size_t>(i)];
    if (r.status == RunStatus::ok && !r.done.is_null() &&
        r.done.value("tasks", -1L) != static_cast<long>(r.tasks.size()))
      set_status(r, RunStatus::crashed,
                 "instance " + std::to_string(i) + " reported " + std::to_string(r.done.value("tasks", -1L)) +
                     " tasks but sent " + std::to_string(r.tasks.size()));
    out.push_back(std::move(r));
  }
}

/// A worker that is gone (killed by us, or by its own exec command) cannot end what its command
/// started: every process still carrying the token of a worker that is gone is ended here, in one scan
/// for the whole set (see exec_token.hpp).
void end_exec_leftovers(const std::vector<std::unique_ptr<Worker>>& workers) {
  std::map<std::string, Worker*> by_token;
  for (const auto& w : workers)
    if (w && w->exited && !w->exec_token.empty()) by_token[w->exec_token] = w.get();
  if (by_token.empty()) return;
  std::map<pid_t, Worker*> owner;
  const std::vector<ProcInfo> ended = end_processes([&] {
    std::vector<ProcInfo> found;
    for (auto& [proc, token] : live_processes_with_env(kExecTokenVar)) {
      const auto it = by_token.find(token);
      if (it == by_token.end()) continue;
      owner[proc.pid] = it->second;
      found.push_back(proc);
    }
    return found;
  });
  for (const ProcInfo& p : ended) owner.at(p.pid)->exec_leftovers.push_back(p);
}

/// The leftovers end_exec_leftovers found become the worker's status (exec_left_children) if nothing
/// else went wrong, or part of its reason.
void note_exec_leftovers(const Worker& w, WorkerResult& r) {
  if (w.exec_leftovers.empty()) return;
  const std::string what = std::to_string(w.exec_leftovers.size()) + " process(es) its command started outlived it (" +
                           describe_processes(w.exec_leftovers) + "); they were ended";
  if (r.status == RunStatus::ok)
    set_status(r, RunStatus::exec_left_children, what);
  else if (r.reason.find(what) == std::string::npos)
    r.reason += "; " + what;
}

/// How a wait on the workers ended (WorkerSet::Impl::wait).
enum class WaitEnd { settled, stopped, timed_out };

}  // namespace

struct WorkerSet::Impl {
  WorkerLaunch launch;
  int count = 0;
  PoolLimits limits;
  const std::atomic<int>& stop_signal;
  PoolHooks hooks;
  std::shared_ptr<EventQueue> queue = std::make_shared<EventQueue>();  // shared with reader threads
  std::vector<std::unique_ptr<Worker>> workers;
  bool started = false;  // all READY
  bool dead = false;     // killed, or failed: no more rounds
  bool finished = false;
  bool abandoned = false;  // a killed worker that never went away (uninterruptible sleep)
  int rounds = 0;
  int interrupted_by = 0;
  bool timed_out = false;
  std::int64_t spawn_ns = 0, ready_ns = 0, close_ns = 0, wait_ns = 0, closed_ns = 0;

  Impl(WorkerLaunch l, int n, const PoolLimits& lim, const std::atomic<int>& stop, PoolHooks h)
      : launch(std::move(l)), count(n), limits(lim), stop_signal(stop), hooks(std::move(h)) {}

  std::vector<int> cpus_of(int i) const {
    std::vector<int> cpus;
    if (launch.cpus.empty()) return cpus;
    const auto size = launch.cpus.size();
    const int per = std::max(1, launch.cores_per_worker);
    for (int k = 0; k < per; ++k) cpus.push_back(launch.cpus[static_cast<std::size_t>(i * per + k) % size]);
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
  }

  void spawn() {
    spawn_ns = monotonic_ns();
    for (int i = 0; i < count; ++i) {
      auto w = std::make_unique<Worker>();
      w->result.index = i;
      const auto special = launch.args_for_worker.find(i);
      std::vector<std::string> args = special == launch.args_for_worker.end() ? launch.args : special->second;
      args.insert(args.end(), {"--worker-index", std::to_string(i)});
      PipedChild::Options options;
      options.env = {launch.env_unset, launch.env_set};
      if (const auto extra = launch.env_for_worker.find(i); extra != launch.env_for_worker.end())
        options.env.set.insert(options.env.set.end(), extra->second.begin(), extra->second.end());
      w->exec_token = new_exec_token();
      options.env.set.emplace_back(kExecTokenVar, w->exec_token);
      options.own_process_group = true;  // Ctrl-C on the terminal reaches only us
      options.die_with_parent = true;    // never outlive a harness killed outright
      options.cpus = cpus_of(i);
      w->result.cpus = options.cpus;
      try {
        w->child = std::make_unique<PipedChild>(launch.exe, args, options);
      } catch (const CommandError& e) {
        w->result.status = RunStatus::crashed;
        w->result.reason = e.what();
        w->exited = w->out_eof = w->err_eof = true;
      }
      if (w->child) {
        w->result.pid = w->child->pid();
        w->out_reader = std::thread([q = queue, i, s = &w->child->out()] {
          for (std::string line; std::getline(*s, line);) q->push({i, false, false, line, monotonic_ns()});
          q->push({i, false, true, {}, monotonic_ns()});
        });
        w->err_reader = std::thread([q = queue, i, s = &w->child->err()] {
          for (std::string line; std::getline(*s, line);) q->push({i, true, false, line, monotonic_ns()});
          q->push({i, true, true, {}, monotonic_ns()});
        });
      }
      workers.push_back(std::move(w));
    }
  }

  /// Handles the events that arrive within `wait`, then reaps whoever has closed both pipes.
  void pump(std::chrono::milliseconds wait) {
    for (Event& e : queue->drain(wait)) {
      Worker& w = *workers[static_cast<std::size_t>(e.worker)];
      if (e.eof) {
        (e.is_stderr ? w.err_eof : w.out_eof) = true;
        continue;
      }
      if (e.is_stderr) {
        w.result.stderr_tail.push_back(one_line(e.line));
        if (w.result.stderr_tail.size() > kStderrTail) w.result.stderr_tail.erase(w.result.stderr_tail.begin());
        continue;
      }
      const WorkerMessage m = parse_worker_line(e.line);
      switch (m.kind) {
        case WorkerMessage::Kind::ready:
          w.result.ready = true;
          w.result.ready_info = m.ready;
          break;
        case WorkerMessage::Kind::task:
          w.result.tasks.push_back(m.task);
          break;
        case WorkerMessage::Kind::done:
          w.result.done = m.done;
          ++w.dones;
          w.last_done_ns = e.at_ns;
          break;
        case WorkerMessage::Kind::facts:  // a failed round's: runs.csv's facts as a DONE's would be
          if (!w.result.done.is_object()) w.result.done = nlohmann::json{{"facts", m.done}};
          break;
        case WorkerMessage::Kind::spawned:
          w.result.spawned_pgids.push_back(m.spawned_pgid);
          break;
        case WorkerMessage::Kind::error:
          set_status(w.result, m.status, m.text);
          break;
        case WorkerMessage::Kind::unknown:
          set_status(w.result, RunStatus::error, "unexpected output: " + m.text.substr(0, 200));
          break;
      }
    }
    for (auto& w : workers)
      if (w->out_eof && w->err_eof) try_reap(*w, false);
  }

  /// Stops every worker still running (the before_kill hook first, for the culprits, where asked), waits
  /// until they are gone (10 s at most: then they are abandoned), and marks the set dead. The culprits
  /// (all, unless `culprit` says otherwise: a worker that finished its round is not one) get the status.
  void kill_all(RunStatus status, const std::string& reason, bool use_hook,
                const std::function<bool(const Worker&)>& culprit = {}) {
    dead = true;
    std::vector<pid_t> culprits;
    for (auto& w : workers) {  // the cause for those still running, whatever ends them now
      if (w->exited || w->out_eof || (culprit && !culprit(*w))) continue;
      set_status(w->result, status, reason);
      culprits.push_back(static_cast<pid_t>(w->result.pid));
    }
    if (use_hook && hooks.before_kill) {
      const auto& pids = culprits;
      if (!pids.empty()) {
        hooks.before_kill(pids);
        const std::int64_t until = monotonic_ns() + seconds_to_ns(limits.kill_grace_s);
        auto culprits_alive = [&] {
          for (const auto& w : workers)
            if (!w->exited && std::find(pids.begin(), pids.end(), static_cast<pid_t>(w->result.pid)) != pids.end())
              return true;
          return false;
        };
        while (monotonic_ns() < until && culprits_alive()) {
          for (auto& w : workers) try_reap(*w, false);
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
    }
    for (auto& w : workers)
      if (!w->exited) kill_group(*w);
    const std::int64_t until = monotonic_ns() + seconds_to_ns(10);
    while (!all_gone()) {
      if (monotonic_ns() > until) {
        abandoned = true;
        return;
      }
      pump(std::chrono::milliseconds(20));
      for (auto& w : workers) try_reap(*w, false);
    }
  }

  /// Handles the workers' output every 20 ms until `settled()` holds, the stop signal fires (the set is
  /// then killed: stopped) or `limit_s` has passed since `since_ns` (timed_out: the caller ends what it
  /// must); `between` runs after each pass that ended nothing. `signal_first`: the signal is looked at
  /// before `settled` (before the start barrier: nothing measured is lost), else after it (a round or a
  /// close that finished is kept).
  WaitEnd wait(const std::function<bool()>& settled, bool signal_first, std::int64_t since_ns, double limit_s,
               const std::function<void()>& between = {}) {
    for (;;) {
      pump(std::chrono::milliseconds(20));
      if (signal_first && stopped_by_signal()) return WaitEnd::stopped;
      if (settled()) return WaitEnd::settled;
      if (!signal_first && stopped_by_signal()) return WaitEnd::stopped;
      if (monotonic_ns() - since_ns > seconds_to_ns(limit_s)) return WaitEnd::timed_out;
      if (between) between();
    }
  }

  bool all_gone() const {
    return std::all_of(workers.begin(), workers.end(), [](const auto& w) { return w->gone(); });
  }

  /// Checks the stop signal; true (and the set killed) if it fired.
  bool stopped_by_signal() {
    const int sig = stop_signal.load();
    if (!sig) return false;
    interrupted_by = sig;
    kill_all(RunStatus::interrupted, std::string("interrupted by ") + strsignal(sig), false);
    return true;
  }

  /// Joins what can be joined and leaves behind what cannot (abandoned workers' readers).
  void release() {
    for (auto& w : workers) {
      if (abandoned && !w->exited) {
        set_status(w->result, RunStatus::crashed, "did not exit after SIGKILL");
        if (w->child) w->child->forget();
        w->out_reader.detach();  // blocked on a pipe that never closes: leave thread and streams alive
        w->err_reader.detach();
        (void)w.release();
        continue;
      }
      try_reap(*w, true);
      if (w->out_reader.joinable()) w->out_reader.join();
      if (w->err_reader.joinable()) w->err_reader.join();
    }
    end_exec_leftovers(workers);
  }
};

WorkerSet::WorkerSet(WorkerLaunch launch, int workers, const PoolLimits& limits, const std::atomic<int>& stop_signal,
                     PoolHooks hooks)
    : impl_(std::make_unique<Impl>(std::move(launch), workers, limits, stop_signal, std::move(hooks))) {}

WorkerSet::~WorkerSet() {
  if (impl_->finished) return;
  try {
    if (!impl_->all_gone()) impl_->kill_all(RunStatus::aborted, "the harness stopped the set", false);
    impl_->release();
  } catch (...) {  // a destructor never throws
  }
}

bool WorkerSet::start() {
  Impl& m = *impl_;
  m.spawn();
  bool all_ready = false, any_failed = false;
  const auto ready_or_failed = [&] {
    all_ready = true;
    any_failed = false;
    for (auto& w : m.workers) {
      all_ready &= w->result.ready;
      any_failed |= w->exited || w->out_eof || w->result.status != RunStatus::ok;
    }
    return any_failed || all_ready;
  };
  const WaitEnd end = m.wait(ready_or_failed, true, m.spawn_ns, m.limits.ready_timeout_s);
  if (end == WaitEnd::stopped) return false;
  if (end == WaitEnd::timed_out) {
    m.timed_out = true;
    const std::string late = "not READY within " + fmt_num(m.limits.ready_timeout_s) + " s";
    for (auto& w : m.workers)  // those that were READY only wait on the late ones: the late ones are the cause
      if (w->result.ready) set_status(w->result, RunStatus::aborted, "another worker was " + late);
    m.kill_all(RunStatus::timeout, late, true, [](const Worker& w) { return !w.result.ready; });
    return false;
  }
  if (any_failed) {
    m.kill_all(RunStatus::aborted, "another worker failed before the start barrier", false);
    return false;
  }
  if (m.hooks.all_ready) {
    std::vector<WorkerResult> ready;
    for (auto& w : m.workers) ready.push_back(w->result);
    if (!m.hooks.all_ready(ready)) {
      m.kill_all(RunStatus::aborted, "stopped at the start barrier", false);
      return false;
    }
  }
  m.ready_ns = monotonic_ns();
  m.started = true;
  return true;
}

bool WorkerSet::usable() const {
  const Impl& m = *impl_;
  if (!m.started || m.dead || m.finished) return false;
  return std::all_of(m.workers.begin(), m.workers.end(), [&m](const auto& w) {
    return !w->exited && !w->out_eof && w->result.status == RunStatus::ok && w->dones == m.rounds;
  });
}

PoolResult WorkerSet::round() {
  Impl& m = *impl_;
  if (!usable()) throw std::logic_error("WorkerSet::round on a set that cannot run one");
  const int k = ++m.rounds;
  for (auto& w : m.workers) {
    w->result.tasks.clear();
    w->result.done = nlohmann::json();
  }
  PoolResult pool;
  pool.go_ns = monotonic_ns();
  for (auto& w : m.workers) w->child->send_line("GO");
  pool.barrier_passed = true;
  auto finished = [k](const Worker& w) { return w.dones >= k || w.gone(); };
  const auto all_finished = [&] {
    return std::all_of(m.workers.begin(), m.workers.end(), [&](const auto& w) { return finished(*w); });
  };
  if (m.wait(all_finished, false, pool.go_ns, m.limits.run_timeout_s, m.hooks.while_running) == WaitEnd::timed_out) {
    pool.timed_out = m.timed_out = true;
    m.kill_all(RunStatus::timeout, "still running " + fmt_num(m.limits.run_timeout_s) + " s after GO", true,
               [&](const Worker& w) { return !finished(w); });
  }
  pool.interrupted_by = m.interrupted_by;
  pool.end_ns = pool.go_ns;
  for (auto& w : m.workers) {
    pool.end_ns = std::max(pool.end_ns, w->dones >= k ? w->last_done_ns : w->result.ended_ns);
    if (w->gone() && !(w->killed && w->dones >= k)) classify_exit(w->result, true, w->dones >= k);
    WorkerResult r = w->result;
    check_task_count(r);
    if (r.status != RunStatus::ok) set_status(w->result, r.status, r.reason);  // a bad count ends the set's use
    expand_instances(r, pool.workers);
  }
  if (!usable()) m.dead = true;
  return pool;
}

void WorkerSet::begin_close() {
  Impl& m = *impl_;
  if (m.close_ns) return;
  m.close_ns = monotonic_ns();
  for (auto& w : m.workers)
    if (w->child && !w->exited) w->child->close_input();
}

PoolResult WorkerSet::finish(PoolResult last) {
  Impl& m = *impl_;
  if (m.finished) throw std::logic_error("WorkerSet::finish called twice");
  begin_close();
  m.wait_ns = monotonic_ns();
  if (!m.abandoned && !m.all_gone() &&
      m.wait([&m] { return m.all_gone(); }, false, m.close_ns, m.limits.close_timeout_s) == WaitEnd::timed_out)
    m.kill_all(RunStatus::crashed, "did not exit within " + fmt_num(m.limits.close_timeout_s) + " s of its last round",
               false);
  m.closed_ns = monotonic_ns();
  m.release();
  m.finished = true;

  const bool barrier_passed = m.rounds > 0;
  if (!barrier_passed) {  // the set never ran: its workers' statuses say why
    last = PoolResult{};
    last.timed_out = m.timed_out;
    last.interrupted_by = m.interrupted_by;
    last.go_ns = last.end_ns = m.closed_ns;
    for (auto& w : m.workers) {
      classify_exit(w->result, false, false);
      note_exec_leftovers(*w, w->result);
      last.workers.push_back(w->result);
    }
    return last;
  }
  // The last round's rows take the status of how their process ended.
  for (auto& w : m.workers) {
    // A worker we killed after it had finished its rounds (its set died of another's hang) did nothing wrong.
    if (!(w->killed && w->dones >= m.rounds)) classify_exit(w->result, true, w->dones >= m.rounds);
    for (WorkerResult& r : last.workers) {
      if (r.pid != w->result.pid) continue;
      r.exit_code = w->result.exit_code;
      r.term_signal = w->result.term_signal;
      r.ended_ns = w->result.ended_ns;
      r.stderr_tail = w->result.stderr_tail;
      if (w->result.status != RunStatus::ok) set_status(r, w->result.status, w->result.reason);
      note_exec_leftovers(*w, r);
    }
  }
  last.interrupted_by = std::max(last.interrupted_by, m.interrupted_by);
  return last;
}

SetOverhead WorkerSet::overhead() const {
  const Impl& m = *impl_;
  SetOverhead o;
  if (m.ready_ns > m.spawn_ns) o.startup_s = static_cast<double>(m.ready_ns - m.spawn_ns) * 1e-9;
  if (m.closed_ns > m.wait_ns && m.wait_ns) o.teardown_s = static_cast<double>(m.closed_ns - m.wait_ns) * 1e-9;
  return o;
}

PoolResult run_worker_pool(const WorkerLaunch& launch, int workers, const PoolLimits& limits,
                           const std::atomic<int>& stop_signal, const PoolHooks& hooks) {
  WorkerSet set(launch, workers, limits, stop_signal, hooks);
  if (!set.start()) return set.finish();
  return set.finish(set.round());
}

}  // namespace bench_mps::harness
