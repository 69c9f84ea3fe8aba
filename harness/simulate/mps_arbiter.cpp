// MPS (gpu_models.hpp MpsModel): every copy's next item runs; together they share the SMs and the memory.
#include <algorithm>
#include <limits>
#include <memory>

#include "harness/simulate/replay.hpp"

namespace bench_mps::harness {
namespace {

class MpsArbiter final : public Arbiter {
 public:
  double decide(double, const std::vector<CopyView>& v, std::vector<double>& rates) override {
    double sm = 0, mem = 0;
    for (const CopyView& c : v)
      if (c.runnable) {
        sm += c.sm;
        mem += c.mem;
      }
    const double rate = 1 / std::max({1.0, sm, mem});
    for (std::size_t c = 0; c < v.size(); ++c)
      if (v[c].runnable) rates[c] = rate;
    return std::numeric_limits<double>::infinity();
  }
};

}  // namespace

std::unique_ptr<Arbiter> make_mps_arbiter(const MpsModel&) { return std::make_unique<MpsArbiter>(); }

}  // namespace bench_mps::harness
