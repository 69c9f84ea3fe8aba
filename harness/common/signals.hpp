#pragma once
// SIGINT/SIGTERM/SIGHUP only set a flag; the sweep polls it, stops its workers, quits the MPS daemon,
// flushes its files and exits 128 + signal. SIGPIPE is ignored (a dead worker's stdin must not kill us).
#include "harness/common/wing.hpp"

#include <atomic>

namespace bench_mps::harness {

/// The signal that asked us to stop, 0 while none has.
std::atomic<int>& stop_signal();

void install_stop_handlers();

}  // namespace bench_mps::harness
