#include "kernels/mlp_data.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

namespace bench_mps::kernels {

MlpDataset make_mlp_dataset(const MlpParams& params) {
  if (params.layers.size() < 2) throw std::invalid_argument("mlp needs at least an input and an output layer");
  MlpDataset data;
  data.dim = params.layers.front();
  data.classes = params.layers.back();
  data.count = params.dataset_size;
  std::mt19937_64 rng(params.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> pick_class(0, data.classes - 1);

  const float noise = 2.0f;
  const float scale = 1.0f / std::sqrt(1.0f + noise * noise);
  std::vector<float> centroids(static_cast<std::size_t>(data.dim) * data.classes);
  for (float& c : centroids) c = normal(rng);

  data.inputs.resize(static_cast<std::size_t>(data.dim) * data.count);
  data.labels.resize(data.count);
  for (int s = 0; s < data.count; ++s) {
    const int label = pick_class(rng);
    data.labels[s] = label;
    const float* centroid = &centroids[static_cast<std::size_t>(label) * data.dim];
    float* x = &data.inputs[static_cast<std::size_t>(s) * data.dim];
    for (int d = 0; d < data.dim; ++d) x[d] = (centroid[d] + noise * normal(rng)) * scale;
  }
  return data;
}

MlpLayout mlp_layout(const std::vector<int>& layers) {
  MlpLayout layout;
  for (std::size_t l = 0; l + 1 < layers.size(); ++l) {
    const auto in = static_cast<std::size_t>(layers[l]);
    const auto out = static_cast<std::size_t>(layers[l + 1]);
    layout.weight_offset.push_back(layout.total);
    layout.total += out * in;
    layout.bias_offset.push_back(layout.total);
    layout.total += out;
  }
  return layout;
}

std::vector<float> make_mlp_initial_parameters(const MlpParams& params) {
  const MlpLayout layout = mlp_layout(params.layers);
  std::vector<float> flat(layout.total, 0.0f);
  std::mt19937_64 rng(params.seed ^ 0x9e3779b97f4a7c15ULL);
  for (std::size_t l = 0; l < layout.weight_offset.size(); ++l) {
    const int in = params.layers[l];
    std::normal_distribution<float> normal(0.0f, std::sqrt(2.0f / static_cast<float>(in)));
    for (std::size_t i = layout.weight_offset[l]; i < layout.bias_offset[l]; ++i) flat[i] = normal(rng);
  }
  return flat;
}

}  // namespace bench_mps::kernels
