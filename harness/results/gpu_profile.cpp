// GPU profiles read back and summarised: see gpu_profile.hpp and docs/PROFILE.md.
#include "harness/results/gpu_profile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "harness/common/csv_table.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/packed_files.hpp"
#include "harness/common/stats.hpp"
#include "harness/results/results_reader.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace bench_mps::harness {
namespace {

constexpr int kFormatVersion = profiler::kProfileFormatVersion;

constexpr int kOldestFormatVersion = 1;  ///< format_version 1: no host waits; 2: no SM time per span
constexpr double kWarmupShare = 0.10;    ///< of the kept spans, left out of the steady part

/// The member `key` of `j`, or a message naming what is missing.
const json& need(const json& j, const char* key, const char* where) {
  if (!j.is_object() || !j.contains(key)) throw std::invalid_argument(std::string("missing '") + key + "' in " + where);
  return j[key];
}

template <typename T>
T number(const json& j, const char* key, const char* where) {
  const json& v = need(j, key, where);
  if (!v.is_number()) throw std::invalid_argument(std::string("'") + key + "' in " + where + " is not a number");
  if constexpr (std::is_integral_v<T>) {  // a count or a time in ns: whole, and one T holds (no -1 read as 2^64-1)
    bool fits = false;
    if (v.is_number_unsigned())
      fits = v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    else if (v.is_number_integer())
      fits = std::is_signed_v<T> && v.get<std::int64_t>() >= static_cast<std::int64_t>(std::numeric_limits<T>::min());
    if (!fits)
      throw std::invalid_argument(std::string("'") + key + "' in " + where + " is not a whole number " +
                                  (std::is_signed_v<T> ? "a 64-bit integer holds" : "from 0 up"));
  }
  return v.get<T>();
}

void read_triple(const json& j, const char* key, std::int64_t out[3]) {
  const json& v = need(j, key, "a kernel signature");
  if (!v.is_array() || v.size() != 3)
    throw std::invalid_argument(std::string("'") + key + "' of a kernel is not [x,y,z]");
  for (int i = 0; i < 3; ++i) {
    if (!v[i].is_number_integer() || v[i].get<std::int64_t>() < 1)
      throw std::invalid_argument(std::string("'") + key + "' of a kernel holds a value below 1");
    out[i] = v[i].get<std::int64_t>();
  }
}

void read_devices(const json& j, GpuProfile& p) {
  for (const json& d : need(j, "devices", "the profile")) {
    ProfileDevice x;
    x.id = number<std::uint32_t>(d, "id", "a device");
    x.name = d.value("name", "");
    x.sm_count = number<std::uint32_t>(d, "sm_count", "a device");
    x.warp_size = number<std::uint32_t>(d, "warp_size", "a device");
    x.max_warps_per_sm = number<std::uint32_t>(d, "max_warps_per_sm", "a device");
    x.max_blocks_per_sm = number<std::uint32_t>(d, "max_blocks_per_sm", "a device");
    x.regs_per_sm = number<std::uint32_t>(d, "regs_per_sm", "a device");
    x.max_regs_per_block = number<std::uint32_t>(d, "max_regs_per_block", "a device");
    x.smem_per_sm = number<std::uint32_t>(d, "smem_per_sm_bytes", "a device");
    x.smem_per_block = number<std::uint32_t>(d, "smem_per_block_bytes", "a device");
    const json& cc = need(d, "compute_capability", "a device");
    if (!cc.is_array() || cc.size() != 2)
      throw std::invalid_argument("'compute_capability' of a device is not [major,minor]");
    x.cc_major = cc[0].get<std::uint32_t>();
    x.cc_minor = cc[1].get<std::uint32_t>();
    x.memory_bytes = d.value("memory_bytes", std::uint64_t{0});
    if (x.sm_count == 0 || x.warp_size == 0 || x.max_warps_per_sm == 0 || x.max_blocks_per_sm == 0)
      throw std::invalid_argument("a device with 0 SMs, a warp of 0 threads or room for 0 warps or 0 blocks on an SM");
    p.devices.push_back(x);
  }
}

void read_kernels(const json& j, GpuProfile& p) {
  const json& k = need(j, "kernels", "the profile");
  p.kernel_count = number<std::uint64_t>(k, "count", "kernels");
  p.kernel_ns = number<std::uint64_t>(k, "total_ns", "kernels");
  p.other_kernel_count = number<std::uint64_t>(k, "other_count", "kernels");
  p.other_kernel_ns = number<std::uint64_t>(k, "other_total_ns", "kernels");
  for (const json& s : need(k, "signatures", "kernels")) {
    KernelSignature x;
    x.name = s.value("name", "");
    x.device = number<std::uint32_t>(s, "device", "a kernel signature");
    read_triple(s, "grid", x.grid);
    read_triple(s, "block", x.block);
    x.registers = number<std::uint32_t>(s, "registers", "a kernel signature");
    x.static_smem = number<std::int64_t>(s, "static_smem_bytes", "a kernel signature");
    x.dynamic_smem = number<std::int64_t>(s, "dynamic_smem_bytes", "a kernel signature");
    x.count = number<std::uint64_t>(s, "count", "a kernel signature");
    x.total_ns = number<std::uint64_t>(s, "total_ns", "a kernel signature");
    p.signatures.push_back(x);
  }
}

/// busy: the spans [start, end, busy] (format_version 3: [start, end, busy, SM time]).
void read_busy(const json& j, int version, GpuProfile& p) {
  const std::size_t fields = version >= 3 ? 4 : 3;
  const json& b = need(j, "busy", "the profile");
  p.min_gap_ns = number<std::int64_t>(b, "min_gap_ns", "busy");
  p.intervals = number<std::uint64_t>(b, "intervals", "busy");
  p.busy_ns = number<std::uint64_t>(b, "busy_ns", "busy");
  p.first_ns = number<std::int64_t>(b, "first_ns", "busy");
  p.last_ns = number<std::int64_t>(b, "last_ns", "busy");
  if (p.first_ns < 0 || p.last_ns < p.first_ns)
    throw std::invalid_argument("busy: first_ns and last_ns are not 0 <= first <= last");
  const json& counts = need(b, "gap_log2_ns_counts", "busy");
  if (!counts.is_array()) throw std::invalid_argument("'gap_log2_ns_counts' in busy is not a list");
  for (const json& c : counts)
    if (!c.is_number_unsigned())
      throw std::invalid_argument("'gap_log2_ns_counts' in busy holds a value that is not a count from 0 up");
  p.gap_log2_counts = counts.get<std::vector<std::uint64_t>>();
  p.kept_head = number<std::size_t>(b, "kept_head", "busy");
  std::int64_t previous_end = std::numeric_limits<std::int64_t>::min();
  for (const json& s : need(b, "spans", "busy")) {
    if (!s.is_array() || s.size() != fields)
      throw std::invalid_argument(fields == 4 ? "a busy span is not [start, end, busy, sm]"
                                              : "a busy span is not [start, end, busy]");
    BusySpan x{s[0].get<std::int64_t>(), s[1].get<std::int64_t>(), s[2].get<std::int64_t>()};
    if (fields == 4) {
      if (!s[3].is_number() || !(s[3].get<double>() >= 0))
        throw std::invalid_argument("busy span " + std::to_string(p.spans.size()) + " has an SM time below 0");
      x.sm_ns = s[3].get<double>();
    }
    if (x.end_ns < x.start_ns || x.busy_ns < 0 || x.busy_ns > x.end_ns - x.start_ns || x.start_ns < previous_end)
      throw std::invalid_argument("busy span " + std::to_string(p.spans.size()) +
                                  " is out of order or busier than it is long");
    previous_end = x.end_ns;
    p.spans.push_back(x);
  }
  if (p.kept_head > p.spans.size() || p.spans.size() > p.intervals)
    throw std::invalid_argument("busy: kept_head, spans and intervals disagree");
}

/// clock: end_ns, and (since the profiler's clock anchors; no format_version of their own: older
/// profiles simply lack them) monotonic_anchors [[profile ns, monotonic ns, spread ns], ...] and monotonic_error.
void read_clock(const json& j, GpuProfile& p) {
  const json& c = need(j, "clock", "the profile");
  p.end_ns = number<std::int64_t>(c, "end_ns", "clock");
  if (p.end_ns < 0) throw std::invalid_argument("'end_ns' in clock is below 0");
  if (c.contains("monotonic_error")) {
    if (!c["monotonic_error"].is_string()) throw std::invalid_argument("'monotonic_error' in clock is not a string");
    p.monotonic_error = c["monotonic_error"].get<std::string>();
  }
  if (!c.contains("monotonic_anchors")) return;
  const json& anchors = c["monotonic_anchors"];
  if (!anchors.is_array()) throw std::invalid_argument("'monotonic_anchors' in clock is not an array");
  for (const json& a : anchors) {
    if (!a.is_array() || a.size() != 3 || !a[0].is_number_integer() || !a[1].is_number_integer() ||
        !a[2].is_number_integer() || a[2].get<std::int64_t>() < 0 ||
        (!p.monotonic_anchors.empty() && a[0].get<std::int64_t>() < p.monotonic_anchors.back().profile_ns))
      throw std::invalid_argument("clock anchor " + std::to_string(p.monotonic_anchors.size()) +
                                  " is not [profile ns, monotonic ns, spread ns >= 0] in time order");
    p.monotonic_anchors.push_back({a[0].get<std::int64_t>(), a[1].get<std::int64_t>(), a[2].get<std::int64_t>()});
  }
}

/// [[start, end], ...] into `out` (`what`: "host wait", "NVTX range"), then sorted by end: the head and the
/// tail each, or all of them where `count` says nothing was left out between; `disagree`: the message where
/// kept_head, the spans and count cannot all be right.
void read_spans(const json& spans, const std::string& what, std::uint64_t count, std::size_t kept_head,
                std::vector<HostWait>& out, const char* disagree) {
  for (const json& s : spans) {
    if (!s.is_array() || s.size() != 2 || !s[0].is_number_integer() || !s[1].is_number_integer() ||
        s[0].get<std::int64_t>() < 0 || s[1].get<std::int64_t>() < s[0].get<std::int64_t>())
      throw std::invalid_argument(what + " " + std::to_string(out.size()) +
                                  " is not [start, end] with 0 <= start <= end");
    out.push_back({s[0].get<std::int64_t>(), s[1].get<std::int64_t>()});
  }
  if (kept_head > out.size() || out.size() > count) throw std::invalid_argument(disagree);
  auto by_end = [](const HostWait& a, const HostWait& b) { return a.end_ns < b.end_ns; };
  const auto tail = out.begin() + static_cast<std::ptrdiff_t>(out.size() < count ? kept_head : 0);
  std::sort(out.begin(), tail, by_end);
  std::sort(tail, out.end(), by_end);
}

/// format_version 2's host waits: waits_status, and waits {count, sync_copies, kept_head, spans: [[start, end], ...]}.
void read_waits(const json& j, GpuProfile& p) {
  const json& status = need(j, "waits_status", "the profile");
  if (!status.is_string()) throw std::invalid_argument("'waits_status' is not a string");
  p.waits_status = status.get<std::string>();
  if (const auto it = j.find("waits_source"); it != j.end()) {  // written since the callbacks (optional)
    if (!it->is_string()) throw std::invalid_argument("'waits_source' is not a string");
    p.waits_source = it->get<std::string>();
  }
  const json& w = need(j, "waits", "the profile");
  p.wait_count = number<std::uint64_t>(w, "count", "waits");
  p.sync_copies = number<std::uint64_t>(w, "sync_copies", "waits");
  p.waits_kept_head = number<std::size_t>(w, "kept_head", "waits");
  const json& spans = need(w, "spans", "waits");
  if (!spans.is_array()) throw std::invalid_argument("'spans' in waits is not an array");
  const char* disagree = "waits: kept_head, spans, sync_copies and count disagree";
  if (p.sync_copies > p.wait_count) throw std::invalid_argument(disagree);
  read_spans(spans, "host wait", p.wait_count, p.waits_kept_head, p.waits, disagree);
}

/// The NVTX range followed, where the profile has one (written since --exec-unit-range, 2026-12-02):
/// unit_range {name, status, count, kept_head, spans: [[start, end], ...]}.
void read_unit_range(const json& j, GpuProfile& p) {
  const auto it = j.find("unit_range");
  if (it == j.end()) return;
  const json& r = *it;
  const json& name = need(r, "name", "unit_range");
  const json& status = need(r, "status", "unit_range");
  if (!name.is_string() || name.get<std::string>().empty() || !status.is_string())
    throw std::invalid_argument("unit_range: 'name' is not a name or 'status' not a string");
  UnitRange& u = p.unit_range;
  u.status = status.get<std::string>();
  u.count = number<std::uint64_t>(r, "count", "unit_range");
  u.kept_head = number<std::size_t>(r, "kept_head", "unit_range");
  const json& spans = need(r, "spans", "unit_range");
  if (!spans.is_array()) throw std::invalid_argument("'spans' in unit_range is not an array");
  read_spans(spans, "NVTX range", u.count, u.kept_head, u.spans, "unit_range: kept_head, spans and count disagree");
  u.name = name.get<std::string>();
}

}  // namespace

