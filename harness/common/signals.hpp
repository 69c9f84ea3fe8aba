#pragma once
// SIGINT/SIGTERM/SIGHUP/SIGQUIT (and SIGUSR1/SIGUSR2/SIGALRM/SIGVTALRM/SIGXCPU, a batch job's stops) only set a flag (SIGQUIT too: its default would dump core and leave
// the MPS daemon and meta.json "running"); the sweep polls it, stops its workers, quits the MPS daemon,
// flushes its files and exits 128 + signal. SIGPIPE is ignored (a dead worker's stdin must not kill us), and
// SIGXFSZ (a write past `ulimit -f` then fails with EFBIG, and the sweep stops as on a full disk).
#include "harness/common/wing.hpp"

#include <atomic>

namespace bench_mps::harness {

/// The signal that asked us to stop, 0 while none has.
std::atomic<int>& stop_signal();

/// How many stop signals have arrived in all: a helper program that a signal should cut short (one that
/// hangs) compares it with what it was when it started, so a second Ctrl-C also cuts short the cleanup's.
int stop_signals_received();

void install_stop_handlers();

}  // namespace bench_mps::harness
