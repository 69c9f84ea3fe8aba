#include "harness/common/signals.hpp"

#include <csignal>
#include <initializer_list>

namespace bench_mps::harness {
namespace {
std::atomic<int> g_stop{0};
std::atomic<int> g_stops{0};  // every stop signal counted, the first and those after it
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_stop_signal(int sig) {
  int expected = 0;
  g_stop.compare_exchange_strong(expected, sig);
  g_stops.fetch_add(1);
}
}  // namespace

std::atomic<int>& stop_signal() { return g_stop; }

int stop_signals_received() { return g_stops.load(); }

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  // Beside Ctrl-C and the usual stops: what a batch system or a shell sends to end a job (Slurm's
  // `--signal=USR1@60`, `timeout -s ALRM`, a CPU-time limit), whose default would kill us without a cleanup.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGXCPU})
    sigaction(sig, &sa, nullptr);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, nullptr);
  sigaction(SIGXFSZ, &ignore, nullptr);  // past a file size limit: EFBIG, handled like a full disk
}

}  // namespace bench_mps::harness
