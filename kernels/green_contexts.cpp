// See green_contexts.hpp.
#include "kernels/green_contexts.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda_check.hpp"

namespace bench_mps::kernels {
namespace {

struct DriverApi {
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*get_dev_resource)(CUdevice, CUdevResource*, CUdevResourceType) = nullptr;
  CUresult (*split_by_count)(CUdevResource*, unsigned*, const CUdevResource*, CUdevResource*, unsigned,
                             unsigned) = nullptr;
  CUresult (*generate_desc)(CUdevResourceDesc*, CUdevResource*, unsigned) = nullptr;
  CUresult (*green_create)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned) = nullptr;
  CUresult (*green_destroy)(CUgreenCtx) = nullptr;
  CUresult (*ctx_from_green)(CUcontext*, CUgreenCtx) = nullptr;
  CUresult (*green_stream_create)(CUstream*, CUgreenCtx, unsigned, int) = nullptr;
  CUresult (*stream_destroy)(CUstream) = nullptr;
  CUresult (*ctx_set_current)(CUcontext) = nullptr;
  CUresult (*error_string)(CUresult, const char**) = nullptr;
};

template <typename F>
void load(F& fn, const char* symbol, unsigned version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  const cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &status);
  if (err != cudaSuccess || status != cudaDriverEntryPointSuccess || !p)
    throw cuda_error(std::string("green contexts: the driver has no ") + symbol + " (needs a CUDA 12.5+ driver)");
  fn = reinterpret_cast<F>(p);
}

DriverApi load_api() {
  DriverApi a;
  load(a.device_get, "cuDeviceGet", 2000);
  load(a.get_dev_resource, "cuDeviceGetDevResource", 12040);
  load(a.split_by_count, "cuDevSmResourceSplitByCount", 12040);
  load(a.generate_desc, "cuDevResourceGenerateDesc", 12040);
  load(a.green_create, "cuGreenCtxCreate", 12040);
  load(a.green_destroy, "cuGreenCtxDestroy", 12040);
  load(a.ctx_from_green, "cuCtxFromGreenCtx", 12040);
  load(a.green_stream_create, "cuGreenCtxStreamCreate", 12050);
  load(a.stream_destroy, "cuStreamDestroy", 4000);
  load(a.ctx_set_current, "cuCtxSetCurrent", 4000);
  load(a.error_string, "cuGetErrorString", 6000);
  return a;
}

}  // namespace

struct GreenContexts::Impl {
  DriverApi api;
  int device_sms = 0;
  std::vector<CUgreenCtx> contexts;
  std::vector<CUcontext> converted;
  std::vector<CUstream> streams;
  std::vector<int> sms;

  void check(CUresult r, const char* call) const {
    if (r == CUDA_SUCCESS) return;
    const char* text = nullptr;
    api.error_string(r, &text);
    throw cuda_error(std::string(call) + " failed: " + (text ? text : "unknown driver error") + " (" +
                     std::to_string(static_cast<int>(r)) + ")");
  }
};

GreenContexts::GreenContexts(int groups, int sms_each) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  BENCH_CUDA_CHECK(cudaSetDevice(0));
  BENCH_CUDA_CHECK(cudaFree(nullptr));  // the primary context first, as cuGreenCtxCreate advises
  m.api = load_api();
  CUdevice dev = 0;
  m.check(m.api.device_get(&dev, 0), "cuDeviceGet");
  CUdevResource all{};
  m.check(m.api.get_dev_resource(dev, &all, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
  m.device_sms = static_cast<int>(all.sm.smCount);
  const int align = static_cast<int>(all.sm.smCoscheduledAlignment > 0 ? all.sm.smCoscheduledAlignment : 1);
  const int minimum = static_cast<int>(all.sm.minSmPartitionSize);
  if (sms_each <= 0) sms_each = m.device_sms / groups / align * align;
  const std::string limits = std::to_string(m.device_sms) + " SMs, partitions of at least " + std::to_string(minimum) +
                             " SMs in steps of " + std::to_string(align);
  if (sms_each < minimum || sms_each * groups > m.device_sms)
    throw cuda_error("green contexts: cannot split into " + std::to_string(groups) + " x " + std::to_string(sms_each) +
                     " SMs (" + limits + ")");
  std::vector<CUdevResource> parts(static_cast<std::size_t>(groups));
  unsigned got = static_cast<unsigned>(groups);
  CUdevResource remaining{};
  m.check(m.api.split_by_count(parts.data(), &got, &all, &remaining, 0, static_cast<unsigned>(sms_each)),
          "cuDevSmResourceSplitByCount");
  if (static_cast<int>(got) < groups)
    throw cuda_error("green contexts: the driver made " + std::to_string(got) + " of " + std::to_string(groups) +
                     " partitions of " + std::to_string(sms_each) + " SMs (" + limits + ")");
  for (int i = 0; i < groups; ++i) {
    CUdevResourceDesc desc = nullptr;
    m.check(m.api.generate_desc(&desc, &parts[static_cast<std::size_t>(i)], 1), "cuDevResourceGenerateDesc");
    CUgreenCtx g = nullptr;
    m.check(m.api.green_create(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate");
    m.contexts.push_back(g);
    CUcontext c = nullptr;
    m.check(m.api.ctx_from_green(&c, g), "cuCtxFromGreenCtx");
    m.converted.push_back(c);
    CUstream s = nullptr;
    m.check(m.api.green_stream_create(&s, g, CU_STREAM_NON_BLOCKING, 0), "cuGreenCtxStreamCreate");
    m.streams.push_back(s);
    m.sms.push_back(static_cast<int>(parts[static_cast<std::size_t>(i)].sm.smCount));
  }
}

GreenContexts::~GreenContexts() {
  Impl& m = *impl_;
  for (CUstream s : m.streams) m.api.stream_destroy(s);  // best effort in a destructor
  for (CUgreenCtx g : m.contexts) m.api.green_destroy(g);
}

int GreenContexts::groups() const { return static_cast<int>(impl_->contexts.size()); }
int GreenContexts::sms(int i) const { return impl_->sms.at(static_cast<std::size_t>(i)); }
int GreenContexts::device_sms() const { return impl_->device_sms; }

void* GreenContexts::enter(int i) {
  Impl& m = *impl_;
  m.check(m.api.ctx_set_current(m.converted.at(static_cast<std::size_t>(i))), "cuCtxSetCurrent");
  return m.streams.at(static_cast<std::size_t>(i));
}

}  // namespace bench_mps::kernels
