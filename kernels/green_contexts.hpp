#pragma once
// Green contexts (CUDA 12.4+ driver API): the device's SMs split into disjoint groups, one group per
// workload instance of the `green` mode, each reached through a stream of its own. The driver's
// entry points are looked up at run time (cudaGetDriverEntryPointByVersion), so a driver without
// green contexts gives a clear error instead of a binary that does not load.
//
// What the split guarantees (cuda.h): disjoint SM partitions of at least `min_partition_sms` SMs, a
// multiple of `alignment_sms` (8 and 8 on Hopper); not that the groups' kernels run concurrently
// (other resources, such as hardware queues, may still serialise them) and, under MPS with an
// active-thread limit, kernels may use more SMs than provisioned.
#include <memory>
#include <vector>

namespace bench_mps::kernels {

class GreenContexts {
 public:
  /// Splits device 0's SMs into `groups` partitions of `sms_each` SMs (0: the largest equal share the
  /// partition granularity allows). Throws cuda_error naming the driver's limits when it cannot.
  GreenContexts(int groups, int sms_each);
  ~GreenContexts();
  GreenContexts(const GreenContexts&) = delete;
  GreenContexts& operator=(const GreenContexts&) = delete;

  int groups() const;
  /// SMs of partition `i`, as the driver provisioned them.
  int sms(int i) const;
  int device_sms() const;
  /// Makes partition i's context current in the calling thread and returns its stream (a cudaStream_t).
  void* enter(int i);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bench_mps::kernels
