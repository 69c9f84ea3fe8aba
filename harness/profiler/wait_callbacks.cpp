#include "harness/profiler/wait_callbacks.hpp"

#include "harness/profiler/nvtx_ranges.hpp"

#include <atomic>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

namespace bench_mps::profiler {
namespace {

std::mutex g_waits_mutex;  // apart from the recorder's: a wait never queues behind a buffer being read
std::vector<std::pair<std::uint64_t, std::uint64_t>> g_waits;
std::atomic<CUpti_SubscriberHandle> g_subscriber{nullptr};  // atomic: the gate's switch-off and exit may both stop
void (*g_on_full)() = nullptr;
std::atomic<bool> g_recording{false};
GatePoint g_gate;
std::atomic<std::uint64_t> g_waits_seen{0};  // outermost waits since CUDA's initialisation (the gate counts them)
std::atomic<bool> g_gate_passed{false};
bool g_gate_only = false;  // no waits recorded: once the gate has passed, nothing needs the callbacks
thread_local std::uint64_t t_enter_ns = 0;
thread_local int t_depth = 0;  // a runtime synchronize may call the driver's: the outermost call is the wait

struct Site {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId id;
};
const Site kSyncSites[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2},
};
/// The driver's launches (the runtime's go through them): a kernel, a cooperative one, a graph.
const CUpti_CallbackId kLaunchSites[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
                                         CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
                                         CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunch,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync};

bool is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return false;
  for (CUpti_CallbackId l : kLaunchSites)
    if (l == id) return true;
  return false;
}

/// With the gate alone, once it has opened (AfterGate::unsubscribe, or where cuptiFinalize failed): unsubscribes,
/// so the program's later waits and launches run without a CUPTI callback. From a thread of its own: CUPTI says
/// cuptiUnsubscribe is thread safe, not that a callback may call it. Where no thread can be made the callbacks stay
/// on (they only count).
void switch_off_after_gate() {
  try {
    std::thread([] { stop_wait_callbacks(); }).detach();
  } catch (const std::system_error&) {
  }
}

/// With the gate alone and AfterGate::detach: set once the gate has passed, taken by the first callback exit after.
std::atomic<bool> g_detach_due{false};

/// The gate's hook, once per process (the first thread to reach the point; the others go on).
void pass_gate() {
  if (!g_gate.hold || g_gate_passed.exchange(true)) return;
  g_gate.hold();
  if (!g_gate_only || g_gate.after == AfterGate::keep) return;
  if (g_gate.after == AfterGate::detach)
    g_detach_due = true;  // at this callback's exit (a wait's), or the launch's that passed it
  else
    switch_off_after_gate();
}

/// AfterGate::detach, at a callback's exit site: CUPTI leaves the process (its subscriber with it). Where
/// cuptiFinalize fails, the callbacks are switched off as by default, and why is said.
void detach_if_due() {
  // A load first: every wait's and launch's exit comes here, and most find nothing due (no write to share).
  if (!g_detach_due.load(std::memory_order_relaxed) || !g_detach_due.exchange(false)) return;
  CUpti_SubscriberHandle s = g_subscriber.exchange(nullptr);
  if (!s) return;  // stopped meanwhile (the program is exiting)
  const CUptiResult r = cuptiFinalize();
  if (r == CUPTI_SUCCESS) return;
  g_subscriber = s;
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
  if (g_gate.say)
    g_gate.say("cuptiFinalize after the gate: " + std::string(text) + "; its callbacks are switched off instead");
  switch_off_after_gate();
}

void CUPTIAPI on_call(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    if (on_nvtx_call(id, data) && g_on_full) g_on_full();
    return;
  }
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (is_launch(domain, id)) {
    if (info->callbackSite == CUPTI_API_ENTER && g_gate.wait_k == 0) pass_gate();
    if (info->callbackSite == CUPTI_API_EXIT) detach_if_due();
    return;
  }
  const bool recording = g_recording.load(std::memory_order_relaxed);
  std::uint64_t t = 0;
  if (recording && cuptiGetTimestamp(&t) != CUPTI_SUCCESS) return;
  if (info->callbackSite == CUPTI_API_ENTER) {
    if (t_depth++ == 0) t_enter_ns = t;
    return;
  }
  if (t_depth == 0 || --t_depth > 0) return;
  if (recording) {
    bool full = false;
    {
      std::lock_guard<std::mutex> lock(g_waits_mutex);
      g_waits.emplace_back(t_enter_ns, t);
      full = g_waits.size() >= kStagedWaits;
    }
    if (full && g_on_full) g_on_full();
  }
  if (g_gate.wait_k > 0 && g_waits_seen.fetch_add(1) + 1 == g_gate.wait_k) pass_gate();
  detach_if_due();
}

CUptiResult enable(CUpti_CallbackDomain domain, CUpti_CallbackId id, const char*& failed) {
  const CUptiResult r = cuptiEnableCallback(1, g_subscriber, domain, id);
  if (r != CUPTI_SUCCESS) failed = "cuptiEnableCallback";
  return r;
}

}  // namespace

CUptiResult start_wait_callbacks(const char*& failed, void (*on_full)(), bool record_waits, GatePoint gate) {
  g_on_full = on_full;
  g_gate = gate;
  g_gate_only = !record_waits;
  const bool count_waits = record_waits || (gate.hold && gate.wait_k > 0);
  CUpti_SubscriberHandle subscriber = nullptr;
  CUptiResult r = cuptiSubscribe(&subscriber, on_call, nullptr);
  if (r != CUPTI_SUCCESS) {
    failed = "cuptiSubscribe";
    return r;
  }
  g_subscriber = subscriber;
  if (count_waits)
    for (const Site& s : kSyncSites)
      if ((r = enable(s.domain, s.id, failed)) != CUPTI_SUCCESS) break;
  if (r == CUPTI_SUCCESS && gate.hold && gate.wait_k == 0)
    for (CUpti_CallbackId id : kLaunchSites)
      if ((r = enable(CUPTI_CB_DOMAIN_DRIVER_API, id, failed)) != CUPTI_SUCCESS) break;
  if (r != CUPTI_SUCCESS) {
    g_gate = {};
    stop_wait_callbacks();
    return r;
  }
  g_recording = record_waits;
  return CUPTI_SUCCESS;
}

CUptiResult start_nvtx_callbacks(const char*& failed) {
  if (!g_subscriber.load()) {
    failed = "cuptiSubscribe";
    return CUPTI_ERROR_NOT_INITIALIZED;
  }
  for (CUpti_CallbackId id : nvtx_range_sites())
    if (const CUptiResult r = enable(CUPTI_CB_DOMAIN_NVTX, id, failed); r != CUPTI_SUCCESS) return r;
  return CUPTI_SUCCESS;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> take_waits() {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::lock_guard<std::mutex> lock(g_waits_mutex);
  out.swap(g_waits);
  return out;
}

void stop_wait_callbacks() {
  g_recording = false;
  if (CUpti_SubscriberHandle s = g_subscriber.exchange(nullptr)) cuptiUnsubscribe(s);
}

}  // namespace bench_mps::profiler
