// libbench_mps_profiler.so: a GPU profile of any CUDA program, unmodified. The CUDA driver loads the
// library named by CUDA_INJECTION64_PATH when the program initialises CUDA and calls
// InitializeInjection(); from there CUPTI's activity API hands over, in large buffers, a record per
// kernel, copy and memset, per device memory allocation and release, per context and device; host waits
// (a synchronising call, from CUPTI callbacks on those calls alone: wait_callbacks.hpp; a synchronous
// copy is one too) go in beside them, and where they cannot be had the profile's waits_status says why. Each
// buffer's records go into a ProfileRecorder (profile_recorder.hpp: bounded, whatever the program's
// length; no system call per record). At exit (atexit), CUPTI's buffers are flushed and the profile is
// written to $BENCH_MPS_PROFILE_DIR/profile-<pid>.json (the current directory without it), through a
// .tmp file renamed into place. A program that never initialises CUDA never loads the library, and
// writes nothing.
//
// Where CLOCK_MONOTONIC stands on CUPTI's clock is read at the start and at exit (a CUPTI timestamp
// between two monotonic readings, the closest of three tries) and written beside the clock's t0: the
// harness places the profile's steady part on its own clock and NVML's with it (docs/PROFILE.md).
//
// With a start gate (BENCH_MPS_GATE_FILE, start_gate.hpp) it holds the program at the gate's point until
// the gate opens; without BENCH_MPS_PROFILE_DIR beside it, it then records nothing else and writes no
// profile (the gate alone: its callbacks on the synchronising calls or the launches, nothing more).
//
// With BENCH_MPS_UNIT_RANGE=NAME (--exec-unit-range) it records the occurrences of the NVTX range NAME
// (nvtx_ranges.hpp): NVTX_INJECTION64_PATH names this library, whose InitializeInjectionNvtx2 hands the
// program's NVTX calls to CUPTI's, and CUPTI's NVTX callbacks come through the host waits' subscriber.
//
// It never stops the program: a CUPTI call that fails is written into the profile (status "error")
// and the activity kinds are disabled, so the program runs on without the profiler. A process that
// ends without running its atexit handlers (killed, _exit) writes no profile.
#include <dlfcn.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include "harness/profiler/nvtx_ranges.hpp"
#include "harness/profiler/profile_recorder.hpp"
#include "harness/profiler/start_gate.hpp"
#include "harness/profiler/wait_callbacks.hpp"

