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
#include "harness/predict/trace_from_profile.hpp"
#include "harness/results/gpu_profile.hpp"
#include "harness/results/summary_checks.hpp"
#include "harness/results/profile_window.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/results/results_writer.hpp"
#include "harness/results/step_phase.hpp"
#include "harness/simulate/replay.hpp"  // kMinCommonStepEnds: the simulator's rule is the measurement's

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

constexpr WordTable<UnitBasis, 4> kUnitBasisWords{{{UnitBasis::metric, "metric"},
                                                   {UnitBasis::common_window, "common window"},
                                                   {UnitBasis::not_co_run, "not co-run"},
                                                   {UnitBasis::other_phase, "other phase"}}};

/// A copy's counted waits' ends and its steady part, on CLOCK_MONOTONIC.
struct CopyWaits {
  bool placed = false;             ///< its profile could be put on CLOCK_MONOTONIC
  std::string why;                 ///< why there are none to use
  std::vector<std::int64_t> ends;  ///< counted waits' ends in its steady part
  std::int64_t from = 0, to = 0;   ///< its steady part
  double own_step_ms = NAN;        ///< its steady part's step alone (the summary's)
  StepPhase phase;                 ///< the steps of one kind its unit follows (of the ends in its steady part)
  /// Whether the unit counts the step ending at ends[k] (ends holds the phase's ends, from its first on).
  bool counts(std::size_t k) const { return phase.counts(phase.first + k); }
};

/// A copy's busiest profile and its summary, read once (`why`: where there is none).
struct LoadedCopy {
  std::string why;
  GpuProfile profile;
  ProfileSummary summary;
};

LoadedCopy load_copy(const fs::path& dir, double gap_us) {
  LoadedCopy c;
  const std::vector<fs::path> files = gpu_profile_files(dir);
  if (files.empty()) {
    c.why = "no GPU profile";
    return c;
  }
  c.profile = busiest_profile(files);
  c.summary = summarise(c.profile, std::max(gap_us, static_cast<double>(c.profile.min_gap_ns) * 1e-3));
  return c;
}

/// `release_mono_s`: where the copy left the start gate (CLOCK_MONOTONIC s; NaN: not gated). A gated copy's
/// part that counts is from there to its steady part's end: every copy of its run was released at that
/// instant, and a profile that kept only its run's last spans would otherwise start it later, by how many
/// spans contention split its work into (docs/PREDICT.md "Measured").
CopyWaits copy_waits(const LoadedCopy& copy, double release_mono_s,
                     const std::optional<PhaseFollow>& follow = std::nullopt) {
  CopyWaits c;
  if (!copy.why.empty()) {
    c.why = copy.why;
    return c;
  }
  const GpuProfile& p = copy.profile;
  const ProfileSummary& s = copy.summary;
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
  const ProfileSummary gated = gated_steady_part(p, s, release_mono_s);  // predict's steady part, the same
  c.from = clock.monotonic_ns(gated.steady_from_s);
  c.to = clock.monotonic_ns(gated.steady_to_s);
  // Where the profile kept only a head and a tail of its spans, a wait in the hole between them has no device work
  // recorded before it and does not count (counted_waits): steps there would merge into a few long ones. The part
  // that counts begins no earlier than the tail's first span, as the simulator leaves the hole's step out.
  if (p.kept_head < p.spans.size() && p.intervals > p.spans.size())
    c.from = std::max(c.from, clock.monotonic_ns(static_cast<double>(p.spans[p.kept_head].start_ns) * 1e-9));
  const std::size_t from = p.waits.size() < p.wait_count ? p.waits_kept_head : 0;
  for (const HostWait& w : counted_waits(p, from, p.waits.size())) {
    const std::int64_t t = clock.monotonic_ns(static_cast<double>(w.end_ns) * 1e-9);
    if (t >= c.from && t <= c.to) c.ends.push_back(t);
  }
  // One kind of step: a head or a tail of another kind (a test pass, evaluation batches) is no part of it; the
  // program's NVTX range says which where it was followed.
  FollowedRange range = followed_range(p);
  for (RangeSpan& r : range.spans)
    r = {clock.monotonic_ns(static_cast<double>(r.first) * 1e-9),
         clock.monotonic_ns(static_cast<double>(r.second) * 1e-9)};
  c.phase = unit_phase(c.ends, range, follow);
  return c;
}

