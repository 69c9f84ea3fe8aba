#include "harness/sweep/worker_pool.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "harness/common/format.hpp"
#include "harness/common/process.hpp"
#include "harness/workers/exec_workload.hpp"

namespace bench_mps::harness {
namespace {

struct Event {
  int worker = 0;
  bool is_stderr = false;
  bool eof = false;
  std::string line;
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
  WorkerResult result;
  std::unique_ptr<PipedChild> child;  ///< null when it could not be started
  bool out_eof = false, err_eof = false;
  bool exited = false;
  bool killed = false;
  std::thread out_reader, err_reader;
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

void set_status(WorkerResult& r, const std::string& status, const std::string& reason) {
  if (r.status != "ok") return;  // the first cause wins
  r.status = status;
  r.reason = reason;
}

/// Final word on a worker that has exited, from what it said and how it ended.
void classify(WorkerResult& r, bool barrier_passed) {
  if (r.status != "ok") return;
  std::string tail = r.stderr_tail.empty() ? "" : ": " + r.stderr_tail.back();
  if (r.term_signal) {
    set_status(r, "crashed", std::string("killed by signal ") + strsignal(r.term_signal) + tail);
  } else if (r.exit_code != 0) {
    set_status(r, "crashed", "exited with code " + std::to_string(r.exit_code) + tail);
  } else if (!r.ready) {
    set_status(r, "crashed", "exited before READY" + tail);
  } else if (barrier_passed && r.done.is_null()) {
    set_status(r, "crashed", "exited without DONE" + tail);
  } else if (barrier_passed && r.done.value("tasks", -1L) != static_cast<long>(r.tasks.size())) {
    set_status(r, "crashed", "reported " + std::to_string(r.done.value("tasks", -1L)) + " tasks but sent " +
                                 std::to_string(r.tasks.size()));
  }
}

}  // namespace

PoolResult run_worker_pool(const WorkerLaunch& launch, int count, const PoolLimits& limits,
                           const std::atomic<int>& stop_signal, const PoolHooks& hooks) {
  const BeforeKillHook& before_kill = hooks.before_kill;
  PoolResult pool;
  auto queue_owner = std::make_shared<EventQueue>();  // shared with reader threads, which may outlive us
  EventQueue& queue = *queue_owner;
  std::vector<std::unique_ptr<Worker>> workers;

  PipedChild::Options options;
  options.env = {launch.env_unset, launch.env_set};
  options.own_process_group = true;  // Ctrl-C on the terminal reaches only us
  options.die_with_parent = true;    // never outlive a harness killed outright

  const std::int64_t spawn_ns = monotonic_ns();
  for (int i = 0; i < count; ++i) {
    auto w = std::make_unique<Worker>();
    w->result.index = i;
    const auto special = launch.args_for_worker.find(i);
    std::vector<std::string> args = special == launch.args_for_worker.end() ? launch.args : special->second;
    args.insert(args.end(), {"--worker-index", std::to_string(i)});
    options.cpu = launch.cpus.empty() ? -1 : launch.cpus[static_cast<std::size_t>(i) % launch.cpus.size()];
    try {
      w->child = std::make_unique<PipedChild>(launch.exe, args, options);
    } catch (const CommandError& e) {
      w->result.status = "crashed";
      w->result.reason = e.what();
      w->exited = w->out_eof = w->err_eof = true;
    }
    if (w->child) {
      w->result.pid = w->child->pid();
      w->out_reader = std::thread([q = queue_owner, i, s = &w->child->out()] {
        for (std::string line; std::getline(*s, line);) q->push({i, false, false, line});
        q->push({i, false, true, {}});
      });
      w->err_reader = std::thread([q = queue_owner, i, s = &w->child->err()] {
        for (std::string line; std::getline(*s, line);) q->push({i, true, false, line});
        q->push({i, true, true, {}});
      });
    }
    workers.push_back(std::move(w));
  }

  auto live = [&] {
    std::vector<pid_t> pids;
    for (auto& w : workers)
      if (!w->exited) pids.push_back(static_cast<pid_t>(w->result.pid));
    return pids;
  };
  auto kill_all = [&](const std::string& status, const std::string& reason, bool use_hook) {
    for (auto& w : workers)  // the cause for those still running, whatever ends them now
      if (!w->exited && !w->out_eof) set_status(w->result, status, reason);
    if (use_hook && before_kill) {
      const auto pids = live();
      if (!pids.empty()) {
        before_kill(pids);
        const std::int64_t until = monotonic_ns() + seconds_to_ns(limits.kill_grace_s);
        while (monotonic_ns() < until) {
          bool any = false;
          for (auto& w : workers) any |= !try_reap(*w, false);
          if (!any) break;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
    }
    for (auto& w : workers)
      if (!w->exited) kill_group(*w);
  };

  bool stopping = false;
  std::int64_t stopping_since = 0;
  bool abandoned = false;  // a killed worker that never went away (uninterruptible sleep)
  for (;;) {
    for (Event& e : queue.drain(std::chrono::milliseconds(20))) {
      Worker& w = *workers[e.worker];
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
          break;
        case WorkerMessage::Kind::spawned:
          w.result.spawned_pgids.push_back(m.spawned_pgid);
          break;
        case WorkerMessage::Kind::error: {
          // "exec_failed: exited with code 2: ..." -> status exec_failed, the rest as the reason
          const auto colon = m.text.find(": ");
          const std::string word = colon == std::string::npos ? "" : m.text.substr(0, colon);
          if (is_exec_status(word))
            set_status(w.result, word, m.text.substr(colon + 2));
          else
            set_status(w.result, "error", m.text);
          break;
        }
        case WorkerMessage::Kind::unknown:
          set_status(w.result, "error", "unexpected output: " + m.text.substr(0, 200));
          break;
      }
    }
    for (auto& w : workers)
      if (w->out_eof && w->err_eof) try_reap(*w, false);

    bool all_gone = true;
    for (auto& w : workers) all_gone &= w->exited && w->out_eof && w->err_eof;
    if (all_gone) break;
    if (stopping) {
      if (stopping_since == 0) stopping_since = monotonic_ns();
      if (monotonic_ns() - stopping_since > seconds_to_ns(10)) {
        abandoned = true;
        break;
      }
      for (auto& w : workers) try_reap(*w, false);
      continue;
    }

    const std::int64_t now = monotonic_ns();
    if (const int sig = stop_signal.load()) {
      pool.interrupted_by = sig;
      kill_all("interrupted", std::string("interrupted by ") + strsignal(sig), false);
      stopping = true;
      continue;
    }
    if (!pool.barrier_passed) {
      bool all_ready = true, any_failed = false;
      for (auto& w : workers) {
        all_ready &= w->result.ready;
        any_failed |= w->exited || w->out_eof || w->result.status != "ok";
      }
      if (any_failed) {
        kill_all("aborted", "another worker failed before the start barrier", false);
        stopping = true;
      } else if (all_ready && hooks.all_ready && !hooks.all_ready([&] {
                   std::vector<WorkerResult> ready;
                   for (auto& w : workers) ready.push_back(w->result);
                   return ready;
                 }())) {
        kill_all("aborted", "stopped at the start barrier", false);
        stopping = true;
      } else if (all_ready) {
        pool.go_ns = monotonic_ns();
        for (auto& w : workers)
          if (w->child) w->child->send_last_line("GO");
        pool.barrier_passed = true;
      } else if (now - spawn_ns > seconds_to_ns(limits.ready_timeout_s)) {
        pool.timed_out = true;
        kill_all("timeout", "not READY within " + fmt_num(limits.ready_timeout_s) + " s", true);
        stopping = true;
      }
    } else if (now - pool.go_ns > seconds_to_ns(limits.run_timeout_s)) {
      pool.timed_out = true;
      kill_all("timeout", "still running " + fmt_num(limits.run_timeout_s) + " s after GO", true);
      stopping = true;
    } else if (hooks.while_running) {
      hooks.while_running();
    }
  }
  pool.end_ns = monotonic_ns();

  for (auto& w : workers) {
    if (abandoned && !w->exited) {
      set_status(w->result, "crashed", "did not exit after SIGKILL");
      pool.workers.push_back(w->result);
      if (w->child) w->child->forget();
      w->out_reader.detach();  // blocked on a pipe that never closes: leave thread and streams alive
      w->err_reader.detach();
      (void)w.release();
      continue;
    }
    try_reap(*w, !abandoned);
    if (w->out_reader.joinable()) w->out_reader.join();
    if (w->err_reader.joinable()) w->err_reader.join();
    classify(w->result, pool.barrier_passed);
    pool.workers.push_back(std::move(w->result));
  }
  return pool;
}

}  // namespace bench_mps::harness
