#pragma once
// What a worker's CUDA context sees of the device: created once per worker before the workload's
// setup, reported to the harness in the READY line.
#include <string>

namespace bench_mps::kernels {

struct DeviceContextInfo {
  std::string name;
  int sm_count = 0;            ///< multiprocessors this context sees (MPS limits can lower it)
  bool mps_enabled = false;    ///< cudaDevAttrMpsEnabled: contexts on this device are MPS clients
  int clock_khz = 0;           ///< peak SM clock
  int runtime_version = 0;     ///< e.g. 13000
  int driver_version = 0;      ///< CUDA version the driver supports, e.g. 13000
  std::size_t free_bytes = 0;  ///< device memory free once the context exists
  std::size_t total_bytes = 0;
};

/// Selects device 0 (after CUDA_VISIBLE_DEVICES), creates the context and reads its facts.
DeviceContextInfo open_device_context();

/// Device memory free right now, in bytes.
std::size_t device_free_bytes();

}  // namespace bench_mps::kernels