namespace bench_mps::profiler {
namespace {

constexpr std::size_t kBufferBytes = 8u << 20;  ///< per activity buffer: few, large buffers
constexpr std::size_t kAlign = 8;

std::mutex g_mutex;
ProfileRecorder* g_recorder = nullptr;  // lives until the process ends: CUPTI may call back late
bool g_detached = false;

struct Kind {
  CUpti_ActivityKind kind;
  const char* name;
};
const Kind kKinds[] = {{CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE"},
                       {CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT"},
                       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"},
                       {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
                       {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"},
                       {CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2"}};
/// Optional: without it the profile has no host waits (waits_status says why), the rest stays valid.
const Kind kWaitsKind = {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"};

std::string enable_call(const Kind& k) {
  return "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_" + std::string(k.name) + ")";
}

std::string cupti_text(const char* call, CUptiResult r) {
  const char* s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) s = "unknown CUPTI error";
  return std::string(call) + ": " + s + " (" + std::to_string(static_cast<int>(r)) + ")";
}

/// Records a failure and detaches: every activity kind disabled, later buffers ignored. Under g_mutex.
void fail_locked(const std::string& what) {
  if (g_recorder) {
    g_recorder->error(what);
    g_recorder->waits_unavailable("the profiler detached: " + what);
    g_recorder->unit_range_unavailable("the profiler detached: " + what);
  }
  if (g_detached) return;
  g_detached = true;
  for (const Kind& k : kKinds) cuptiActivityDisable(k.kind);
  cuptiActivityDisable(kWaitsKind.kind);
  stop_wait_callbacks();
}

/// The host waits the callbacks recorded since the last call, into the recorder. Under g_mutex.
void take_callback_waits_locked() {
  if (!g_recorder) return;
  for (const auto& [start, end] : take_waits()) g_recorder->host_wait(start, end);
  for (const auto& [start, end] : take_ranges()) g_recorder->unit_range_span(start, end);
}

/// The callbacks staged kStagedWaits: into the recorder now (lock order: g_mutex, then the staging's).
void take_callback_waits() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_detached) take_callback_waits_locked();
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  void* p = nullptr;
  if (::posix_memalign(&p, kAlign, kBufferBytes) != 0) p = nullptr;
  *buffer = static_cast<uint8_t*>(p);
  *size = p ? kBufferBytes : 0;  // no buffer: CUPTI drops records and says how many
}

/// A synchronous copy to or from host memory: cudaMemcpy and its kin return once it is done, so the host
/// waited for it (a synchronous copy between devices does not make the host wait).
bool host_waited_for(const CUpti_ActivityMemcpy6& m) {
  if (m.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) return false;
  switch (m.copyKind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return true;
    default:
      return false;
  }
}

void take(const CUpti_Activity* r, ProfileRecorder& rec) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      KernelLaunch l;
      KernelShape& shape = l.shape;
      shape.name = k->name ? k->name : "?";
      shape.device = k->deviceId;
      shape.grid[0] = k->gridX, shape.grid[1] = k->gridY, shape.grid[2] = k->gridZ;
      shape.block[0] = k->blockX, shape.block[1] = k->blockY, shape.block[2] = k->blockZ;
      shape.registers = k->registersPerThread;
      shape.static_smem = k->staticSharedMemory;
      shape.dynamic_smem = k->dynamicSharedMemory;
      l.start_ns = k->start;
      l.end_ns = k->end;
      rec.kernel(l);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      if (host_waited_for(*m))
        rec.sync_copy(m->start, m->end, m->bytes);
      else
        rec.copy(m->start, m->end, m->bytes);
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(r);
      // cudaStreamWaitEvent makes a stream, not the host, wait: no host wait.
      if (s->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE ||
          s->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE ||
          s->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE)
        rec.host_wait(s->start, s->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      rec.memset(m->start, m->end, m->bytes);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(r);
      if (m->memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) break;
      if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
        rec.memory(m->deviceId, true, m->bytes);
      else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        rec.memory(m->deviceId, false, m->bytes);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(r);
      DeviceLimits l;
      l.id = d->id;
      l.name = d->name ? d->name : "?";
      l.sm_count = d->numMultiprocessors;
      l.warp_size = d->numThreadsPerWarp ? d->numThreadsPerWarp : 32;
      l.max_warps_per_sm = d->maxWarpsPerMultiprocessor;
      l.max_blocks_per_sm = d->maxBlocksPerMultiprocessor;
      l.regs_per_sm = d->maxRegistersPerMultiprocessor;
      l.max_regs_per_block = d->maxRegistersPerBlock;
      l.smem_per_sm = d->maxSharedMemoryPerMultiprocessor;
      l.smem_per_block = d->maxSharedMemoryPerBlock;
      l.cc_major = d->computeCapabilityMajor;
      l.cc_minor = d->computeCapabilityMinor;
      l.memory_bytes = d->globalMemorySize;
      rec.device(l);
      break;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto* c = reinterpret_cast<const CUpti_ActivityContext3*>(r);
      rec.context(c->contextId, c->deviceId, c->numMultiprocessors, c->isGreenContext != 0);
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_recorder && !g_detached && buffer) {
      CUpti_Activity* record = nullptr;
      for (;;) {
        const CUptiResult r = cuptiActivityGetNextRecord(buffer, valid, &record);
        if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
        if (r != CUPTI_SUCCESS) {
          fail_locked(cupti_text("cuptiActivityGetNextRecord", r));
          break;
        }
        take(record, *g_recorder);
      }
      take_callback_waits_locked();
      size_t dropped = 0;
      if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
        g_recorder->dropped_records(dropped);
    }
  }
  std::free(buffer);
}

std::string read_cmdline() {
  std::string text;
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[512];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 && text.size() < 512) text.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  if (text.size() > 512) text.resize(512);
  for (char& c : text)
    if (c == '\0') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// profile-<pid>.json in `dir`, written whole to a .tmp file first, then renamed into place.
void write_profile(const std::string& text) {
  const char* env = std::getenv("BENCH_MPS_PROFILE_DIR");
  const std::string dir = env && *env ? env : ".";
  const std::string path = dir + "/profile-" + std::to_string(::getpid()) + ".json";
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const char* why = nullptr;
  if (fd < 0) {
    why = "cannot create";
  } else {
    const bool ok = write_all(fd, text);
    if (::close(fd) != 0 || !ok)
      why = "cannot write";
    else if (::rename(tmp.c_str(), path.c_str()) != 0)
      why = "cannot rename into place";
    if (why) ::unlink(tmp.c_str());
  }
  if (why) {  // said on stderr: the one place left to say it, and the program's own output is untouched otherwise
    const std::string line = "bench_mps profiler: " + std::string(why) + " " + tmp + ": " + std::strerror(errno) + "\n";
    if (::write(2, line.data(), line.size()) < 0) return;
  }
}

/// CLOCK_MONOTONIC in `ns`; false (and `error`: errno) where it cannot be read.
bool monotonic_now(std::int64_t& ns, int& error) {
  timespec ts{};
  if (::clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
    error = errno;
    return false;
  }
  ns = static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
  return true;
}

/// CUPTI's clock now and where CLOCK_MONOTONIC stood at it: the closest of three CUPTI readings
/// between two monotonic ones; `why` names the call that failed ("" where none did).
struct ClockReading {
  std::uint64_t cupti_ns = 0;  ///< 0 where CUPTI's clock cannot be read
  std::int64_t monotonic_ns = 0, spread_ns = -1;
  std::string why;
};

ClockReading read_clocks() {
  ClockReading c;
  for (int i = 0; i < 3; ++i) {
    std::int64_t before = 0, after = 0;
    uint64_t t = 0;
    int error = 0;
    const bool first = monotonic_now(before, error);
    const CUptiResult r = cuptiGetTimestamp(&t);
    if (r != CUPTI_SUCCESS) {
      c.why = cupti_text("cuptiGetTimestamp", r);
      return c;
    }
    if (!first || !monotonic_now(after, error)) {
      c.cupti_ns = t;
      c.why = std::string("clock_gettime(CLOCK_MONOTONIC): ") + std::strerror(error);
      return c;
    }
    if (c.spread_ns < 0 || after - before < c.spread_ns) {
      c.cupti_ns = t;
      c.monotonic_ns = before + (after - before) / 2;
      c.spread_ns = after - before;
    }
  }
  return c;
}

/// `c` as the recorder's anchor, or the reason it has none.
void anchor(ProfileRecorder& rec, const ClockReading& c) {
  if (c.why.empty())
    rec.monotonic_anchor(c.cupti_ns, c.monotonic_ns, c.spread_ns);
  else
    rec.monotonic_unavailable(c.why);
}

void at_exit() {
  CUptiResult flushed = CUPTI_SUCCESS;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_recorder) return;
  }
  flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // calls buffer_completed: not under the lock
  stop_wait_callbacks();
  std::string text;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    take_callback_waits_locked();
    if (flushed != CUPTI_SUCCESS) g_recorder->error(cupti_text("cuptiActivityFlushAll", flushed));
    ProcessFacts p;
    p.pid = ::getpid();
    p.ppid = ::getppid();
    p.command = read_cmdline();
    const ClockReading end = read_clocks();
    anchor(*g_recorder, end);
    text = g_recorder->json(end.cupti_ns, p);
  }
  write_profile(text);
}

RecorderLimits limits_from_env() {
  RecorderLimits l;
  if (const char* v = std::getenv("BENCH_MPS_PROFILE_MIN_GAP_NS")) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    if (end != v && *end == '\0') l.min_gap_ns = n;
  }
  return l;
}

