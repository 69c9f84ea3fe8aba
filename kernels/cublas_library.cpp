#include "kernels/cublas_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/cuda_check.hpp"

#ifndef BENCH_MPS_CUBLAS_DIR
#define BENCH_MPS_CUBLAS_DIR ""
#endif

namespace bench_mps::kernels {
namespace {

template <typename Fn>
void resolve(void* lib, const char* symbol, const std::string& name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(lib, symbol));
  if (!out) throw cuda_error(name + " has no " + symbol + ": a cuBLAS older than the headers this was built with");
}

CublasLibrary load() {
  const std::string name = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string why = lib ? "" : dlerror();
  // Where the loader's search path lacks it: $CUDA_HOME, the toolkit this was built with, the usual place.
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/lib64");
  dirs.push_back(BENCH_MPS_CUBLAS_DIR);
  dirs.push_back("/usr/local/cuda/lib64");
  for (const std::string& dir : dirs) {
    if (lib) break;
    if (dir.empty()) continue;
    lib = dlopen((dir + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) why += "; " + std::string(dlerror());
  }
  if (!lib) throw cuda_error("cannot load cuBLAS (" + name + "), which the mlp workloads need: " + why);
  CublasLibrary api;  // the handle stays open for the life of the process
  resolve(lib, "cublasCreate_v2", name, api.create);
  resolve(lib, "cublasDestroy_v2", name, api.destroy);
  resolve(lib, "cublasSetStream_v2", name, api.set_stream);
  resolve(lib, "cublasSetWorkspace_v2", name, api.set_workspace);
  resolve(lib, "cublasSgemm_v2", name, api.sgemm);
  resolve(lib, "cublasSgemv_v2", name, api.sgemv);
  resolve(lib, "cublasGetStatusName", name, api.status_name);
  resolve(lib, "cublasGetStatusString", name, api.status_string);
  return api;
}

}  // namespace

const CublasLibrary& cublas() {
  static const CublasLibrary api = load();  // a throw leaves it unset: the next call tries again
  return api;
}

}  // namespace bench_mps::kernels
