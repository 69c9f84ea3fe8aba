#include "harness/report/report_fleet.hpp"

#include <CLI/CLI.hpp>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <set>

#include "harness/common/cli_checks.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/report/report_data.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/results/gpus_index.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

namespace {

std::string mixed_models_warning(const FleetFolder& fleet) {
  std::map<std::string, int> models;
  for (const FleetMember& m : fleet.members) ++models[m.gpu_name == "-" ? "no GPU" : m.gpu_name];
  if (models.size() < 2) return "";
  std::string list;
  for (const auto& [name, count] : models) list += (list.empty() ? "" : ", ") + name + " x" + std::to_string(count);
  return "these folders mix GPU models (" + list +
         "): the fleet median mixes them, so a GPU flagged here may differ "
         "only by its model; judge each model's GPUs in a folder of their own, or set two models side by side with "
         "`bench_mps compare --allow-different-gpu`";
}

constexpr const char* kNoGpu = "no GPU";

/// Which device a folder measured, the one rule the report counts and warns by: its UUID (a CPU-only run's pretend
/// device where it named one); kNoGpu where it records neither (CPU stand-ins: one host's CPU); else the folder's own
/// label (a GPU without a UUID is a GPU of its own).
std::string device_key(const FleetMember& m) {
  if (m.uuid != "-") return m.uuid;
  return m.gpu_name == "-" ? kNoGpu : "folder " + m.label;
}

/// Folders that measured one GPU (the same UUID), or that record no GPU at all (CPU stand-ins): the fleet median
/// counts such a GPU once per folder, and one of them flagged beside another is one device's spread between runs.
std::string same_gpu_warning(const FleetFolder& fleet) {
  std::map<std::string, std::vector<std::string>> by_device;
  for (const FleetMember& m : fleet.members) by_device[device_key(m)].push_back(m.label);
  std::string list;
  for (const auto& [device, labels] : by_device) {
    if (labels.size() < 2) continue;
    std::string named;
    for (const std::string& l : labels) named += (named.empty() ? "" : ", ") + l;
    list += (list.empty() ? "" : "; ") + (device == kNoGpu ? std::string("no GPU recorded") : device) + " in " +
            std::to_string(labels.size()) + " folders (" + named + ")";
  }
  if (list.empty()) return "";
  return "some folders measured the same device: " + list +
         ": the fleet median counts it once per folder, and a folder of it flagged beside another is that device's "
         "spread between runs, not another GPU";
}

/// The warnings a fleet earns, said on stderr and at the head of its report alike.
std::vector<std::string> fleet_warnings(const FleetFolder& fleet) {
  std::vector<std::string> out;
  for (const std::string& warning : {mixed_models_warning(fleet), same_gpu_warning(fleet)})
    if (!warning.empty()) out.push_back(warning);
  return out;
}

}  // namespace
namespace {

bool holds_results(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "meta.json", ec) || fs::exists(dir / "summary.csv", ec);
}

std::string relative_label(const fs::path& dir, const fs::path& root) {
  const std::string rel = dir.lexically_relative(root).lexically_normal().generic_string();
  return rel.empty() || rel == "." ? dir.filename().string() : rel;
}

/// Where a folder's runs met MPS: "private daemon", "external daemon (<pipe>, <pct>)", or "-".
std::string mps_of(const SweepMeta& meta) {
  const nlohmann::json external = meta.mps ? meta.mps->external.value_or(nlohmann::json()) : nlohmann::json();
  const std::string pipe = meta_text(external, "/pipe_directory");
  if (pipe != "-") return "external daemon (" + pipe + "; " + meta_text(external, "/active_thread_pct_source") + ")";
  return meta_text(shown_of(meta.mps), "/control") == "-" ? "-" : "private daemon";
}

FleetMember read_member(const fs::path& dir, const std::string& label) {
  const ResultsFolder folder = read_results_folder(dir);
  const SweepMeta& meta = folder.meta;
  const nlohmann::json& gpu = shown_of(meta.gpu);  // the GPU's static facts, shown as they are
  FleetMember m;
  m.label = label;
  m.host = meta_text(meta.other, "/host/hostname");
  m.gpu_name = meta_text(gpu, "/name");
  m.uuid = meta_text(gpu, "/uuid");
  if (m.uuid == "-")
    m.uuid = meta_text(meta.device.value_or(nlohmann::json()), "/key");  // a CPU-only run: its pretend device
  m.driver = meta_text(gpu, "/driver_version");
  m.status = meta.status ? *meta.status : meta_text(meta.other, "/status");  // another type: as it was written
  m.mps = mps_of(meta);
  m.runs = folder.summary;
  return m;
}

