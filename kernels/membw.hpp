#pragma once
// `membw`: a memory-bound workload, STREAM's triad a[i] = b[i] + s * c[i] over three device arrays
// of `mib` MiB each (far beyond the L2 cache), read and written with 16-byte accesses by a
// grid-stride kernel that fills the GPU. A task is `iters` triads, then a sync; it moves
// 3 x mib MiB per triad (two arrays read, one written).
//
// Expected bounds: alone, a task runs near the DRAM bandwidth (on an H100 a well-written triad
// reaches 85-90% of its 3.35 TB/s peak). N processes share one DRAM, so neither time-slicing nor MPS
// can give them more than that together: time-sliced each task takes about N times as long, and
// under MPS too (the clients fight for bandwidth, not for SMs), so MPS gains little over
// time-slicing here: the regime where spatial sharing cannot help.
#include <cstddef>
#include <memory>

#include "kernels/workload.hpp"

namespace bench_mps::kernels {

struct MembwParams {
  int mib = 256;      ///< size of each of the three arrays, MiB
  int iters = 20;     ///< triads per task
  int blocks = 0;     ///< thread blocks per launch; 0: 4 per SM of the device
  int threads = 256;  ///< threads per block
};

/// Bytes one task moves to and from DRAM: iters x 3 arrays x mib MiB.
inline double membw_bytes_per_task(const MembwParams& p) {
  return static_cast<double>(p.iters) * 3.0 * static_cast<double>(p.mib) * 1024.0 * 1024.0;
}

/// Peak DRAM bandwidth of the current device in bytes/s: memory clock x bus width x 2 (double data rate).
double device_peak_dram_bytes_per_s();

std::unique_ptr<Workload> make_membw_workload(const MembwParams& params);

}  // namespace bench_mps::kernels
