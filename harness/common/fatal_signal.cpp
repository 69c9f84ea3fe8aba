// The report of a fatal signal: see fatal_signal.hpp.
#include "harness/common/fatal_signal.hpp"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string_view>

namespace bench_mps::harness {
namespace {

/// A text the handler reads: two buffers, the one being written never the one the handler reads.
template <std::size_t Bytes>
struct SignalText {
  char text[2][Bytes] = {{0}, {0}};
  std::atomic<int> current{0};
  void set(std::string_view what) {
    const int next = 1 - current.load(std::memory_order_relaxed);
    const std::size_t n = std::min(what.size(), Bytes - 1);
    std::memcpy(text[next], what.data(), n);
    text[next][n] = '\0';
    current.store(next, std::memory_order_release);
  }
  const char* get() const { return text[current.load(std::memory_order_acquire)]; }
};
SignalText<256> g_context;
SignalText<512> g_mps_pipe;
alignas(16) char g_alt_stack[64 * 1024];

void put(const char* s) {
  std::size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

/// `v` in hexadecimal into `out` (at least 19 bytes).
void hex(std::uintptr_t v, char* out) {
  char digits[17];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v && n < 16);
  out[0] = '0';
  out[1] = 'x';
  for (int i = 0; i < n; ++i) out[2 + i] = digits[n - 1 - i];
  out[2 + n] = '\0';
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "a fatal signal";
  }
}

/// `v` in decimal into `out` (at least 21 bytes).
void decimal(long long v, char* out) {
  char digits[21];
  int n = 0;
  const bool negative = v < 0;
  unsigned long long u = negative ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
  do {
    digits[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u && n < 20);
  int k = 0;
  if (negative) out[k++] = '-';
  while (n) out[k++] = digits[--n];
  out[k] = '\0';
}

extern "C" void on_fatal_signal(int sig, siginfo_t* info, void*) {
  put("\nbench_mps: crashed: ");
  put(signal_name(sig));
  char number[24];
  if (info && info->si_code <= 0) {  // sent (kill, raise, abort), not a fault: who sent it
    decimal(info->si_pid, number);
    put(info->si_pid == ::getpid() ? " raised by bench_mps itself" : " sent by process ");
    if (info->si_pid != ::getpid()) put(number);
  } else if (info) {
    hex(reinterpret_cast<std::uintptr_t>(info->si_addr), number);
    put(" at address ");
    put(number);
  }
  const char* context = g_context.get();
  if (*context) {
    put(" while ");
    put(context);
  }
  put("\nbench_mps: backtrace (addr2line -f -C -e MODULE OFFSET names a frame):\n");
  void* frames[64];
  const int n = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
  if (const char* pipe = g_mps_pipe.get(); *pipe) {
    put("bench_mps: its MPS daemon is left running; the next bench_mps stops it, or now: echo quit | "
        "CUDA_MPS_PIPE_DIRECTORY=");
    put(pipe);
    put(" nvidia-cuda-mps-control\n");
  }
  // SA_RESETHAND gave the signal its default action back: raised again, it ends the process as it would have.
  ::raise(sig);
}

}  // namespace

void install_fatal_signal_report() {
  void* warm[1];
  (void)::backtrace(warm, 1);  // loads what backtrace needs now, not inside the handler
  stack_t ss{};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof g_alt_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(sig, &sa, nullptr);
}

void fatal_signal_context(std::string_view what) { g_context.set(what); }
void fatal_signal_mps_pipe(std::string_view pipe_dir) { g_mps_pipe.set(pipe_dir); }

}  // namespace bench_mps::harness
