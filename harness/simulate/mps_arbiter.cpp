// MPS (gpu_models.hpp MpsModel): every copy's next item runs; together they share the SMs and the memory, and
// where the GPU was calibrated, contend below saturation by the calibrated factor.
#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <memory>

#include "harness/simulate/replay.hpp"

namespace bench_mps::harness {
namespace {

/// The calibrated points of one count, inverse-square weighted by their distance from (sm, mem), beside the point
/// that needs no calibration: at sums (0, 0) a factor of 1 (pieces that ask for nothing of the SMs or the memory do
/// not meet there).
double factor_at_count(const std::vector<ContentionPoint>& points, double sm, double mem) {
  if (sm * sm + mem * mem < 1e-18) return 1;
  double weighted = 1 / (sm * sm + mem * mem), weights = weighted;
  for (const ContentionPoint& p : points) {
    const double d2 = (p.sm - sm) * (p.sm - sm) + (p.mem - mem) * (p.mem - mem);
    if (d2 < 1e-18) return p.factor;
    weighted += p.factor / d2;
    weights += 1 / d2;
  }
  return weighted / weights;
}

/// The points by their count, smallest first.
using CountGroups = std::map<int, std::vector<ContentionPoint>>;

CountGroups by_count(const std::vector<ContentionPoint>& points) {
  CountGroups out;
  for (const ContentionPoint& p : points) out[p.copies].push_back(p);
  return out;
}

double factor_of(const CountGroups& groups, int running, double sm, double mem) {
  if (running <= 1 || groups.empty()) return 1;
  const auto above = groups.lower_bound(running);
  if (above != groups.end() && above->first == running) return factor_at_count(above->second, sm, mem);
  if (above == groups.end()) return factor_at_count(groups.rbegin()->second, sm, mem);  // past the largest
  const double hi = factor_at_count(above->second, sm, mem);
  int lo_n = 1;
  double lo = 1;  // one piece: as alone
  if (above != groups.begin()) {
    const auto below = std::prev(above);
    lo_n = below->first;
    lo = factor_at_count(below->second, sm, mem);
  }
  return lo + (hi - lo) * (running - lo_n) / (above->first - lo_n);
}

class MpsArbiter final : public Arbiter {
 public:
  explicit MpsArbiter(const MpsModel& m) : groups_(by_count(m.contention)) {}
  double decide(double, const std::vector<CopyView>& v, std::vector<double>& rates) override {
    double sm = 0, mem = 0;
    int running = 0;
    for (const CopyView& c : v)
      if (c.runnable) {
        sm += c.sm;
        mem += c.mem;
        ++running;
      }
    const double rate = 1 / (std::max({1.0, sm, mem}) * factor_of(groups_, running, sm, mem));
    for (std::size_t c = 0; c < v.size(); ++c)
      if (v[c].runnable) rates[c] = rate;
    return std::numeric_limits<double>::infinity();
  }

 private:
  CountGroups groups_;
};

}  // namespace

double MpsModel::factor(int running, double sm, double mem) const {
  return factor_of(by_count(contention), running, sm, mem);
}

std::unique_ptr<Arbiter> make_mps_arbiter(const MpsModel& m) { return std::make_unique<MpsArbiter>(m); }

}  // namespace bench_mps::harness
