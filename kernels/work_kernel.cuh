#pragma once
// Fixed GPU work for the regime workloads (duty, xray): every thread runs a dependent FMA chain of a
// set length. Unlike spin's clock deadline, the work is conserved: a kernel preempted by a time slice
// resumes where it stopped and still has all of its chain to run.
#include <cuda_runtime.h>

#include <cstdint>

namespace bench_mps::kernels {

/// SM cycles one link of the chain takes with `threads` threads in one block: the fastest of a few
/// short calibration kernels on `stream` (clock64 around the chain; a slice taken from one of them
/// only makes it slower, so the minimum is the SM's own rate).
double work_cycles_per_iteration(int threads, cudaStream_t stream);

/// Chain length for `us` microseconds of work at the device's peak SM clock `clock_khz`.
long long work_iterations(double us, int clock_khz, double cycles_per_iteration);

/// Launches `blocks` x `threads` threads that each run `iterations` links of the chain.
void launch_work(long long iterations, int blocks, int threads, cudaStream_t stream);

/// The same, one block, and thread 0 writes the GPU clock (%globaltimer, ns) at its start and end to
/// `stamps[0]`, `stamps[1]` (device-visible host memory: the host reads them after the sync).
void launch_stamped_work(long long iterations, int threads, std::uint64_t* stamps, cudaStream_t stream);

}  // namespace bench_mps::kernels
