#pragma once
// A crash of bench_mps itself (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) says where before it dies: one line
// with the signal, the faulting address and what the process was doing (the last fatal_signal_context), the
// backtrace (each frame as module(+offset): `addr2line -f -C -e MODULE OFFSET` names it on a build with symbols),
// and, where a private MPS daemon of its own was running, its pipe folder and that the next bench_mps stops it
// (stop_stale_sessions) or how to stop it now. Then the signal's
// default action (the exit status still says it). The handler runs on its own stack, so a stack overflow is
// reported too. Only async-signal-safe calls run in it (write, backtrace_symbols_fd, preloaded at install).
#include "harness/common/wing.hpp"

#include <string_view>

namespace bench_mps::harness {

void install_fatal_signal_report();

/// What the process is doing now, for the report ("recording run r1-mps-exec-n1"); kept to 255 bytes.
void fatal_signal_context(std::string_view what);
/// The pipe folder of the private MPS daemon running now ("" once it is stopped); kept to 511 bytes.
void fatal_signal_mps_pipe(std::string_view pipe_dir);

}  // namespace bench_mps::harness