/// "GPU-8d3f1a2b" from "GPU-8d3f1a2b-...": enough to tell a fleet's GPUs apart in a table.
std::string short_uuid(const std::string& uuid) { return uuid.size() > 12 ? uuid.substr(0, 12) : uuid; }

/// "node1, GPU-8d3f1a2b (driver 580.95.05)": which GPU a row is, beside its folder.
std::string host_and_gpu(const FleetMember& m) {
  return m.host + ", " + short_uuid(m.uuid) + (m.driver == "-" ? "" : " (driver " + m.driver + ")");
}

std::string config_heading(const FleetConfig& fc) {
  const RunConfig& c = fc.config;
  std::string h = c.workload + (c.params.empty() ? "" : " (" + c.params + ")") + ", " + mode_label(c.mode);
  if (c.mode.rfind("external-", 0) == 0 && c.active_thread_pct)
    h += " at " + std::to_string(c.active_thread_pct) + "% threads";
  return h + ", N=" + std::to_string(c.procs);
}

std::string metric_unit(CompareMetric metric) { return metric == CompareMetric::throughput ? "tasks/s" : "ms"; }

/// "slower" or "faster" for a deviation, as the metric goes.
std::string direction(double deviation, CompareMetric metric) {
  const bool better = higher_is_better(metric) ? deviation > 0 : deviation < 0;
  return better ? "faster" : "slower";
}

/// A GPU's mean over the fleet median: "0.90x (0.88-0.92)", without an interval where it has one repeat.
std::string over_fleet_words(const RatioInterval& r) { return fmt_times_interval(r, " (no interval: one repeat)"); }

}  // namespace

void add_fleet_report_options(CLI::App& report_cmd, ReportArgs& args) {
  const std::string group = "a folder of many results folders (the fleet report)";
  args.fleet_options[0] =
      report_cmd
          .add_option(
              "--threshold", args.threshold_pct,
              "percent from the fleet median that makes a GPU an outlier, its interval wholly beyond (default " +
                  fmt_num(CompareOptions{}.threshold_pct) + ", as compare)")
          ->check(finite_in(0.0, 1000.0))
          ->group(group);
  args.fleet_options[1] =
      report_cmd
          .add_option("--metric", args.metric, "throughput (tasks/s, higher is better), p50 or p99 (per-task ms)")
          ->check(CLI::IsMember({"throughput", "p50", "p99"}))
          ->group(group)
          ->capture_default_str();
}

void check_no_fleet_options(const ReportArgs& args) {
  for (const CLI::Option* o : args.fleet_options)
    if (o && o->count() > 0)
      throw UsageError(o->get_name() + ": only the fleet report (a folder of many results folders) uses it; " +
                       args.dir + " is one results or comparison folder");
}

int run_fleet_report(const ReportArgs& args, const std::string& title) {
  const fs::path dir = args.dir;
  CompareOptions options;
  options.metric = parse_compare_metric(args.metric);
  if (args.threshold_pct >= 0) options.threshold_pct = args.threshold_pct;
  const FleetFolder fleet = read_fleet(dir);
  if (fleet.members.empty() && fleet.conforms.empty()) {
    if (!fleet.problems.empty())
      throw ResultsError(dir.string() + ": no results folder below it could be read (" + fleet.problems.front().label +
                         ": " + fleet.problems.front().reason + ")");
    throw ResultsError(dir.string() +
                       ": holds no results folder (meta.json, summary.csv) nor a comparison, at any depth");
  }
  const std::vector<FleetConfig> configs = judge_fleet(fleet, options);
  write_file_atomically(dir / "report.md", render_fleet_report(fleet, configs, options, title));
  std::size_t outliers = 0;
  for (const FleetConfig& c : configs)
    outliers += static_cast<std::size_t>(
        std::count_if(c.cells.begin(), c.cells.end(), [](const FleetCell& x) { return x.outlier; }));
  for (const FleetProblem& p : fleet.problems)
    std::cerr << "bench_mps: report: " << p.label << " could not be read: " << p.reason << "\n";
  for (const std::string& warning : fleet_warnings(fleet))
    std::cerr << "bench_mps: report: warning: " << warning << "\n";
  if (fleet.members.empty()) {
    std::cout << "report: wrote " << (dir / "report.md").string() << " (MPS levers: " << fleet.conforms.size()
              << " conform folder" << (fleet.conforms.size() == 1 ? "" : "s") << ", " << fleet.problems.size()
              << " unreadable)\n";
    return kExitOk;
  }
  std::cout << "report: wrote " << (dir / "report.md").string() << " (fleet: " << fleet.members.size()
            << " results folders, "
            << (fleet.conforms.empty() ? "" : std::to_string(fleet.conforms.size()) + " conform folders, ")
            << configs.size() << " configurations, " << outliers << " outlier(s), " << fleet.problems.size()
            << " unreadable)\n";
  return kExitOk;
}