/// Narrows a copy's steady part to its phase's steps (copy_waits found the phase; keep_run_phase may replace it).
void cut_to_phase(CopyWaits& c) {
  if (!c.phase.cut()) return;
  if (c.phase.first > 0) c.from = c.ends[c.phase.first];
  if (c.phase.last + 1 < c.ends.size()) c.to = c.ends[c.phase.last];
  c.ends = std::vector<std::int64_t>(c.ends.begin() + static_cast<std::ptrdiff_t>(c.phase.first),
                                     c.ends.begin() + static_cast<std::ptrdiff_t>(c.phase.last) + 1);
}

/// One kind of step in every copy of a run: copies held at one start gate and released together run one program
/// from one host wait, so where each has as many step ends in its steady part, each keeps the same steps
/// (shared_phase), not the ones its own times alone would choose (dcgan's ten copies under MPS on an H200 kept heads
/// cut anywhere from 164 to 445 steps in, and their steady parts lay 5.91x apart). Copies not gated, not all placed,
/// with an NVTX range that chose (its own steps), or with differing counts keep their own.
void keep_run_phase(std::vector<CopyWaits>& copies, const std::vector<double>& releases,
                    const std::optional<PhaseFollow>& follow) {
  if (copies.size() < 2) return;  // a run alone keeps its own cut (and its ends are not copied for nothing)
  std::vector<std::vector<std::int64_t>> ends;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    if (!copies[i].why.empty() || !copies[i].placed || !std::isfinite(releases[i]) || !copies[i].phase.range.empty())
      return;
    ends.push_back(copies[i].ends);
  }
  const std::optional<StepPhase> shared = shared_phase(ends, follow);
  if (!shared) return;
  for (CopyWaits& c : copies) {
    const std::string note = c.phase.note;
    c.phase = *shared;
    c.phase.note = note;
  }
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

bool MetricWindow::co_run() const {
  return !checked() || (coverage >= kMinCoRunCoverage && least_lines >= static_cast<double>(kMinCommonStepEnds));
}

MetricWindow metric_window(const std::vector<const WorkerRecord*>& copies) {
  MetricWindow m;
  double from = -std::numeric_limits<double>::infinity(), to = std::numeric_limits<double>::infinity();
  for (const WorkerRecord* w : copies) {
    const double first = w->fact("steps_first_mono_ns"), last = w->fact("steps_last_mono_ns");
    if (!(std::isfinite(first) && std::isfinite(last) && last > first)) return MetricWindow{};
    m.span_s.push_back((last - first) * 1e-9);
    from = std::max(from, first);
    to = std::min(to, last);
  }
  if (copies.empty()) return m;
  m.coverage = 1;
  m.least_lines = std::numeric_limits<double>::infinity();
  const double together_s = std::max(0.0, to - from) * 1e-9;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const double share = together_s / m.span_s[i];
    m.coverage = std::min(m.coverage, share);
    m.least_lines = std::min(m.least_lines, share * copies[i]->fact("steps"));
  }
  return m;
}

const char* unit_basis_word(UnitBasis b) { return word_of(kUnitBasisWords, b).value_or("").data(); }

int mark_other_phase(std::vector<MeasuredUnit>& units) {
  std::vector<PhaseSides> alone;  // what the runs alone kept, as their words say
  for (const MeasuredUnit& u : units)
    if (u.procs == 1 && u.status == RunStatus::ok)
      if (std::optional<PhaseSides> sides = sides_in_words(u.phase)) alone.push_back(*sides);
  const std::optional<PhaseSides> most = ladder_sides(alone);  // a tie: the earliest run's
  if (!most || most->size() != 1) return 0;                    // one cut, a head or a tail left out: one other side
  const PhaseSides other{most->front() == PhaseSide::after ? PhaseSide::before : PhaseSide::after};
  int marked = 0;
  for (MeasuredUnit& u : units)
    if (u.procs >= 2 && co_run(u.basis) && sides_in_words(u.phase) == other) {
      u.basis = UnitBasis::other_phase;
      ++marked;
    }
  return marked;
}