/// Where host waits come from: CUPTI callbacks on the synchronising calls alone (the default, "callbacks",
/// wait_callbacks.hpp), CUPTI's synchronisation records ("activity": the same waits on the PyTorch client,
/// at about +7 % of its step where the callbacks cost about +1 %, results/2026-11-26-profile lease H), or
/// nowhere ("0"): BENCH_MPS_PROFILE_WAITS, so that what each costs can be measured apart
/// (scripts/device_check.sh profilevariants). Any other value is the default.
enum class WaitsSource { activity, callbacks, off };
/// The source chosen and, in words, for the profile's waits_source (an unknown value is said there).
std::pair<WaitsSource, std::string> waits_source() {
  const char* v = std::getenv("BENCH_MPS_PROFILE_WAITS");
  const std::string value = v ? v : "";
  if (value == "0") return {WaitsSource::off, "none (BENCH_MPS_PROFILE_WAITS=0)"};
  if (value == "activity")
    return {WaitsSource::activity, "CUPTI's synchronisation records (BENCH_MPS_PROFILE_WAITS=activity)"};
  const std::string words = "callbacks on the synchronising calls";
  if (value.empty() || value == "callbacks") return {WaitsSource::callbacks, words};
  return {WaitsSource::callbacks,
          words + " (BENCH_MPS_PROFILE_WAITS='" + value.substr(0, 40) + "' is none of 0, activity, callbacks)"};
}

