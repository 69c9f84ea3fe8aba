#pragma once
// Host-side inputs of the mlp workload, shared by the GPU trainer and the CPU reference in the tests:
// a synthetic Gaussian-mixture dataset and He-initialised parameters, both drawn from a seed.
#include <cstdint>
#include <vector>

#include "kernels/mlp.hpp"

namespace bench_mps::kernels {

struct MlpDataset {
  int dim = 0;
  int classes = 0;
  int count = 0;
  std::vector<float> inputs;  ///< dim x count, column-major (one sample per column)
  std::vector<int> labels;    ///< count
};

/// Each class has a random centroid; a sample is its centroid plus noise, scaled to unit variance.
MlpDataset make_mlp_dataset(const MlpParams& params);

/// Offsets of each layer's W and b in the flat parameter vector.
struct MlpLayout {
  std::vector<std::size_t> weight_offset, bias_offset;
  std::size_t total = 0;
};
MlpLayout mlp_layout(const std::vector<int>& layers);

/// W ~ N(0, 2/in) (He), b = 0, in the flat layout of mlp_layout().
std::vector<float> make_mlp_initial_parameters(const MlpParams& params);

}  // namespace bench_mps::kernels