FollowedRange followed_range(const GpuProfile& p) {
  FollowedRange r;
  r.name = p.unit_range.name;
  if (!r.name.empty() && !p.unit_range.recorded()) r.why_not = p.unit_range.status;
  for (const HostWait& w : p.unit_range.spans) r.spans.emplace_back(w.start_ns, w.end_ns);
  return r;
}

GpuProfile read_gpu_profile(const fs::path& file) {
  GpuProfile p;
  p.file = file.string();
  try {
    const json j = json::parse(read_text_unpacked(file));
    const json& version = need(j, "format_version", "the profile");
    if (!version.is_number_integer() || version.get<int>() < kOldestFormatVersion ||
        version.get<int>() > kFormatVersion)
      throw std::invalid_argument("format_version " + version.dump() + " (this bench_mps reads " +
                                  std::to_string(kOldestFormatVersion) + " to " + std::to_string(kFormatVersion) + ")");
    const std::string status = need(j, "status", "the profile").get<std::string>();
    if (status != "ok" && status != "error") throw std::invalid_argument("status '" + status + "'");
    p.complete = status == "ok";
    p.errors = need(j, "errors", "the profile").get<std::vector<std::string>>();
    const json& process = need(j, "process", "the profile");
    p.pid = number<long>(process, "pid", "process");
    p.command = process.value("command", "");
    read_clock(j, p);
    p.dropped_records = number<std::uint64_t>(j, "dropped_records", "the profile");
    read_devices(j, p);
    p.contexts = static_cast<int>(need(j, "contexts", "the profile").size());
    for (const json& m : need(j, "memory", "the profile"))
      p.memory_peak_bytes += number<std::uint64_t>(m, "peak_bytes", "memory");
    read_kernels(j, p);
    p.copy_count = number<std::uint64_t>(need(j, "copies", "the profile"), "count", "copies");
    p.copy_ns = number<std::uint64_t>(j["copies"], "total_ns", "copies");
    p.memset_count = number<std::uint64_t>(need(j, "memsets", "the profile"), "count", "memsets");
    p.memset_ns = number<std::uint64_t>(j["memsets"], "total_ns", "memsets");
    read_busy(j, version.get<int>(), p);
    if (version.get<int>() >= 2) read_waits(j, p);
    read_unit_range(j, p);
  } catch (const UsageError&) {
    throw;
  } catch (const nlohmann::json::exception& e) {  // its parse and type errors, in words
    throw UsageError(file.string() + ": not a readable GPU profile: " + json_value_problem(e));
  } catch (const std::exception& e) {  // ours above, a file that cannot be read
    throw UsageError(file.string() + ": not a readable GPU profile: " + e.what());
  }
  return p;
}

