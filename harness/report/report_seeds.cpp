// Reads results/seeds.csv and reduces each published experiment to ratios against its N=1 run.
#include "harness/report/report_seeds.hpp"

#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "harness/common/csv_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/plan/mode_names.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

std::vector<SeedPoint> read_seeds(const fs::path& file) {
  static constexpr std::array<const char*, 12> cols{"source_id",      "title",         "reference", "gpu",
                                                    "their_workload", "workload_kind", "procs",     "mode",
                                                    "value",          "unit",          "metric",    "note"};
  std::vector<SeedPoint> out;
  std::size_t line = 1;
  for (const auto& c : read_csv_columns(file, cols)) {
    const std::string at = file.string() + " line " + std::to_string(++line);
    SeedPoint p{c[0], c[1], c[2], c[3], c[4], c[5], 0, c[7], 0, c[9], c[10], c[11]};
    if (p.source_id.empty()) throw ResultsError(at + ": empty source_id");
    if (p.reference.empty()) throw ResultsError(at + ": empty reference: every seed figure needs its source");
    const long procs = parse_cell_long(c[6], at + " procs");
    if (procs <= 0) throw ResultsError(at + ": procs must be positive");
    p.procs = static_cast<int>(procs);
    if (p.mode != kTimesliceMode && p.mode != kMpsMode) throw ResultsError(at + ": mode must be timeslice or mps");
    p.value = parse_cell_double(c[8], at + " value", false);
    if (!(p.value > 0) || !std::isfinite(p.value)) throw ResultsError(at + ": value must be positive");
    out.push_back(p);
  }
  return out;
}

std::vector<SeedRatio> seed_ratios(const std::vector<SeedPoint>& points) {
  using Key = std::tuple<std::string, int, std::string>;  // source, N, mode
  std::map<Key, std::vector<double>> values;
  std::vector<Key> order;
  for (const SeedPoint& p : points) {
    const Key key{p.source_id, p.procs, p.mode};
    if (!values.count(key)) order.push_back(key);
    values[key].push_back(p.value);
  }
  std::vector<SeedRatio> out;
  for (const Key& key : order) {
    const auto& [source, procs, mode] = key;
    if (procs == 1) continue;
    // The seeds' own basis: one process alone, time-sliced (the same mode only if that is missing).
    auto alone = values.find({source, 1, "timeslice"});
    if (alone == values.end()) alone = values.find({source, 1, mode});
    if (alone == values.end()) continue;
    const SeedPoint* first = nullptr;
    for (const SeedPoint& p : points)
      if (p.source_id == source && p.procs == procs && p.mode == mode) {
        first = &p;
        break;
      }
    SeedRatio r{first->source_id,
                first->title,
                first->reference,
                first->gpu,
                first->their_workload,
                first->workload_kind,
                mode,
                procs,
                median(values[key]),
                median(alone->second),
                0,
                first->metric};
    r.ratio = r.value / r.alone;
    out.push_back(r);
  }
  return out;
}

}  // namespace bench_mps::harness