bool is_fleet_folder(const fs::path& dir) {
  std::error_code ec;
  return !holds_results(dir) && !fs::exists(dir / "comparison.csv", ec);
}

FleetFolder read_fleet(const fs::path& dir) {
  FleetFolder fleet;
  std::vector<fs::path> found, indices;
  std::error_code ec;
  if (fs::exists(dir / kGpusIndexFile, ec)) indices.push_back(dir);
  auto add_conform = [&fleet, &dir](const fs::path& d) {
    try {
      fleet.conforms.push_back(read_fleet_conform(d, relative_label(d, dir)));
    } catch (const ResultsError& e) {
      fleet.problems.push_back({relative_label(d, dir), one_line(e.what())});
    }
  };
  if (is_conform_folder(dir)) {  // one conform folder: its rows (its sweeps are its own)
    add_conform(dir);
    return fleet;
  }
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {  // staging folders of a report being written
      it.disable_recursion_pending();
      continue;
    }
    if (::access(it->path().c_str(), R_OK | X_OK) != 0) {  // skipped by the walk: said, not dropped
      fleet.problems.push_back({relative_label(it->path(), dir), std::strerror(errno)});
      it.disable_recursion_pending();
      continue;
    }
    if (is_conform_folder(it->path())) {
      add_conform(it->path());
      it.disable_recursion_pending();  // its sweeps/ are part of it
    } else if (holds_results(it->path())) {
      found.push_back(it->path());
      it.disable_recursion_pending();  // plots/, exec/ of a results folder are not more results
    } else if (fs::exists(it->path() / kGpusIndexFile, ec)) {
      indices.push_back(it->path());
    }
  }
  if (ec) fleet.problems.push_back({relative_label(dir, dir), "cannot list: " + ec.message()});
  std::sort(found.begin(), found.end());
  std::sort(fleet.conforms.begin(), fleet.conforms.end(),
            [](const FleetConform& a, const FleetConform& b) { return a.label < b.label; });
  std::set<std::string> labels;
  // Each folder's real path: one reached twice (a link) counts once, read where it is not itself a link.
  std::map<fs::path, fs::path> read_at;
  for (const fs::path& d : found) {
    const fs::path real = fs::weakly_canonical(d, ec);
    if (ec) continue;
    const auto [at, first] = read_at.emplace(real, d);
    if (!first && fs::is_symlink(at->second, ec) && !fs::is_symlink(d, ec)) at->second = d;
  }
  for (const fs::path& d : found) {
    const std::string label = relative_label(d, dir);
    labels.insert(label);
    const fs::path real = fs::weakly_canonical(d, ec);
    if (const auto at = read_at.find(real); !ec && at != read_at.end() && at->second != d) {
      fleet.problems.push_back({label, "not read again: the same folder as " + relative_label(at->second, dir) +
                                           " (through a link), which would count its GPU twice"});
      continue;
    }
    try {
      fleet.members.push_back(read_member(d, label));
    } catch (const ResultsError& e) {
      fleet.problems.push_back({label, one_line(e.what())});
    } catch (const nlohmann::json::exception& e) {
      fleet.problems.push_back({label, "meta.json: a value has the wrong type (" + one_line(e.what()) + ")"});
    }
  }
  // The index of a --gpus run names folders that may hold nothing: a sweep that could not start.
  for (const fs::path& d : indices) {
    try {
      for (const GpusIndexEntry& e : read_gpus_index(d).gpus) {
        const std::string label = relative_label(d / e.folder, dir);
        if (!labels.count(label))
          fleet.problems.push_back({label, "no results; index.json says: exit " +
                                               (e.exit_code ? std::to_string(*e.exit_code) : std::string("-")) + ", " +
                                               e.status});
      }
    } catch (const ResultsError& e) {
      fleet.problems.push_back({relative_label(d / kGpusIndexFile, dir), one_line(e.what())});
    }
  }
  return fleet;
}

