#pragma once
// `mlp-infer`: a latency-critical inference service, the foreground job of the interference
// scenario (tally-bench's BERT-beside-training case, shrunk to our MNIST-shaped MLP). Requests
// arrive at a fixed rate, open loop: request k arrives at t0 + k / rate whether or not the ones
// before it are done, and each is served (one forward pass of a `batch`-sample batch, replayed as
// a CUDA graph, waited for) as soon as the service is free. A task is one request; its time is its
// latency, from its arrival to its completion, so queueing behind a slow request counts.
//
// Expected: alone, a forward pass takes a few tens of microseconds and every request is served at
// once (latency ~ the forward pass). Beside other processes time-sliced, a request waits for the
// GPU's next slice (up to milliseconds); under MPS it runs beside them unless they fill the SMs.
#include <memory>

#include "kernels/mlp.hpp"
#include "kernels/workload.hpp"

namespace bench_mps::kernels {

struct MlpInferParams {
  double rate_per_s = 200;  ///< request arrival rate
  int batch = 32;           ///< samples per request
};

/// `mlp` gives the network (layers, seed, dataset, launch); its batch is replaced by the request's.
std::unique_ptr<Workload> make_mlp_infer_workload(const MlpParams& mlp, const MlpInferParams& infer);

}  // namespace bench_mps::kernels
