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
thread_local std::uint64_t t_enter_ns = 0;
thread_local int t_depth = 0;  // a runtime synchronize may call the driver's: the outermost call is the wait

struct Site {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId id;
};
const Site kSites[] = {
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

void CUPTIAPI on_sync(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  if (!g_recording.load(std::memory_order_relaxed)) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  std::uint64_t t = 0;
  if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS) return;
  if (info->callbackSite == CUPTI_API_ENTER) {
    if (t_depth++ == 0) t_enter_ns = t;
    return;
  }
  if (t_depth == 0 || --t_depth > 0) return;
  bool full = false;
  {
    std::lock_guard<std::mutex> lock(g_waits_mutex);
    g_waits.emplace_back(t_enter_ns, t);
    full = g_waits.size() >= kStagedWaits;
  }
  if (full && g_on_full) g_on_full();
}

}  // namespace

CUptiResult start_wait_callbacks(const char*& failed, void (*on_full)()) {
  g_on_full = on_full;
  CUptiResult r = cuptiSubscribe(&g_subscriber, on_sync, nullptr);
  if (r != CUPTI_SUCCESS) {
    failed = "cuptiSubscribe";
    g_subscriber = nullptr;
    return r;
  }
  for (const Site& s : kSites) {
    r = cuptiEnableCallback(1, g_subscriber, s.domain, s.id);
    if (r != CUPTI_SUCCESS) {
      failed = "cuptiEnableCallback";
      stop_wait_callbacks();
      return r;
    }
  }
  g_recording = true;
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
