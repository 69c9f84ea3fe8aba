#include "harness/profiler/nvtx_ranges.hpp"

#include <generated_nvtx_meta.h>

#include <cstring>
#include <map>
#include <mutex>
#include <set>

namespace bench_mps::profiler {
namespace {

std::string g_name;  // set before the callbacks are enabled, read only after
std::mutex g_mutex;  // the staging, the open start/end ranges, the registered names
std::vector<std::pair<std::uint64_t, std::uint64_t>> g_closed;
std::map<nvtxRangeId_t, std::uint64_t> g_started;  // start/end ranges of the name, open
std::set<const void*> g_registered;                // registered strings that are the name
/// Open start/end ranges kept at most: a program that starts ranges and never ends them stays bounded.
constexpr std::size_t kMaxOpenStarted = 4096;

/// One open push/pop range of this thread: its domain (null: the plain API's), whether it is the name, when.
struct Pushed {
  const void* domain;
  bool named;
  std::uint64_t start_ns;
};
thread_local std::vector<Pushed> t_pushed;
/// Pushes kept open at most per thread (deeper ones are counted, not kept: their pops match nothing).
constexpr std::size_t kMaxDepth = 1024;
thread_local std::size_t t_too_deep = 0;

const std::vector<CUpti_CallbackId> kSites = {CUPTI_CBID_NVTX_nvtxRangePushA,
                                              CUPTI_CBID_NVTX_nvtxRangePushW,
                                              CUPTI_CBID_NVTX_nvtxRangePushEx,
                                              CUPTI_CBID_NVTX_nvtxRangePop,
                                              CUPTI_CBID_NVTX_nvtxRangeStartA,
                                              CUPTI_CBID_NVTX_nvtxRangeStartW,
                                              CUPTI_CBID_NVTX_nvtxRangeStartEx,
                                              CUPTI_CBID_NVTX_nvtxRangeEnd,
                                              CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
                                              CUPTI_CBID_NVTX_nvtxDomainRangePop,
                                              CUPTI_CBID_NVTX_nvtxDomainRangeStartEx,
                                              CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
                                              CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
                                              CUPTI_CBID_NVTX_nvtxDomainRegisterStringW};

bool is_name(const char* s) { return s && g_name == s; }
bool is_name(const wchar_t* s) {
  if (!s) return false;
  std::size_t i = 0;
  for (; s[i] != 0 && i < g_name.size(); ++i)
    if (s[i] != static_cast<wchar_t>(static_cast<unsigned char>(g_name[i]))) return false;
  return s[i] == 0 && i == g_name.size();
}

bool is_name(const nvtxEventAttributes_t* a) {
  if (!a) return false;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return is_name(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
      return is_name(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: {
      std::lock_guard<std::mutex> lock(g_mutex);
      return g_registered.count(a->message.registered) > 0;
    }
    default:
      return false;
  }
}

std::uint64_t now() {
  std::uint64_t t = 0;
  return cuptiGetTimestamp(&t) == CUPTI_SUCCESS ? t : 0;
}

/// Keeps a closed occurrence; true where the staging is full.
bool close(std::uint64_t start, std::uint64_t end) {
  if (start == 0 || end < start) return false;  // a clock that could not be read
  std::lock_guard<std::mutex> lock(g_mutex);
  g_closed.emplace_back(start, end);
  return g_closed.size() >= kStagedRanges;
}

void push(const void* domain, bool named) {
  if (t_pushed.size() >= kMaxDepth) {
    ++t_too_deep;
    return;
  }
  t_pushed.push_back({domain, named, named ? now() : 0});
}

/// The innermost open push of `domain` closes (NVTX keeps one stack per domain and thread).
bool pop(const void* domain) {
  if (t_too_deep > 0) {
    --t_too_deep;
    return false;
  }
  for (auto it = t_pushed.rbegin(); it != t_pushed.rend(); ++it)
    if (it->domain == domain) {
      const Pushed p = *it;
      t_pushed.erase(std::next(it).base());
      return p.named && close(p.start_ns, now());
    }
  return false;
}

void start(const nvtxRangeId_t* id, bool named) {
  if (!named || !id) return;
  const std::uint64_t t = now();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_started.size() < kMaxOpenStarted) g_started[*id] = t;
}

bool end(nvtxRangeId_t id) {
  std::uint64_t start_ns = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = g_started.find(id);
    if (it == g_started.end()) return false;
    start_ns = it->second;
    g_started.erase(it);
  }
  return close(start_ns, now());
}

void registered(const void* handle, bool named) {
  if (!named || !handle) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_registered.insert(handle);
}

template <typename P>
const P& params(const CUpti_NvtxData* d) {
  return *static_cast<const P*>(d->functionParams);
}

}  // namespace

void follow_nvtx_range(const std::string& name) { g_name = name; }

const std::vector<CUpti_CallbackId>& nvtx_range_sites() { return kSites; }

bool on_nvtx_call(CUpti_CallbackId id, const void* data) {
  const auto* d = static_cast<const CUpti_NvtxData*>(data);
  if (g_name.empty() || !d || !d->functionParams) return false;
  const auto* returned_id = static_cast<const nvtxRangeId_t*>(d->functionReturnValue);
  switch (id) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      push(nullptr, is_name(params<nvtxRangePushA_params>(d).message));
      return false;
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      push(nullptr, is_name(params<nvtxRangePushW_params>(d).message));
      return false;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      push(nullptr, is_name(params<nvtxRangePushEx_params>(d).eventAttrib));
      return false;
    case CUPTI_CBID_NVTX_nvtxRangePop:
      return pop(nullptr);
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto& p = params<nvtxDomainRangePushEx_params>(d);
      push(p.domain, is_name(p.core.eventAttrib));
      return false;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      return pop(params<nvtxDomainRangePop_params>(d).domain);
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
      start(returned_id, is_name(params<nvtxRangeStartA_params>(d).message));
      return false;
    case CUPTI_CBID_NVTX_nvtxRangeStartW:
      start(returned_id, is_name(params<nvtxRangeStartW_params>(d).message));
      return false;
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
      start(returned_id, is_name(params<nvtxRangeStartEx_params>(d).eventAttrib));
      return false;
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
      start(returned_id, is_name(params<nvtxDomainRangeStartEx_params>(d).core.eventAttrib));
      return false;
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
      return end(params<nvtxRangeEnd_params>(d).id);
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
      return end(params<nvtxDomainRangeEnd_params>(d).core.id);
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
      if (d->functionReturnValue)
        registered(*static_cast<const nvtxStringHandle_t*>(d->functionReturnValue),
                   is_name(params<nvtxDomainRegisterStringA_params>(d).string));
      return false;
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringW:
      if (d->functionReturnValue)
        registered(*static_cast<const nvtxStringHandle_t*>(d->functionReturnValue),
                   is_name(reinterpret_cast<const wchar_t*>(params<nvtxDomainRegisterStringW_params>(d).string)));
      return false;
    default:
      return false;
  }
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> take_ranges() {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::lock_guard<std::mutex> lock(g_mutex);
  out.swap(g_closed);
  return out;
}

}  // namespace bench_mps::profiler
