// The start gate: see start_gate.hpp.
#include "harness/profiler/start_gate.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace bench_mps::profiler {
namespace {

constexpr std::uint64_t kMagic = 0x6574616753504d42ULL;  // "BMPSgate"
constexpr int kMaxCopies = 4096;

struct Slot {
  std::atomic<std::int32_t> state;
  std::int32_t pad;
  std::atomic<std::int64_t> pid, arrive_ns, release_ns, left_ns;
};

struct Shared {
  std::uint64_t magic;
  std::int32_t copies, pad;
  std::int64_t timeout_ns;
  std::atomic<std::uint32_t> word;  ///< the futex: 0 held, 1 open
  std::atomic<std::int32_t> release;
  std::atomic<std::int64_t> release_ns, first_arrive_ns;
  std::atomic<std::int32_t> arrived, left;
  Slot* slots() { return reinterpret_cast<Slot*>(this + 1); }
};
static_assert(std::atomic<std::int64_t>::is_always_lock_free && std::atomic<std::int32_t>::is_always_lock_free,
              "the gate's atomics are shared between processes: they must be lock-free");
static_assert(sizeof(Shared) % alignof(Slot) == 0, "the slots follow the header, aligned");

std::size_t bytes_for(int copies) { return sizeof(Shared) + sizeof(Slot) * static_cast<std::size_t>(copies); }

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

/// Opens the gate (once: the first cause stands) and wakes every waiter.
void open_gate(Shared& g, GateRelease cause) {
  std::int32_t held = 0;
  if (g.release.compare_exchange_strong(held, static_cast<std::int32_t>(cause))) g.release_ns.store(now_ns());
  g.word.store(1);
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&g.word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

/// Opens the gate when every copy has arrived or gone.
void open_if_complete(Shared& g) {
  const int arrived = g.arrived.load(), left = g.left.load();
  if (arrived + left >= g.copies) open_gate(g, left == 0 ? GateRelease::all_arrived : GateRelease::some_left);
}

/// A copy's mapping of the gate's file; empty `why` where it holds.
struct Mapping {
  Shared* g = nullptr;
  std::size_t bytes = 0;
  std::string why;
  explicit Mapping(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      why = "cannot open the gate " + path + ": " + std::strerror(errno);
      return;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(Shared))) {
      ::close(fd);
      why = "the gate " + path + " is not a gate's file";
      return;
    }
    bytes = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) {
      why = "cannot map the gate " + path + ": " + std::strerror(errno);
      return;
    }
    g = static_cast<Shared*>(p);
    if (g->magic != kMagic || g->copies < 1 || g->copies > kMaxCopies || bytes < bytes_for(g->copies)) {
      why = "the gate " + path + " is not a gate's file";
      ::munmap(p, bytes);
      g = nullptr;
    }
  }
  ~Mapping() {
    if (g) ::munmap(g, bytes);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
};

GateSlotReading read_slot(Slot& s) {
  GateSlotReading r;
  r.state = static_cast<GateSlotReading::State>(s.state.load());
  r.pid = s.pid.load();
  r.arrive_ns = s.arrive_ns.load();
  r.release_ns = s.release_ns.load();
  r.left_ns = s.left_ns.load();
  return r;
}

}  // namespace

const char* gate_release_words(GateRelease r) {
  switch (r) {
    case GateRelease::held:
      return "never opened";
    case GateRelease::all_arrived:
      return "every copy arrived";
    case GateRelease::some_left:
      return "opened once the copies that never arrived had ended";
    case GateRelease::timed_out:
      return "opened at the timeout, before every copy had arrived";
    case GateRelease::harness:
      return "opened by the harness";
  }
  return "?";
}

int GateReading::arrived() const {
  return static_cast<int>(std::count_if(
      slots.begin(), slots.end(), [](const GateSlotReading& s) { return s.state == GateSlotReading::State::arrived; }));
}

GateFile::GateFile(const std::string& dir, int copies, double timeout_s) {
  if (copies < 1 || copies > kMaxCopies) throw std::invalid_argument("a gate is for 1 to 4096 copies");
  std::string name = dir + "/bench_mps-gate-XXXXXX";
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot create the start gate in " + dir + ": " + std::strerror(errno));
  path_ = name;
  bytes_ = bytes_for(copies);
  const auto fail = [&](const char* what) {
    const std::string text = std::string(what) + " " + path_ + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(path_.c_str());
    throw std::runtime_error("cannot make the start gate: " + text);
  };
  if (::fchmod(fd, 0666) != 0) fail("fchmod");  // copies may run as another user (a Slurm or container job)
  if (::ftruncate(fd, static_cast<off_t>(bytes_)) != 0) fail("ftruncate");
  map_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    fail("mmap");
  }
  ::close(fd);
  auto* g = new (map_) Shared{};  // the file is zeros: every atomic starts at 0
  for (int i = 0; i < copies; ++i) new (g->slots() + i) Slot{};
  g->copies = copies;
  g->timeout_ns = static_cast<std::int64_t>(timeout_s * 1e9);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  g->magic = kMagic;
}

