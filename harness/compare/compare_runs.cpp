// Pairing and judging for `bench_mps compare`. The verdict rule (decide_verdict) is the one written
// down in docs/COMPARE.md; keep the two in step.
#include "harness/compare/compare_runs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"
#include "harness/compare/welch_test.hpp"
#include "harness/results/interference_rows.hpp"
#include "harness/results/worker_sets.hpp"

namespace bench_mps::harness {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string percent(double fraction) { return fmt_fixed(100.0 * fraction, 1) + "%"; }

/// The ok runs of one folder by configuration, keys in order of first appearance.
struct ConfigRuns {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const SummaryRecord*>> runs;
  std::size_t not_ok = 0;
  std::size_t apart = 0;                             ///< ok interference runs not side by side (fg_overlap)
  std::map<std::string, std::size_t> not_ok_by_key;  ///< the runs not ok, by configuration
};

/// The pairing key: the whole configuration, or without the parameters when they are ignored.
std::string pairing_key(const SummaryRecord& r, bool ignore_params) {
  return ignore_params
             ? r.workload + "|" + r.mode + "|" + std::to_string(r.active_thread_pct) + "|" + std::to_string(r.procs)
             : r.config_key();
}

ConfigRuns group_ok_runs(const std::vector<SummaryRecord>& records, bool ignore_params) {
  ConfigRuns g;
  for (const auto& r : records) {
    const std::string key = pairing_key(r, ignore_params);
    if (r.status != RunStatus::ok) {
      ++g.not_ok;
      ++g.not_ok_by_key[key];
      continue;
    }
    if (!ran_side_by_side(r)) {  // its foreground ran mostly alone: not the configuration its name says
      ++g.apart;
      continue;
    }
    auto& list = g.runs[key];
    if (list.empty()) g.order.push_back(key);
    list.push_back(&r);
  }
  return g;
}

SideSummary summarize_side(const std::vector<const SummaryRecord*>& runs, CompareMetric metric) {
  SideSummary s;
  std::vector<double> clocks;
  for (const SummaryRecord* r : runs) {
    const double v = metric_value(*r, metric);
    if (std::isfinite(v)) s.values.push_back(v);
    if (std::isfinite(r->sm_clock_mean_mhz)) clocks.push_back(r->sm_clock_mean_mhz);
  }
  s.median = median(s.values);
  const auto value = [metric](const SummaryRecord& r) { return metric_value(r, metric); };
  s.set_means = worker_set_means(runs, value);
  s.spread = configuration_noise(runs, value);
  s.sm_clock_mhz = mean(clocks);
  return s;
}

std::size_t not_ok_of(const ConfigRuns& g, const std::string& key) {
  const auto it = g.not_ok_by_key.find(key);
  return it == g.not_ok_by_key.end() ? 0 : it->second;
}

ComparedPair judge_pair(const SummaryRecord& config, const std::vector<const SummaryRecord*>& base_runs,
                        const std::vector<const SummaryRecord*>& new_runs, std::size_t base_not_ok,
                        std::size_t new_not_ok, const CompareOptions& options) {
  ComparedPair p;
  p.workload = config.workload;
  p.params = config.params;
  p.mode = config.mode;
  p.active_thread_pct = config.active_thread_pct;
  p.procs = config.procs;
  p.base = summarize_side(base_runs, options.metric);
  p.next = summarize_side(new_runs, options.metric);
  p.base.not_ok = base_not_ok;
  p.next.not_ok = new_not_ok;
  const bool medians_known = std::isfinite(p.base.median) && std::isfinite(p.next.median) && p.base.median != 0;
  p.change = medians_known ? (p.next.median - p.base.median) / std::fabs(p.base.median) : kNaN;
  p.p_value = welch_t_test(p.next.set_means, p.base.set_means).p_value;
  p.verdict = decide_verdict(p.base, p.next, p.change, p.p_value, options, &p.note);
  p.detectable = smallest_detectable_change(p.base, p.next, options);
  if (!new_runs.empty() && new_runs.front()->params != config.params) {  // paired with --ignore-params
    std::string diff;
    const auto old_items = split(config.params, ';'), new_items = split(new_runs.front()->params, ';');
    for (const std::string& item : new_items)
      if (std::find(old_items.begin(), old_items.end(), item) == old_items.end())
        diff += (diff.empty() ? "" : ", ") + item;
    p.note += (p.note.empty() ? "" : "; ") + std::string("new ") + diff;
  }
  const double clock_change = (p.next.sm_clock_mhz - p.base.sm_clock_mhz) / p.base.sm_clock_mhz;
  p.clock_flag = std::isfinite(clock_change) && std::fabs(clock_change) > kClockFlagFraction;
  return p;
}

}  // namespace

