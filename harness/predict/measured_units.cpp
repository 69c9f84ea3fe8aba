// Each copy's run and unit: see measured_units.hpp.
#include "harness/predict/measured_units.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "harness/common/csv_table.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/word_table.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/profile_window.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_writer.hpp"
#include "harness/results/step_phase.hpp"
#include "harness/simulate/replay.hpp"  // kMinCommonStepEnds: the simulator's rule is the measurement's

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

constexpr WordTable<UnitBasis, 3> kUnitBasisWords{{{UnitBasis::metric, "metric"},
                                                   {UnitBasis::common_window, "common window"},
                                                   {UnitBasis::not_co_run, "not co-run"}}};

/// A copy's counted waits' ends and its steady part, on CLOCK_MONOTONIC.
struct CopyWaits {
  bool placed = false;             ///< its profile could be put on CLOCK_MONOTONIC
  std::string why;                 ///< why there are none to use
  std::vector<std::int64_t> ends;  ///< counted waits' ends in its steady part
  std::int64_t from = 0, to = 0;   ///< its steady part
  double own_step_ms = NAN;        ///< its steady part's step alone (the summary's)
  StepPhase phase;                 ///< the steps of one kind its unit follows (of the ends in its steady part)
};

/// `release_mono_s`: where the copy left the start gate (CLOCK_MONOTONIC s; NaN: not gated). A gated copy's
/// part that counts is from there to its steady part's end: every copy of its run was released at that
/// instant, and a profile that kept only its run's last spans would otherwise start it later, by how many
/// spans contention split its work into (docs/PREDICT.md "Measured").
CopyWaits copy_waits(const fs::path& dir, double gap_us, double release_mono_s) {
  CopyWaits c;
  const std::vector<fs::path> files = gpu_profile_files(dir);
  if (files.empty()) {
    c.why = "no GPU profile";
    return c;
  }
  const GpuProfile p = busiest_profile(files);
  const ProfileSummary s = summarise(p, std::max(gap_us, static_cast<double>(p.min_gap_ns) * 1e-3));
  if (!s.waits_recorded) {
    c.why = "no host waits recorded";
    return c;
  }
  c.own_step_ms = s.wait_step_ms;
  const ProfileClock clock = profile_clock(p);
  if (!clock.unavailable.empty()) {
    c.why = clock.unavailable;
    return c;
  }
  c.placed = true;
  c.from = clock.monotonic_ns(s.steady_from_s);
  c.to = clock.monotonic_ns(s.steady_to_s);
  if (std::isfinite(release_mono_s)) {
    const auto release = static_cast<std::int64_t>(std::llround(release_mono_s * 1e9));
    if (release < c.to) c.from = release;
  }
  const std::size_t from = p.waits.size() < p.wait_count ? p.waits_kept_head : 0;
  for (const HostWait& w : counted_waits(p, from, p.waits.size())) {
    const std::int64_t t = clock.monotonic_ns(static_cast<double>(w.end_ns) * 1e-9);
    if (t >= c.from && t <= c.to) c.ends.push_back(t);
  }
  // One kind of step: a head or a tail of another kind (a test pass, evaluation batches) is no part of it.
  c.phase = main_phase(c.ends);
  if (c.phase.cut()) {
    if (c.phase.first > 0) c.from = c.ends[c.phase.first];
    if (c.phase.last + 1 < c.ends.size()) c.to = c.ends[c.phase.last];
    c.ends = std::vector<std::int64_t>(c.ends.begin() + static_cast<std::ptrdiff_t>(c.phase.first),
                                       c.ends.begin() + static_cast<std::ptrdiff_t>(c.phase.last) + 1);
  }
  return c;
}

/// The least share of a copy's steady part that [from, to] covers (0 where a copy cannot be placed).
double co_run_coverage(const std::vector<CopyWaits>& copies, std::int64_t from, std::int64_t to) {
  double least = 1;
  for (const CopyWaits& c : copies) {
    if (!c.placed || c.to <= c.from) return 0;
    least = std::min(least, std::max(0.0, static_cast<double>(to - from) / static_cast<double>(c.to - c.from)));
  }
  return least;
}

}  // namespace

const char* unit_basis_word(UnitBasis b) { return word_of(kUnitBasisWords, b).value_or("").data(); }