GateFile::~GateFile() {
  if (map_) {
    open_now();  // nobody stays held on a gate that is gone
    ::munmap(map_, bytes_);
  }
  ::unlink(path_.c_str());
}

GateReading GateFile::read() const {
  auto* g = static_cast<Shared*>(map_);
  GateReading r;
  r.copies = g->copies;
  r.release = static_cast<GateRelease>(g->release.load());
  r.release_ns = g->release_ns.load();
  for (int i = 0; i < g->copies; ++i) r.slots.push_back(read_slot(g->slots()[i]));
  return r;
}

void GateFile::open_now() {
  auto* g = static_cast<Shared*>(map_);
  if (g->word.load() == 0) open_gate(*g, GateRelease::harness);
}

bool is_gate_callbacks(const std::string& value) {
  return value.empty() || value == "keep" || value == "unsubscribe" || value == "detach";
}

std::string gate_callbacks_in_effect(const std::string& value) { return value.empty() ? "detach" : value; }

bool parse_gate_point(const std::string& text, std::uint64_t& wait_k) {
  wait_k = 0;
  if (text == "first-kernel") return true;
  if (text.rfind("wait:", 0) != 0 || text.size() == 5 || text.size() > 17) return false;
  const std::string digits = text.substr(5);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return false;
  wait_k = std::strtoull(digits.c_str(), nullptr, 10);
  return wait_k >= 1;
}

std::string gate_arrive(const std::string& path, int slot) {
  const Mapping m(path);
  if (!m.why.empty()) return m.why;
  Shared& g = *m.g;
  if (slot < 0 || slot >= g.copies)
    return "slot " + std::to_string(slot) + " is not one of the gate's " + std::to_string(g.copies);
  Slot& s = g.slots()[slot];
  const std::int64_t arrive = now_ns();
  std::int32_t none = 0;
  if (s.state.compare_exchange_strong(none, static_cast<std::int32_t>(GateSlotReading::State::arrived))) {
    s.pid.store(::getpid());
    s.arrive_ns.store(arrive);
    std::int64_t unset = 0;
    g.first_arrive_ns.compare_exchange_strong(unset, arrive);
    g.arrived.fetch_add(1);
    open_if_complete(g);
  } else if (none == static_cast<std::int32_t>(GateSlotReading::State::left)) {
    return "";  // its worker already counted it gone: the others do not wait for it
  }             // else another process of the same copy arrived first: this one waits with it
  for (;;) {
    if (g.word.load() != 0) break;
    const std::int64_t deadline = g.first_arrive_ns.load() + g.timeout_ns, now = now_ns();
    if (now >= deadline) {
      open_gate(g, GateRelease::timed_out);
      break;
    }
    const std::int64_t wait = std::min<std::int64_t>(deadline - now, 200'000'000);
    timespec ts{static_cast<time_t>(wait / 1000000000), static_cast<long>(wait % 1000000000)};
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&g.word), FUTEX_WAIT, 0, &ts, nullptr, 0);
  }
  std::int64_t unset = 0;
  s.release_ns.compare_exchange_strong(unset, now_ns());
  return "";
}

void gate_attach(const std::string& path, int slot) {
  const Mapping m(path);
  if (!m.why.empty() || slot < 0 || slot >= m.g->copies) return;
  std::int64_t none = 0;
  m.g->slots()[slot].pid.compare_exchange_strong(none, ::getpid());
}

GateSlotReading gate_leave(const std::string& path, int slot) {
  const Mapping m(path);
  if (!m.why.empty() || slot < 0 || slot >= m.g->copies) return {};
  Shared& g = *m.g;
  Slot& s = g.slots()[slot];
  std::int32_t none = 0;
  if (s.state.compare_exchange_strong(none, static_cast<std::int32_t>(GateSlotReading::State::left))) {
    s.left_ns.store(now_ns());
    g.left.fetch_add(1);
    open_if_complete(g);
  }
  return read_slot(s);
}

}  // namespace bench_mps::profiler
