#pragma once
// Which SMs a stream's kernels can run on, counted rather than assumed: a probe kernel of many short
// blocks records the id of the SM each block ran on (%smid). Under a green context the count is the
// context's partition; under an MPS active-thread limit, the SMs the limit leaves; otherwise all.
namespace bench_mps::kernels {

/// Distinct SMs the probe's blocks ran on, launched on `stream` (a cudaStream_t; null: the default
/// stream of the current context). Waits for the probe.
int count_sms_used(void* stream);

}  // namespace bench_mps::kernels