GpuProfile busiest_profile(const std::vector<fs::path>& files) {
  if (files.empty()) throw UsageError("no GPU profile (profile-<pid>.json) to read");
  GpuProfile best;
  bool have = false;
  for (const fs::path& f : files) {
    GpuProfile p = read_gpu_profile(f);
    // A run's copy's profiles are named by their process: profile-<pid>.json holding another pid is another
    // process's profile under this name (copied or renamed in), not this copy's.
    const std::string name = unpacked_name(f), pid = std::to_string(p.pid);
    if (name.size() > 13 && name.compare(8, name.size() - 13, pid) != 0 &&
        name.find_first_not_of("0123456789", 8) == name.size() - 5)
      throw UsageError(f.string() + ": holds process " + pid + ", not its file name's (another process's profile)");
    if (!have || p.busy_ns > best.busy_ns) best = std::move(p);
    have = true;
  }
  return best;
}

std::vector<fs::path> gpu_profile_files(const fs::path& dir, bool recursive) {
  std::vector<fs::path> files;
  auto take = [&files](const fs::directory_entry& e) {
    const std::string name = unpacked_name(e.path());  // profile-<pid>.json, also where committed packed
    if (name.rfind("profile-", 0) != 0 || name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0)
      return;  // another file: not looked at (a loop of links there is not the walk's end)
    std::error_code ec;
    const bool file = e.is_regular_file(ec);
    if (ec && fs::is_symlink(e.symlink_status(ec)))  // a profile's name on a loop of links: a damaged folder
      throw UsageError(e.path().string() + ": " + missing_file_why(e.path()));
    if (!file) return;
    if (packed_beside_plain(e.path())) return;  // a packed profile is read where it is alone
    files.push_back(e.path());
  };
  std::error_code ec;
  if (recursive) {
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
      take(*it);
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) take(*it);
  }
  std::sort(files.begin(), files.end());
  return files;
}