/// The start gate this copy passes, from the harness's environment (no file: none).
struct GateConfig {
  std::string file;
  int slot = 0;
  GatePoint point;
};
GateConfig g_gate;

/// Says on stderr why the copy was not held (the one place left to say it; the harness notes the copy as
/// never having arrived).
void say_gate_problem(const std::string& why) {
  const std::string line = "bench_mps start gate: " + why + "; this copy is not held\n";
  if (::write(2, line.data(), line.size()) < 0) return;
}

/// Says on stderr what went wrong after the copy passed the gate (it was held and released as the others).
void say_after_gate(const std::string& why) {
  const std::string line = "bench_mps start gate: " + why + "\n";
  if (::write(2, line.data(), line.size()) < 0) return;
}

void hold_at_gate() {
  const std::string why = gate_arrive(g_gate.file, g_gate.slot);
  if (!why.empty()) say_gate_problem(why);
}

/// The gate from BENCH_MPS_GATE_FILE, _POINT and the copy's BENCH_MPS_WORKER_INDEX (none where unset or
/// malformed: said on stderr).
GateConfig gate_from_env() {
  GateConfig c;
  const char* file = std::getenv(kGateFileVar);
  if (!file || !*file) return c;
  const char* point = std::getenv(kGatePointVar);
  const char* slot = std::getenv(kGateSlotVar);
  std::uint64_t k = 0;
  if (!point || !parse_gate_point(point, k)) {
    say_gate_problem(std::string(kGatePointVar) + "='" + (point ? point : "") + "' is neither first-kernel nor wait:K");
    return c;
  }
  char* end = nullptr;
  const long index = slot ? std::strtol(slot, &end, 10) : -1;
  if (!slot || end == slot || *end != '\0' || index < 0) {
    say_gate_problem(std::string(kGateSlotVar) + " does not name the copy");
    return c;
  }
  c.file = file;
  c.slot = static_cast<int>(index);
  gate_attach(c.file, c.slot);  // CUDA started here: a copy that ends before the point is told from one without CUDA
  c.point.hold = hold_at_gate;
  c.point.wait_k = k;
  const char* set = std::getenv(kGateCallbacksVar);
  const std::string callbacks = set ? set : "";
  if (!is_gate_callbacks(callbacks))  // bench_mps refuses it before a copy starts; a copy run by hand says so here
    say_after_gate(std::string(kGateCallbacksVar) + "='" + callbacks.substr(0, 40) +
                   "' is none of detach, unsubscribe, keep: the gate detaches CUPTI once it opens");
  if (callbacks == "keep") c.point.after = AfterGate::keep;
  if (callbacks == "unsubscribe") c.point.after = AfterGate::unsubscribe;
  c.point.say = say_after_gate;
  return c;
}

/// The NVTX range the profile follows (BENCH_MPS_UNIT_RANGE; "" where none is asked).
std::string unit_range_from_env() {
  const char* v = std::getenv(kUnitRangeVar);
  return v ? std::string(v).substr(0, kUnitRangeNameMax) : std::string();
}

/// The NVTX callbacks on the host waits' subscriber, or why the range's occurrences are not recorded.
void start_unit_range() {
  const char* failed = "";
  const CUptiResult r = start_nvtx_callbacks(failed);
  if (r != CUPTI_SUCCESS) g_recorder->unit_range_unavailable(cupti_text(failed, r));
}

/// The gate alone: callbacks that find its point, no activity, no profile.
void start_gate_only() {
  const char* failed = "";
  const CUptiResult r = start_wait_callbacks(failed, nullptr, false, g_gate.point);
  if (r != CUPTI_SUCCESS) say_gate_problem(cupti_text(failed, r));
}

