#pragma once
// SIGINT/SIGTERM/SIGHUP/SIGQUIT only set a flag (SIGQUIT too: its default would dump core and leave
// the MPS daemon and meta.json "running"); the sweep polls it, stops its workers, quits the MPS daemon,
// flushes its files and exits 128 + signal. SIGPIPE is ignored (a dead worker's stdin must not kill us), and
// SIGXFSZ (a write past `ulimit -f` then fails with EFBIG, and the sweep stops as on a full disk).
#include "harness/common/wing.hpp"

#include <atomic>

namespace bench_mps::harness {

/// The signal that asked us to stop, 0 while none has.
std::atomic<int>& stop_signal();

void install_stop_handlers();

}  // namespace bench_mps::harness
