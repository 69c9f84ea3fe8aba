// MPS (gpu_models.hpp MpsModel): every copy's next item runs; together they share the SMs and the memory, and
// where the GPU was calibrated, contend below saturation by the calibrated factor.
#include <algorithm>
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

/// The factor at `running` pieces asking for sums (sm, mem), through the slowdown it gives, max(1, sm, mem) x
/// factor, for `running` pieces of one average ask (sm / running, mem / running): at each calibrated count k that
/// ask adds up to k times itself, and the slowdown there is held at least the smaller counts' and at least 1 (more
/// pieces of the same ask never run faster than fewer, nor faster than alone: a fit cannot make N=4 faster than N=2);
/// linear in the count between two calibrated counts (from 1 at one piece up to the smallest); past the largest,
/// its points at the sums themselves, held at least its slowdown.
double factor_of(const CountGroups& groups, int running, double sm, double mem) {
  if (running <= 1 || groups.empty()) return 1;
  const double sm_each = sm / running, mem_each = mem / running;
  const double shares = std::max({1.0, sm, mem});
  int lo_n = 1;
  double lo = 1;  // the held slowdown at lo_n pieces; one piece: as alone
  for (const auto& [k, points] : groups) {
    const double k_shares = std::max({1.0, k * sm_each, k * mem_each});
    const double at_k = std::max(lo, k_shares * factor_at_count(points, k * sm_each, k * mem_each));
    if (k == running) return at_k / shares;
    if (k > running) return (lo + (at_k - lo) * (running - lo_n) / (k - lo_n)) / shares;
    lo_n = k;
    lo = at_k;
  }
  return std::max(lo / shares, factor_at_count(groups.rbegin()->second, sm, mem));  // past the largest
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
