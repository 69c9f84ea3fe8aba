#include "harness/profiler/wait_callbacks.hpp"

#include <atomic>
#include <mutex>

namespace bench_mps::profiler {
namespace {

std::mutex g_waits_mutex;  // apart from the recorder's: a wait never queues behind a buffer being read
std::vector<std::pair<std::uint64_t, std::uint64_t>> g_waits;
CUpti_SubscriberHandle g_subscriber = nullptr;
void (*g_on_full)() = nullptr;
std::atomic<bool> g_recording{false};
GatePoint g_gate;
std::atomic<std::uint64_t> g_waits_seen{0};  // outermost waits since CUDA's initialisation (the gate counts them)
std::atomic<bool> g_gate_passed{false};
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

/// The gate's hook, once per process (the first thread to reach the point; the others go on).
void pass_gate() {
  if (g_gate.hold && !g_gate_passed.exchange(true)) g_gate.hold();
}

void CUPTIAPI on_call(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (is_launch(domain, id)) {
    if (info->callbackSite == CUPTI_API_ENTER && g_gate.wait_k == 0) pass_gate();
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
  const bool count_waits = record_waits || (gate.hold && gate.wait_k > 0);
  CUptiResult r = cuptiSubscribe(&g_subscriber, on_call, nullptr);
  if (r != CUPTI_SUCCESS) {
    failed = "cuptiSubscribe";
    g_subscriber = nullptr;
    return r;
  }
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

std::vector<std::pair<std::uint64_t, std::uint64_t>> take_waits() {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::lock_guard<std::mutex> lock(g_waits_mutex);
  out.swap(g_waits);
  return out;
}

void stop_wait_callbacks() {
  g_recording = false;
  if (g_subscriber) cuptiUnsubscribe(g_subscriber);
  g_subscriber = nullptr;
}

}  // namespace bench_mps::profiler
