#include "harness/common/signals.hpp"

#include <csignal>
#include <initializer_list>

namespace bench_mps::harness {
namespace {
std::atomic<int> g_stop{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_stop_signal(int sig) {
  int expected = 0;
  g_stop.compare_exchange_strong(expected, sig);
}
}  // namespace

std::atomic<int>& stop_signal() { return g_stop; }

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, nullptr);
  sigaction(SIGXFSZ, &ignore, nullptr);  // past a file size limit: EFBIG, handled like a full disk
}

}  // namespace bench_mps::harness