CompareMetric parse_compare_metric(const std::string& name) {
  if (name == "throughput") return CompareMetric::throughput;
  if (name == "p50") return CompareMetric::p50;
  if (name == "p99") return CompareMetric::p99;
  throw UsageError("--metric: '" + name + "' is not one of throughput, p50, p99");
}

std::string metric_name(CompareMetric metric) {
  switch (metric) {
    case CompareMetric::throughput:
      return "throughput";
    case CompareMetric::p50:
      return "p50";
    case CompareMetric::p99:
      return "p99";
  }
  return "";
}

std::string metric_column(CompareMetric metric) {
  switch (metric) {
    case CompareMetric::throughput:
      return "throughput_tasks_per_s";
    case CompareMetric::p50:
      return "task_p50_ms";
    case CompareMetric::p99:
      return "task_p99_ms";
  }
  return "";
}

bool higher_is_better(CompareMetric metric) { return metric == CompareMetric::throughput; }

double metric_value(const SummaryRecord& run, CompareMetric metric) {
  switch (metric) {
    case CompareMetric::throughput:
      return run.throughput_tasks_per_s;
    case CompareMetric::p50:
      return run.task_p50_ms;
    case CompareMetric::p99:
      return run.task_p99_ms;
  }
  return kNaN;
}

std::string verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::same:
      return "SAME";
    case Verdict::faster:
      return "FASTER";
    case Verdict::slower:
      return "SLOWER";
    case Verdict::unsure:
      return "UNSURE";
    case Verdict::insufficient:
      return "INSUFFICIENT";
  }
  return "";
}

double smallest_detectable_change(const SideSummary& base, const SideSummary& next, const CompareOptions& options) {
  if (base.set_means.size() < 2 || next.set_means.size() < 2) return kNaN;
  double d = options.threshold_pct / 100.0;
  for (double spread : {base.spread, next.spread})
    if (std::isfinite(spread)) d = std::max(d, spread);
  return d;
}

Verdict decide_verdict(const SideSummary& base, const SideSummary& next, double change, double p_value,
                       const CompareOptions& options, std::string* note) {
  auto say = [&](Verdict v, const std::string& why) {
    if (note) *note = why;
    return v;
  };
  const std::size_t nb = base.set_means.size(), nn = next.set_means.size();
  if (base.not_ok > 0 || next.not_ok > 0)
    return say(Verdict::insufficient, "runs not ok (" + std::to_string(base.not_ok) + " vs " +
                                          std::to_string(next.not_ok) + "): a side is not what was planned");
  if (nb < 2 || nn < 2)
    return say(Verdict::insufficient, "too few worker sets (" + std::to_string(nb) + " vs " + std::to_string(nn) + ")");
  if (!std::isfinite(change) || !std::isfinite(p_value)) return say(Verdict::unsure, "no change known");
  const double threshold = options.threshold_pct / 100.0;
  const bool noise_known = !std::isnan(base.spread) && !std::isnan(next.spread);
  const double noise = noise_known ? std::max(base.spread, next.spread) : kNaN;
  const bool significant = p_value < options.alpha;
  const double size = std::fabs(change);
  if (significant && size > threshold) {
    if (!(size > noise)) return say(Verdict::unsure, "change within the noise (" + percent(noise) + ")");
    const bool better = higher_is_better(options.metric) ? change > 0 : change < 0;
    return say(better ? Verdict::faster : Verdict::slower, "");
  }
  if (size <= threshold && significant) return say(Verdict::same, "significant, below threshold");
  if (size <= threshold && noise <= threshold) return say(Verdict::same, "");
  // the p as the p column prints it
  if (size > threshold) return say(Verdict::unsure, "not significant (p " + fmt_fixed(p_value, 4) + ")");
  return say(Verdict::unsure, "noise " + percent(noise) + " > threshold");
}