std::vector<fs::path> alone_sweeps_beside(const fs::path& dir) {
  // advise's folders (advise.cpp: ChildSweeps): its ladder's N=1, gated as every rung is (sweeps/alone is not)
  // (its alone run, measured before any rung ran, follows none: as advise measured it)
  const fs::path kChildSweeps = "sweeps", kAloneRung = "ladder-1", kAloneRun = "alone";
  std::error_code ec;
  // As typed or tab-completed ("sweeps/ladder-2/", "sweeps/./ladder-2"): the same folder, so the same rung (a
  // trailing slash once made its parent the rung itself, and the rung followed nothing).
  fs::path whole = fs::absolute(dir, ec).lexically_normal();
  if (whole.filename().empty()) whole = whole.parent_path();
  const fs::path sweeps = whole.parent_path();
  const fs::path alone = sweeps / kAloneRung;
  if (ec || sweeps.filename() != kChildSweeps || whole.filename() == kAloneRun || fs::equivalent(alone, dir, ec) ||
      !fs::is_regular_file(alone / "runs.csv", ec))
    return {};
  return {alone};
}

std::vector<MeasuredUnit> measure_units(const fs::path& dir, double gap_us) {
  const std::vector<WorkerRecord> rows = read_runs(dir / "runs.csv");
  std::map<std::string, std::vector<const WorkerRecord*>> by_run;
  std::vector<std::string> order;
  for (const WorkerRecord& r : rows) {
    if (!by_run.count(r.run_id)) order.push_back(r.run_id);
    by_run[r.run_id].push_back(&r);
  }
  auto copy_dir = [](const fs::path& sweep, const WorkerRecord& w) {
    return sweep / "profiles" / w.run_id / ("w" + std::to_string(w.worker));
  };
  // One kind of step at every N: the parts the runs alone kept (the most of them) are kept in every copy, as
  // predict's draws keep them (prediction.cpp): the runs of one copy without a metric of its own, here, and where
  // this sweep is a rung of an advise folder, its ladder's N=1, held at the same start gate (alone_sweeps_beside).
  std::vector<StepPhase> alone_phases;
  std::map<fs::path, LoadedCopy> alone;  // this sweep's runs alone's profiles, read once for both uses
  const auto add_sides = [&](const fs::path& sweep, const std::vector<WorkerRecord>& runs, bool keep) {
    for (const WorkerRecord& r : runs) {
      if (r.procs != 1 || r.fact("step_mean_ms") > 0) continue;
      LoadedCopy loaded = load_copy(copy_dir(sweep, r), gap_us);
      const CopyWaits c = copy_waits(loaded, r.fact("gate_release_mono_s"));
      if (c.why.empty()) alone_phases.push_back(c.phase);
      if (keep) alone[copy_dir(sweep, r)] = std::move(loaded);
    }
  };
  add_sides(dir, rows, true);
  for (const fs::path& other : alone_sweeps_beside(dir)) add_sides(other, read_runs(other / "runs.csv"), false);
  const std::optional<PhaseFollow> follow = ladder_follow(alone_phases);
  std::vector<MeasuredUnit> out;
  for (const std::string& id : order) {
    const std::vector<const WorkerRecord*>& copies = by_run[id];
    std::vector<CopyWaits> waits;
    std::vector<double> releases;
    for (const WorkerRecord* w : copies) {
      const auto read = alone.find(copy_dir(dir, *w));
      releases.push_back(w->fact("gate_release_mono_s"));
      waits.push_back(copy_waits(read != alone.end() ? read->second : load_copy(copy_dir(dir, *w), gap_us),
                                 releases.back(), follow));
    }
    keep_run_phase(waits, releases, follow);
    std::int64_t from = std::numeric_limits<std::int64_t>::min(), to = std::numeric_limits<std::int64_t>::max();
    bool all_placed = true;
    for (CopyWaits& c : waits) {
      cut_to_phase(c);
      all_placed = all_placed && c.placed;
      from = std::max(from, c.from);
      to = std::min(to, c.to);
    }
    const MetricWindow lines = metric_window(copies);  // unchecked (NaN) where no copy printed a metric
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
        if (lines.checked()) {  // its lines' span, and whether the run's copies printed together
          u.steady_s = lines.span_s[i];
          u.coverage = lines.coverage;
          if (!lines.co_run()) {
            u.basis = UnitBasis::not_co_run;
            u.unit_ms = NAN;
          }
        }
      } else if (!waits[i].why.empty()) {
        u.why = waits[i].why;
      } else {
        u.phase = waits[i].phase.words();
        if (waits[i].placed && waits[i].to > waits[i].from)
          u.steady_s = static_cast<double>(waits[i].to - waits[i].from) * 1e-9;
        // The step ends inside the common window, and the steps between them the unit counts (all but those of
        // another kind between an NVTX range's).
        const CopyWaits& c = waits[i];
        std::size_t in = 0;
        std::int64_t counted_ns = 0;
        long counted = 0;
        if (all_placed && from < to)
          for (std::size_t k = 0; k < c.ends.size(); ++k) {
            if (c.ends[k] < from || c.ends[k] > to) continue;
            if (in++ > 0 && c.counts(k)) {
              counted_ns += c.ends[k] - c.ends[k - 1];
              ++counted;
            }
          }
        u.coverage = co_run_coverage(waits, from, to);
        if (counted + 1 >= static_cast<long>(kMinCommonStepEnds) && u.coverage >= kMinCoRunCoverage) {
          u.unit_ms = static_cast<double>(counted_ns) * 1e-6 / static_cast<double>(counted);
          u.basis = UnitBasis::common_window;
          u.steps = counted;
        } else {  // no other definition stands in: the cell did not measure N copies at once
          u.basis = UnitBasis::not_co_run;
          u.steps = static_cast<long>(in);
        }
      }
      out.push_back(u);
    }
    // Beside each copy's unit, the run's throughput: every copy's steps per second over the same window.
    const auto run = out.end() - static_cast<std::ptrdiff_t>(copies.size());
    double per_s = 0;
    for (auto u = run; u != out.end(); ++u) per_s += co_run(u->basis) ? 1e3 / u->unit_ms : NAN;
    for (auto u = run; u != out.end(); ++u) u->run_steps_per_s = per_s;
  }
  return out;
}