int resident_blocks_per_sm(const KernelSignature& k, const ProfileDevice& d) {
  return profiler::resident_blocks_per_sm(k, d);
}

double kernel_fill(const KernelSignature& k, const ProfileDevice& d) { return profiler::kernel_fill(k, d); }

namespace {

double weighted_fill(const GpuProfile& p) {
  double weighted = 0, total = 0;
  for (const KernelSignature& k : p.signatures)
    for (const ProfileDevice& d : p.devices)
      if (d.id == k.device && k.total_ns > 0) {
        weighted += kernel_fill(k, d) * static_cast<double>(k.total_ns);
        total += static_cast<double>(k.total_ns);
      }
  return total > 0 ? weighted / total : std::nan("");
}

void summarise_gaps(const GpuProfile& p, ProfileSummary& s) {
  std::uint64_t all = 0, above = 0;
  s.gaps_share_from_us = 1e-3;  // the first bin edge at or above the threshold: 2^k ns
  while (s.gaps_share_from_us < s.gap_threshold_us) s.gaps_share_from_us *= 2;
  for (std::size_t i = 0; i < p.gap_log2_counts.size(); ++i) {
    const std::uint64_t n = p.gap_log2_counts[i];
    all += n;
    const double from_us = std::ldexp(1.0, static_cast<int>(i)) * 1e-3;
    if (from_us >= s.gap_threshold_us) above += n;
    if (n) s.gaps.push_back({from_us, 2 * from_us, n});
  }
  s.gaps_at_threshold_share = all ? static_cast<double>(above) / static_cast<double>(all) : 0.0;
}

}  // namespace