std::vector<FleetConfig> judge_fleet(const FleetFolder& fleet, const CompareOptions& options) {
  std::vector<FleetConfig> configs;
  std::map<std::string, std::size_t> by_key;
  std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> values;  // (config, member) -> ok values
  for (std::size_t m = 0; m < fleet.members.size(); ++m)
    for (const SummaryRecord& r : fleet.members[m].runs) {
      const auto [it, fresh] = by_key.emplace(r.config_key(), configs.size());
      if (fresh) {
        FleetConfig config;
        config.config = r;
        configs.push_back(config);
      }
      auto& v = values[{it->second, m}];
      const double x = metric_value(r, options.metric);
      if (r.status == RunStatus::ok && std::isfinite(x)) v.push_back(x);
    }
  const double threshold = options.threshold_pct / 100.0;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    FleetConfig& config = configs[c];
    std::vector<double> medians;
    for (std::size_t m = 0; m < fleet.members.size(); ++m) {
      const auto it = values.find({c, m});
      if (it == values.end()) continue;  // this GPU did not run this configuration
      FleetCell cell;
      cell.member = m;
      cell.side.values = it->second;
      cell.side.median = median(it->second);
      cell.side.spread = relative_spread(it->second);
      if (std::isfinite(cell.side.median)) medians.push_back(cell.side.median);
      config.cells.push_back(cell);
    }
    config.fleet_median = median(medians);
    const bool comparable = medians.size() >= 2 && std::isfinite(config.fleet_median) && config.fleet_median != 0;
    for (FleetCell& cell : config.cells) {
      if (!comparable || !std::isfinite(cell.side.median)) continue;
      cell.deviation = (cell.side.median - config.fleet_median) / std::fabs(config.fleet_median);
      // A verdict with its interval: this GPU's mean over its repeats (Student's t) against the fleet median (the
      // median of medians, which one GPU far off does not move as a mean of the others would).
      const std::vector<double>& x = cell.side.values;
      const double m = mean(x), center = std::fabs(config.fleet_median);
      const double half = relative_mean_ci_width(x) / 2 * std::fabs(m);  // NaN below two repeats: no interval
      cell.vs_fleet = {m / center, std::max(0.0, (m - half) / center), (m + half) / center};  // a rate is never < 0
      const RatioInterval& v = cell.vs_fleet;
      cell.outlier = v.has_interval() && (v.lo > 1 + threshold || v.hi < 1 - threshold);
      cell.unsure = !cell.outlier && std::isfinite(v.ratio) && std::fabs(v.ratio - 1) > threshold;
    }
  }
  return configs;
}