namespace {

using U = Column<MeasuredUnit, MeasuredUnit>;

/// A whole-number column of MeasuredUnit (procs, repeat, worker, steps).
template <class T>
U whole(const char* name, const char* meaning, T MeasuredUnit::*field) {
  return {name, "", meaning, [field](const MeasuredUnit& u) { return std::to_string(u.*field); },
          [field](MeasuredUnit& u, const Cell& c) { u.*field = static_cast<T>(c.whole()); }};
}
/// A number column (>= 0, empty for none) written with `digits` significant digits; `optional`: absent from a
/// units.csv written before it.
U real(const char* name, const char* unit, const char* meaning, double MeasuredUnit::*field, int digits,
       bool optional) {
  return {name,
          unit,
          meaning,
          [field, digits](const MeasuredUnit& u) { return std::isnan(u.*field) ? "" : fmt_num(u.*field, digits); },
          [field](MeasuredUnit& u, const Cell& c) { u.*field = c.real(); },
          optional};
}

}  // namespace

const std::vector<Column<MeasuredUnit, MeasuredUnit>>& units_csv_schema() {
  // phase, steady_s, coverage: none in a units.csv written before the unit followed one kind of step;
  // run_steps_per_s: none in one written before 2026-12-02's evening.
  static const std::vector<U> schema{
      {"run_id", "", "the run (runs.csv's)", [](const MeasuredUnit& u) { return u.run_id; },
       [](MeasuredUnit& u, const Cell& c) { u.run_id = c.text; }},
      {"mode", "", "the run's mode (runs.csv's)", [](const MeasuredUnit& u) { return u.mode.name; },
       [](MeasuredUnit& u, const Cell& c) {
         const std::optional<Mode> mode = mode_in_results(c.text);
         if (!mode) throw ResultsError(c.at + ": '" + c.text.substr(0, 40) + "' is no mode a sweep runs");
         u.mode = *mode;
       }},
      whole("procs", "N: the run's copies", &MeasuredUnit::procs),
      whole("repeat", "the run's repeat", &MeasuredUnit::repeat),
      whole("worker", "the copy's index in its run", &MeasuredUnit::worker),
      {"status", "", "the copy's status in runs.csv",
       [](const MeasuredUnit& u) { return std::string(to_string(u.status)); },
       [](MeasuredUnit& u, const Cell& c) { u.status = c.status(); }},
      real("run_s", "s", "the copy's whole run: its command's completion, start-up included (empty: unknown)",
           &MeasuredUnit::run_s, 9, false),
      real("unit_ms", "ms",
           "its unit: the program's metric, else a step between host waits in the common window "
           "(empty: none, unit_basis says why)",
           &MeasuredUnit::unit_ms, 9, false),
      {"unit_basis", "",
       "metric, common window, not co-run (left out of every score), other phase (predict --against: left out of every "
       "score), or why there is no unit",
       [](const MeasuredUnit& u) { return u.basis_text(); },
       [](MeasuredUnit& u, const Cell& c) {
         const std::optional<UnitBasis> basis = value_of(kUnitBasisWords, c.text);
         u.basis = basis.value_or(UnitBasis::none);
         if (!basis) u.why = c.text;
       }},
      whole("steps", "the steps (waits) the unit is the mean of", &MeasuredUnit::steps),
      {"phase", "", "the steps of one kind the unit follows (whole steady part, or which were kept)",
       [](const MeasuredUnit& u) { return u.phase; }, [](MeasuredUnit& u, const Cell& c) { u.phase = c.text; }, true},
      real("steady_s", "s", "the copy's steady part (from its release where gated; the kept phase)",
           &MeasuredUnit::steady_s, 6, true),
      real("coverage", "fraction", "the common window's share of the run's least covered copy's steady part",
           &MeasuredUnit::coverage, 4, true),
      real("run_steps_per_s", "1/s",
           "the run's steps per second, all its copies together, over the common window (the sum of 1 / unit; "
           "empty where a copy of the run has no co-run unit)",
           &MeasuredUnit::run_steps_per_s, 6, true),
  };
  return schema;
}