ProfileSummary summarise(const GpuProfile& p, double gap_threshold_us) {
  if (!(gap_threshold_us > 0) || gap_threshold_us * 1e3 < static_cast<double>(p.min_gap_ns))
    throw UsageError("gap threshold " + fmt_num(gap_threshold_us) + " us: it must be at least the profile's min gap (" +
                     fmt_num(static_cast<double>(p.min_gap_ns) * 1e-3) + " us, " + p.file + ")");
  ProfileSummary s;
  s.gap_threshold_us = gap_threshold_us;
  s.truncated = p.spans.size() < p.intervals;
  s.fill = weighted_fill(p);
  s.memory_peak_bytes = p.memory_peak_bytes;
  s.contexts = p.contexts;
  s.kernels = p.kernel_count;
  s.waits_recorded = p.waits_status == "ok";
  // A busy total longer than the run is a profile of the recorder before 2026-12-05 that counted late spans'
  // time twice (docs/PROFILE.md): not known.
  if (p.last_ns > p.first_ns && p.busy_ns <= static_cast<std::uint64_t>(p.last_ns - p.first_ns))
    s.duty_whole = static_cast<double>(p.busy_ns) / static_cast<double>(p.last_ns - p.first_ns);
  else if (p.last_ns > p.first_ns)
    s.duty_whole = std::numeric_limits<double>::quiet_NaN();
  summarise_gaps(p, s);
  // The steady part: a truncated profile's tail (its last spans, contiguous), else all but the first 10%.
  const std::size_t from =
      s.truncated ? p.kept_head : static_cast<std::size_t>(kWarmupShare * static_cast<double>(p.spans.size()));
  if (from >= p.spans.size()) return s;
  const std::int64_t threshold_ns = static_cast<std::int64_t>(std::llround(gap_threshold_us * 1e3));
  std::vector<double> bursts_ms, waits_ms;
  std::int64_t busy = 0, burst_start = p.spans[from].start_ns;
  for (std::size_t i = from; i < p.spans.size(); ++i) {
    busy += p.spans[i].busy_ns;
    const bool last = i + 1 == p.spans.size();
    const std::int64_t gap = last ? 0 : p.spans[i + 1].start_ns - p.spans[i].end_ns;
    if (last || gap >= threshold_ns) {
      bursts_ms.push_back(static_cast<double>(p.spans[i].end_ns - burst_start) * 1e-6);
      if (!last) {
        waits_ms.push_back(static_cast<double>(gap) * 1e-6);
        burst_start = p.spans[i + 1].start_ns;
      }
    }
  }
  s.steady_from_s = static_cast<double>(p.spans[from].start_ns) * 1e-9;
  s.steady_to_s = static_cast<double>(p.spans.back().end_ns) * 1e-9;
  const double span_ns = static_cast<double>(p.spans.back().end_ns - p.spans[from].start_ns);
  s.duty = span_ns > 0 ? static_cast<double>(busy) / span_ns : 1.0;
  s.bursts = bursts_ms.size();
  s.burst_p50_ms = quantile(bursts_ms, 0.5);
  s.burst_p90_ms = quantile(bursts_ms, 0.9);
  s.burst_mean_ms = mean(bursts_ms);
  s.wait_p50_ms = waits_ms.empty() ? 0.0 : quantile(waits_ms, 0.5);
  summarise_host_waits(p, from, s);
  return s;
}

}  // namespace bench_mps::harness