std::string render_fleet_report(const FleetFolder& fleet, const std::vector<FleetConfig>& configs,
                                const CompareOptions& options, const std::string& title) {
  const std::string unit = metric_unit(options.metric);
  const std::string metric = metric_name(options.metric);
  const std::string threshold = fmt_num(options.threshold_pct) + "%";
  std::set<std::string> hosts, gpu_keys, stand_ins;
  for (const FleetMember& m : fleet.members) {
    hosts.insert(m.host);
    (m.gpu_name == "-" ? stand_ins : gpu_keys).insert(device_key(m));
  }
  if (fleet.members.empty()) {  // conform folders alone: their levers, no throughput to judge a GPU by
    const std::size_t n = fleet.conforms.size();
    return "# MPS levers: " + title + "\n\n" + std::to_string(n) + " conform folder" + (n == 1 ? "" : "s") +
           " and no results folder" +
           (fleet.problems.empty() ? "" : " (" + std::to_string(fleet.problems.size()) + " could not be read)") +
           ": each lever's verdict per GPU, and no throughput to find an outlier by.\n\n" +
           render_fleet_conform(fleet.conforms);
  }
  std::string md = "# Fleet report: " + title + "\n\n";
  md += std::to_string(fleet.members.size()) + " results folders of " + std::to_string(gpu_keys.size()) +
        " GPU(s) by UUID" +
        (stand_ins.empty() ? "" : " and " + std::to_string(stand_ins.size()) + " CPU stand-in device(s)") + ", from " +
        std::to_string(hosts.size()) + " host(s)" +
        (fleet.problems.empty() ? "" : ", " + std::to_string(fleet.problems.size()) + " that could not be read") +
        ". Each GPU's " + metric + " (" + unit +
        ") is the median over its ok repeats; the fleet median is the "
        "median of those medians. A GPU is an **outlier** where its mean over its ok repeats, over the fleet median, "
        "lies more than " +
        threshold +
        " (`--threshold`, as `bench_mps compare`) from 1x with its ~94 % interval (Student's t over its repeats) "
        "wholly beyond; beyond by the point alone, its interval reaching inside (or none: one repeat), it is "
        "**unsure**, not flagged. With two GPUs the fleet median lies between them.\n\n";
  for (const std::string& warning : fleet_warnings(fleet)) md += "**Warning:** " + warning + ".\n\n";
  md += render_fleet_conform(fleet.conforms);

  md += "## Outliers\n\n";
  MarkdownTable outliers({"folder", "host, GPU", "configuration", metric + " " + unit, "fleet median", "deviation",
                          "mean over fleet median", ""},
                         {false, false, false, true, true, true, true, false});
  for (const FleetConfig& c : configs)
    for (const FleetCell& cell : c.cells)
      if (cell.outlier)
        outliers.add_row({fleet.members[cell.member].label, host_and_gpu(fleet.members[cell.member]), config_heading(c),
                          fmt_sig(cell.side.median), fmt_sig(c.fleet_median), fmt_change(cell.deviation, false),
                          over_fleet_words(cell.vs_fleet), direction(cell.vs_fleet.ratio - 1, options.metric)});
  // Judged only where two GPUs or more measured a configuration: one GPU has no fleet to be within.
  const auto judged = std::count_if(configs.begin(), configs.end(), [](const FleetConfig& c) {
    return std::count_if(c.cells.begin(), c.cells.end(),
                         [](const FleetCell& cell) { return std::isfinite(cell.deviation); }) >= 2;
  });
  std::size_t unsure = 0;  // beyond the threshold by the point, not by the interval: not outliers, not within
  for (const FleetConfig& c : configs)
    unsure += static_cast<std::size_t>(
        std::count_if(c.cells.begin(), c.cells.end(), [](const FleetCell& cell) { return cell.unsure; }));
  if (!outliers.empty())
    md += outliers.str() + "\n";
  else if (judged == 0)
    md +=
        "Not judged: no configuration was measured on two GPUs or more, and one GPU has no fleet median to differ "
        "from.\n\n";
  else if (unsure > 0)
    md += "None flagged, and not every GPU is within " + threshold + ": " + std::to_string(unsure) +
          (unsure == 1 ? " cell lies" : " cells lie") + " beyond it by the point alone, " +
          "its interval reaching inside (or none), **unsure** in the tables below (" + std::to_string(judged) + " of " +
          std::to_string(configs.size()) + " configurations measured on two GPUs or more).\n\n";
  else
    md += "None: every GPU is within " + threshold +
          " of the fleet median in every configuration measured on two "
          "GPUs or more (" +
          std::to_string(judged) + " of " + std::to_string(configs.size()) + ").\n\n";

  md += "## GPUs\n\n";
  MarkdownTable gpus({"folder", "host", "GPU", "UUID", "driver", "MPS", "status", "runs ok"},
                     {false, false, false, false, false, false, false, true});
  for (const FleetMember& m : fleet.members) {
    const long ok =
        std::count_if(m.runs.begin(), m.runs.end(), [](const SummaryRecord& r) { return r.status == RunStatus::ok; });
    gpus.add_row({m.label, m.host, m.gpu_name == "-" ? "no GPU (CPU-only run)" : m.gpu_name, short_uuid(m.uuid),
                  m.driver, m.mps, m.status, std::to_string(ok) + "/" + std::to_string(m.runs.size())});
  }
  md += gpus.str() + "\n";

  if (!fleet.problems.empty()) {
    md += "## Folders that could not be read\n\n";
    MarkdownTable problems({"folder", "why"});
    for (const FleetProblem& p : fleet.problems) problems.add_row({p.label, p.reason});
    md += problems.str() + "\n";
  }

  md += "## Per configuration\n\n";
  for (const FleetConfig& c : configs) {
    md += "### " + config_heading(c) + "\n\n";
    MarkdownTable t({"folder", "host, GPU", "runs ok", metric + " " + unit, "spread", "vs fleet median",
                     "mean over fleet median", ""},
                    {false, false, true, true, true, true, true, false});
    for (const FleetCell& cell : c.cells)
      t.add_row({fleet.members[cell.member].label, host_and_gpu(fleet.members[cell.member]),
                 std::to_string(cell.side.values.size()), fmt_sig(cell.side.median),
                 std::isfinite(cell.side.spread) ? fmt_fixed(100.0 * cell.side.spread, 1) + "%" : "-",
                 fmt_change(cell.deviation, false),
                 std::isfinite(cell.vs_fleet.ratio) ? over_fleet_words(cell.vs_fleet) : "-",
                 cell.outlier  ? "**outlier (" + direction(cell.vs_fleet.ratio - 1, options.metric) + ")**"
                 : cell.unsure ? "unsure (" + direction(cell.vs_fleet.ratio - 1, options.metric) + "?)"
                               : ""});
    t.add_row({"fleet median", "", "", fmt_sig(c.fleet_median), "", "", "", ""});
    md += t.str() + "\n";
  }
  return md;
}

}  // namespace bench_mps::harness