void write_units(const fs::path& file, const std::vector<MeasuredUnit>& units) {
  std::ostringstream o;
  o << csv_line(column_names(units_csv_schema()));
  for (const MeasuredUnit& u : units) o << csv_line(column_cells(units_csv_schema(), u));
  write_file_atomically(file, o.str());
}

std::vector<MeasuredUnit> read_units(const fs::path& file) {
  std::vector<MeasuredUnit> out = read_columns<14>(file, units_csv_schema());
  std::size_t line = 1;
  for (const MeasuredUnit& u : out) {
    const std::string where = file.string() + " line " + std::to_string(++line);
    if (u.procs < 1 || u.repeat < 1 || u.worker >= u.procs || u.run_id.empty() ||
        (!std::isnan(u.unit_ms) && !(u.unit_ms > 0)))
      throw ResultsError(where + ": a row out of range (procs, repeat, worker, run_id or unit_ms)");
    // No copy runs longer than a sweep lets it (--ready-timeout and --timeout, at most a day each).
    const auto longer = [](double s) { return !std::isnan(s) && !(s >= 0 && s <= kLongestRunS); };
    if (longer(u.run_s) || longer(u.unit_ms * 1e-3) || longer(u.steady_s) ||
        (!std::isnan(u.coverage) && !(u.coverage >= 0 && u.coverage <= 1)) ||
        (!std::isnan(u.run_steps_per_s) && !(u.run_steps_per_s >= 0)))
      throw ResultsError(where + ": a time longer than a run can last (" + fmt_num(kLongestRunS) +
                         " s), or a coverage or steps per second out of range");
  }
  return out;
}

}  // namespace bench_mps::harness