/// The gate's callbacks beside a profile whose records all come from CUPTI's activity (host waits from the
/// synchronisation records, or none): CUPTI stays attached for them, so a gate asked to detach once it opens
/// unsubscribes its callbacks instead (cuptiFinalize would end the profile there: meta.json says "profile").
void start_gate_beside_profile() {
  if (g_gate.point.after == AfterGate::detach) g_gate.point.after = AfterGate::unsubscribe;
  start_gate_only();
}

}  // namespace
}  // namespace bench_mps::profiler

/// Called by the CUDA driver once, when the program initialises CUDA; 1 means loaded.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace bench_mps::profiler;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_recorder) return 1;
  g_gate = gate_from_env();
  const char* profile_dir = std::getenv("BENCH_MPS_PROFILE_DIR");
  if (g_gate.point.hold && !(profile_dir && *profile_dir)) {
    start_gate_only();
    return 1;
  }
  const ClockReading start = read_clocks();
  g_recorder = new (std::nothrow) ProfileRecorder(limits_from_env(), start.cupti_ns);
  if (!g_recorder) return 1;  // no memory for it: the program runs unprofiled
  anchor(*g_recorder, start);
  if (std::atexit(at_exit) != 0) {
    fail_locked("atexit: cannot register the profile's writer");
    if (g_gate.point.hold) start_gate_only();  // the profile failed: the gate still holds
    return 1;
  }
  const CUptiResult reg = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (reg != CUPTI_SUCCESS) {
    fail_locked(cupti_text("cuptiActivityRegisterCallbacks", reg));
    if (g_gate.point.hold) start_gate_only();  // the profile failed: the gate still holds
    return 1;
  }
  for (const Kind& k : kKinds) {
    const CUptiResult r = cuptiActivityEnable(k.kind);
    if (r != CUPTI_SUCCESS) {
      fail_locked(cupti_text(enable_call(k).c_str(), r));
      if (g_gate.point.hold) start_gate_only();  // the profile failed: the gate still holds
      return 1;
    }
  }
  const auto [source, source_words] = waits_source();
  g_recorder->waits_source(source_words);
  const std::string unit_range = unit_range_from_env();
  g_recorder->unit_range(unit_range);
  follow_nvtx_range(unit_range);
  if (!unit_range.empty() && source != WaitsSource::callbacks)
    g_recorder->unit_range_unavailable("NVTX ranges come through the host waits' callbacks, not kept with " +
                                       source_words);
  switch (source) {
    case WaitsSource::off:
      g_recorder->waits_unavailable("host waits not recorded (BENCH_MPS_PROFILE_WAITS=0)");
      if (g_gate.point.hold) start_gate_beside_profile();
      break;
    case WaitsSource::callbacks: {
      const char* failed = "";
      const CUptiResult r = start_wait_callbacks(failed, take_callback_waits, true, g_gate.point);
      if (r != CUPTI_SUCCESS) {
        g_recorder->waits_unavailable(cupti_text(failed, r));
        g_recorder->unit_range_unavailable(cupti_text(failed, r));
        if (g_gate.point.hold) say_gate_problem(cupti_text(failed, r));
      } else if (!unit_range.empty()) {
        start_unit_range();
      }
      break;
    }
    case WaitsSource::activity: {
      const CUptiResult r = cuptiActivityEnable(kWaitsKind.kind);
      if (r != CUPTI_SUCCESS) g_recorder->waits_unavailable(cupti_text(enable_call(kWaitsKind).c_str(), r));
      if (g_gate.point.hold) start_gate_beside_profile();
      break;
    }
  }
  return 1;
}

/// Called by NVTX once, at the program's first NVTX call, where NVTX_INJECTION64_PATH names this library (the
/// harness names it with --exec-unit-range): hands over to CUPTI's own, in the libcupti this library is linked
/// to, so that CUPTI's NVTX callbacks see the program's ranges. 0 (NVTX then stays off) where it cannot be found.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(void* get_export_table) {
  Dl_info cupti{};
  if (::dladdr(reinterpret_cast<void*>(&cuptiGetTimestamp), &cupti) == 0 || !cupti.dli_fname) return 0;
  void* library = ::dlopen(cupti.dli_fname, RTLD_NOW | RTLD_NOLOAD);  // kept open: CUPTI stays loaded anyway
  if (!library) return 0;
  using Init = int (*)(void*);
  const auto init = reinterpret_cast<Init>(::dlsym(library, "InitializeInjectionNvtx2"));
  return init ? init(get_export_table) : 0;
}
