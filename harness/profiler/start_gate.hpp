#pragma once
// The start gate (--exec-gate): the N copies of a user's program are held at one point of their run (a host
// wait counted from the start, or their first kernel launch) until every copy of the worker set has reached
// it, then all are released at once, so that their steady parts run together. The barrier is a small file of
// shared memory the harness makes before it spawns the set and removes after (GateFile); the copies map it:
// through the profiler library injected into them (cupti_injection.cpp finds the gate point), or, for the CPU
// stand-ins of the tests, by calling gate_arrive() themselves. The last copy to arrive releases the rest (a
// futex on the shared word: release within microseconds, not a poll); a copy that never arrives (its
// program exited, died, or never used CUDA) is marked gone by its worker (gate_leave()), which releases the
// rest once every other has arrived; a copy that has not arrived `timeout` after the first arrival releases
// the rest by the waiters' own clock, so no copy is ever held longer than that, whatever the harness does.
// Standard C++ and Linux calls only: it is linked into the injected library, bench_worker and bench_mps.
#include "harness/profiler/wing.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bench_mps::profiler {

/// The environment the harness gives each copy: the gate's file and where to stop (gate_point_words).
inline constexpr const char* kGateFileVar = "BENCH_MPS_GATE_FILE";
inline constexpr const char* kGatePointVar = "BENCH_MPS_GATE_POINT";
/// "detach", "unsubscribe" or "keep" in the copy's environment: what the gate alone does after it opens
/// (wait_callbacks.hpp's AfterGate; measured by scripts/device_steps/gatecost.sh's arms and cupticost's states).
inline constexpr const char* kGateCallbacksVar = "BENCH_MPS_GATE_CALLBACKS";
/// Whether `value` of kGateCallbacksVar is one the gate knows: "detach", "unsubscribe", "keep", or "" (unset).
bool is_gate_callbacks(const std::string& value);
/// What the gate alone does once it opens, `value` of kGateCallbacksVar known (is_gate_callbacks): its name,
/// "detach" where unset or empty (the default since 2026-12-04).
std::string gate_callbacks_in_effect(const std::string& value);
/// The copy's slot: the worker index exec sets for its command (exec_workload.cpp).
inline constexpr const char* kGateSlotVar = "BENCH_MPS_WORKER_INDEX";

/// Why the copies were released.
enum class GateRelease : std::int32_t {
  held = 0,         ///< not released yet
  all_arrived = 1,  ///< every copy reached the gate
  some_left = 2,    ///< every copy reached it or ended without reaching it (exited, died, never used CUDA)
  timed_out = 3,    ///< a copy had not arrived `timeout` after the first arrival
  harness = 4,      ///< the harness opened it (stopping the set)
};
const char* gate_release_words(GateRelease r);

/// One copy's passage, as read back by the harness or its worker.
struct GateSlotReading {
  enum class State : std::int32_t { none = 0, arrived = 1, left = 2 } state = State::none;
  std::int64_t pid = 0;
  std::int64_t arrive_ns = 0;   ///< CLOCK_MONOTONIC when it reached the gate (0: never)
  std::int64_t release_ns = 0;  ///< when it went on (0: never held)
  std::int64_t left_ns = 0;     ///< when its worker marked it gone without arriving
  double held_s() const {
    return state == State::arrived && release_ns > arrive_ns ? static_cast<double>(release_ns - arrive_ns) * 1e-9 : 0;
  }
};

struct GateReading {
  int copies = 0;
  GateRelease release = GateRelease::held;
  std::int64_t release_ns = 0;  ///< when it opened (0: never)
  std::vector<GateSlotReading> slots;
  int arrived() const;
};

/// The gate's file, made by the harness for one worker set of `copies` copies and removed with it.
class GateFile {
 public:
  /// Made under `dir` (a private name); std::runtime_error naming the file where it cannot be.
  GateFile(const std::string& dir, int copies, double timeout_s);
  ~GateFile();
  GateFile(const GateFile&) = delete;
  GateFile& operator=(const GateFile&) = delete;

  const std::string& path() const { return path_; }
  GateReading read() const;
  /// Releases whoever is held (a stopped set); no-op once open.
  void open_now();

 private:
  std::string path_;
  void* map_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Parses a gate point as the harness hands it to a copy: "first-kernel" or "wait:K" (K >= 1). Returns
/// false where `text` is neither; `wait_k` is 0 for first-kernel.
bool parse_gate_point(const std::string& text, std::uint64_t& wait_k);

/// A copy at the gate: maps `path`, marks slot `slot` arrived, waits until released (by the last arrival,
/// a departure, the timeout or the harness), returns when it went on. "" on success, else why the copy was
/// not held (a file that cannot be mapped, a slot out of range: the copy runs on, never held).
std::string gate_arrive(const std::string& path, int slot);

/// A copy whose CUDA has started (the injected library loaded): records its pid in slot `slot`, so that a copy that
/// then ends before the gate point (a wait:K past its last host wait) is told from one that never used CUDA. Does
/// nothing where the file cannot be mapped or the slot is taken.
void gate_attach(const std::string& path, int slot);

/// A worker whose copy has ended: marks slot `slot` gone if it never arrived, releasing the others when
/// every copy has arrived or gone. Its reading of the slot after that (state none where it cannot be read).
GateSlotReading gate_leave(const std::string& path, int slot);

}  // namespace bench_mps::profiler
