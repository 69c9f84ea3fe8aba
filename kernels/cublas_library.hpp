#pragma once
// cuBLAS, loaded at run time (dlopen) the first time a workload needs it. Linked at build time, the
// 540 MB libcublasLt was mapped, relocated and initialised in every worker: about 0.4 s of CPU per
// process start, paid also by the workloads that never call it (spin, membw, filler, cpu). Only the
// mlp workloads call cuBLAS; the signatures below come from cublas_v2.h itself.
#include <cublas_v2.h>

namespace bench_mps::kernels {

/// The cuBLAS entry points the workloads use. Members are the library's own functions.
struct CublasLibrary {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetWorkspace_v2) set_workspace = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasSgemv_v2) sgemv = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

/// Loads libcublas.so.<major of the headers built against> once (thread-safe): from the usual search
/// path (LD_LIBRARY_PATH, the loader's cache), else from the toolkit's library folder found at build
/// time. Throws cuda_error naming the library and why it could not be loaded or lacks a symbol.
const CublasLibrary& cublas();

}  // namespace bench_mps::kernels