std::vector<MeasuredUnit> measure_units(const fs::path& dir, double gap_us) {
  const std::vector<WorkerRecord> rows = read_runs(dir / "runs.csv");
  std::map<std::string, std::vector<const WorkerRecord*>> by_run;
  std::vector<std::string> order;
  for (const WorkerRecord& r : rows) {
    if (!by_run.count(r.run_id)) order.push_back(r.run_id);
    by_run[r.run_id].push_back(&r);
  }
  std::vector<MeasuredUnit> out;
  for (const std::string& id : order) {
    const std::vector<const WorkerRecord*>& copies = by_run[id];
    std::vector<CopyWaits> waits;
    std::int64_t from = std::numeric_limits<std::int64_t>::min(), to = std::numeric_limits<std::int64_t>::max();
    bool all_placed = true;
    for (const WorkerRecord* w : copies) {
      waits.push_back(copy_waits(dir / "profiles" / id / ("w" + std::to_string(w->worker)), gap_us,
                                 w->fact("gate_release_mono_s")));
      all_placed = all_placed && waits.back().placed;
      from = std::max(from, waits.back().from);
      to = std::min(to, waits.back().to);
    }
    for (std::size_t i = 0; i < copies.size(); ++i) {
      const WorkerRecord& w = *copies[i];
      MeasuredUnit u;
      u.run_id = w.run_id;
      const std::optional<Mode> mode = mode_in_results(w.mode);
      if (!mode)
        throw ResultsError((dir / "runs.csv").string() + ": run " + w.run_id + " has a mode no sweep runs: '" + w.mode +
                           "'");
      u.mode = *mode;
      u.procs = w.procs;
      u.repeat = w.repeat;
      u.worker = w.worker;
      u.status = w.status;
      u.run_s = w.fact("completion_s");
      u.unit_ms = NAN;
      if (const double metric = w.fact("step_mean_ms"); metric > 0) {
        u.unit_ms = metric;
        u.basis = UnitBasis::metric;
        u.steps = static_cast<long>(w.fact("steps"));
      } else if (!waits[i].why.empty()) {
        u.why = waits[i].why;
      } else {
        u.phase = waits[i].phase.words();
        if (waits[i].placed && waits[i].to > waits[i].from)
          u.steady_s = static_cast<double>(waits[i].to - waits[i].from) * 1e-9;
        std::vector<std::int64_t> in;
        if (all_placed && from < to)
          for (std::int64_t t : waits[i].ends)
            if (t >= from && t <= to) in.push_back(t);
        u.coverage = co_run_coverage(waits, from, to);
        if (in.size() >= kMinCommonStepEnds && u.coverage >= kMinCoRunCoverage) {
          u.unit_ms = static_cast<double>(in.back() - in.front()) * 1e-6 / static_cast<double>(in.size() - 1);
          u.basis = UnitBasis::common_window;
          u.steps = static_cast<long>(in.size()) - 1;
        } else {  // no other definition stands in: the cell did not measure N copies at once
          u.basis = UnitBasis::not_co_run;
          u.steps = static_cast<long>(in.size());
        }
      }
      out.push_back(u);
    }
  }
  return out;
}

void write_units(const fs::path& file, const std::vector<MeasuredUnit>& units) {
  std::ostringstream o;
  o << csv_line({"run_id", "mode", "procs", "repeat", "worker", "status", "run_s", "unit_ms", "unit_basis", "steps",
                 "phase", "steady_s", "coverage"});
  for (const MeasuredUnit& u : units)
    o << csv_line({u.run_id, u.mode.name, std::to_string(u.procs), std::to_string(u.repeat), std::to_string(u.worker),
                   to_string(u.status), std::isnan(u.run_s) ? "" : fmt_num(u.run_s, 9),
                   std::isnan(u.unit_ms) ? "" : fmt_num(u.unit_ms, 9), u.basis_text(), std::to_string(u.steps), u.phase,
                   std::isnan(u.steady_s) ? "" : fmt_num(u.steady_s, 6),
                   std::isnan(u.coverage) ? "" : fmt_num(u.coverage, 4)});
  write_file_atomically(file, o.str());
}

std::vector<MeasuredUnit> read_units(const fs::path& file) {
  // phase, steady_s, coverage: none in a units.csv written before the unit followed one kind of step.
  const auto rows =
      read_csv_columns<13>(file,
                           {"run_id", "mode", "procs", "repeat", "worker", "status", "run_s", "unit_ms", "unit_basis",
                            "steps", "phase", "steady_s", "coverage"},
                           {false, false, false, false, false, false, false, false, false, false, true, true, true});
  std::vector<MeasuredUnit> out;
  std::size_t line = 1;
  for (const auto& r : rows) {
    ++line;
    const std::string where = file.string() + ":" + std::to_string(line);
    MeasuredUnit u;
    u.run_id = r[0];
    const std::optional<Mode> mode = mode_in_results(r[1]);
    if (!mode) throw ResultsError(where + ": mode '" + r[1].substr(0, 40) + "' is no mode a sweep runs");
    u.mode = *mode;
    u.procs = static_cast<int>(parse_cell_long(r[2], where + " procs"));
    u.repeat = static_cast<int>(parse_cell_long(r[3], where + " repeat"));
    u.worker = static_cast<int>(parse_cell_long(r[4], where + " worker"));
    const std::optional<RunStatus> status = parse_run_status(r[5]);
    if (!status) throw ResultsError(where + ": status '" + r[5].substr(0, 40) + "' is no run status");
    u.status = *status;
    u.run_s = parse_cell_double(r[6], where + " run_s");
    u.unit_ms = parse_cell_double(r[7], where + " unit_ms");
    const std::optional<UnitBasis> basis = value_of(kUnitBasisWords, r[8]);
    u.basis = basis.value_or(UnitBasis::none);
    if (!basis) u.why = r[8];
    u.steps = parse_cell_long(r[9], where + " steps");
    u.phase = r[10];
    u.steady_s = parse_cell_double(r[11], where + " steady_s");
    u.coverage = parse_cell_double(r[12], where + " coverage");
    if (u.procs < 1 || u.repeat < 1 || u.worker < 0 || u.worker >= u.procs || u.run_id.empty() || u.steps < 0 ||
        (!std::isnan(u.run_s) && !(u.run_s >= 0)) || (!std::isnan(u.unit_ms) && !(u.unit_ms > 0)) ||
        (!std::isnan(u.steady_s) && !(u.steady_s >= 0)) || (!std::isnan(u.coverage) && !(u.coverage >= 0)))
      throw ResultsError(where +
                         ": a row out of range (procs, repeat, worker, run_s, unit_ms, steps, steady_s or coverage)");
    out.push_back(u);
  }
  return out;
}

}  // namespace bench_mps::harness