RunComparison compare_runs(const std::vector<SummaryRecord>& base, const std::vector<SummaryRecord>& next,
                           const CompareOptions& options) {
  const ConfigRuns b = group_ok_runs(base, options.ignore_params), n = group_ok_runs(next, options.ignore_params);
  RunComparison out;
  out.base_not_ok = b.not_ok;
  out.new_not_ok = n.not_ok;
  out.base_not_side_by_side = b.apart;
  out.new_not_side_by_side = n.apart;
  const auto no_value = [&options](const std::vector<SummaryRecord>& runs) {
    return static_cast<std::size_t>(std::count_if(runs.begin(), runs.end(), [&options](const SummaryRecord& r) {
      return r.status == RunStatus::ok && !std::isfinite(metric_value(r, options.metric));
    }));
  };
  out.base_no_value = no_value(base);
  out.new_no_value = no_value(next);
  // Display order: workload + params groups, then modes, in order of first appearance, then N.
  std::map<std::string, int> group_rank, mode_rank;
  for (const auto* side : {&b, &n})
    for (const auto& key : side->order) {
      const SummaryRecord& r = *side->runs.at(key).front();
      group_rank.emplace(r.workload + "|" + r.params, static_cast<int>(group_rank.size()));
      mode_rank.emplace(r.mode, static_cast<int>(mode_rank.size()));
    }
  for (const auto& key : b.order) {
    const SummaryRecord& r = *b.runs.at(key).front();
    const auto other = n.runs.find(key);
    if (other == n.runs.end() && not_ok_of(n, key) == 0) {
      out.only_in_base.push_back(config_label(r.workload, r.params, r.mode, r.procs));
      continue;
    }
    // Every run of NEW failed: a pair without NEW's sets (INSUFFICIENT), never a configuration gone.
    const std::vector<const SummaryRecord*> none;
    out.pairs.push_back(judge_pair(r, b.runs.at(key), other == n.runs.end() ? none : other->second, not_ok_of(b, key),
                                   not_ok_of(n, key), options));
  }
  for (const auto& key : n.order)
    if (b.runs.count(key) == 0) {
      const SummaryRecord& r = *n.runs.at(key).front();
      if (not_ok_of(b, key) > 0)  // every run of BASE failed
        out.pairs.push_back(judge_pair(r, {}, n.runs.at(key), not_ok_of(b, key), not_ok_of(n, key), options));
      else
        out.only_in_new.push_back(config_label(r.workload, r.params, r.mode, r.procs));
    }
  std::stable_sort(out.pairs.begin(), out.pairs.end(), [&](const ComparedPair& x, const ComparedPair& y) {
    const auto rank = [&](const ComparedPair& p) {
      return std::make_tuple(group_rank.at(p.workload + "|" + p.params), mode_rank.at(p.mode), p.procs);
    };
    return rank(x) < rank(y);
  });
  return out;
}

std::array<std::size_t, kAllVerdicts.size()> count_verdicts(const RunComparison& comparison) {
  std::array<std::size_t, kAllVerdicts.size()> counts{};
  for (const auto& p : comparison.pairs)
    for (std::size_t i = 0; i < kAllVerdicts.size(); ++i)
      if (p.verdict == kAllVerdicts[i]) ++counts[i];
  return counts;
}

std::string config_label(const std::string& workload, const std::string& params, const std::string& mode, int procs) {
  return workload + " " + params + " " + mode + " n=" + std::to_string(procs);
}

}  // namespace bench_mps::harness
