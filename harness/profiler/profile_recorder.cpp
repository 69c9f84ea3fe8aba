// The profiler's aggregate: see profile_recorder.hpp.
#include "harness/profiler/profile_recorder.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace bench_mps::profiler {
namespace {

void append_escaped(std::string& out, const std::string& s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
}

std::string quoted(const std::string& s) {
  std::string out;
  append_escaped(out, s);
  return out;
}

/// A readable kernel name (demangled where it can be), cut at 300 bytes on a UTF-8 boundary.
std::string readable(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && d ? d.get() : mangled;
  if (name.size() > 300) {
    std::size_t cut = 300;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
    name = name.substr(0, cut) + "...";
  }
  return name;
}

std::string triple(const std::int64_t v[3]) {
  return "[" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + "]";
}

/// A count as the profile writes it.
std::string num(std::uint64_t v) { return std::to_string(v); }

/// The profile's opening: its format, the tool, its status and errors, whether waits were recorded, the process.
void append_head(std::string& o, const std::vector<std::string>& errors, const std::string& waits_status,
                 const std::string& waits_source, const ProcessFacts& process) {
  o += "{\n\"format_version\": " + std::to_string(kProfileFormatVersion) + ",\n\"tool\": \"bench_mps profiler\",\n";
  o += "\"status\": " + quoted(errors.empty() ? "ok" : "error") + ",\n\"errors\": [";
  for (std::size_t i = 0; i < errors.size(); ++i) o += (i ? ", " : "") + quoted(errors[i]);
  o += "],\n\"waits_status\": " + quoted(waits_status) + ",\n";
  if (!waits_source.empty()) o += "\"waits_source\": " + quoted(waits_source) + ",\n";
  o += "\"process\": {\"pid\": " + std::to_string(process.pid) + ", \"ppid\": " + std::to_string(process.ppid) +
       ", \"command\": " + quoted(process.command) + "},\n";
}

/// The devices' limits: the items of the profile's "devices", one a line.
void append_devices(std::string& o, const std::map<std::uint32_t, DeviceLimits>& devices) {
  bool first = true;
  for (const auto& [id, d] : devices) {
    o += std::string(first ? "" : ",") + "\n  {\"id\": " + num(id) + ", \"name\": " + quoted(d.name) +
         ", \"sm_count\": " + num(d.sm_count) + ", \"warp_size\": " + num(d.warp_size) +
         ", \"max_warps_per_sm\": " + num(d.max_warps_per_sm) + ", \"max_blocks_per_sm\": " + num(d.max_blocks_per_sm) +
         ", \"regs_per_sm\": " + num(d.regs_per_sm) + ", \"max_regs_per_block\": " + num(d.max_regs_per_block) +
         ", \"smem_per_sm_bytes\": " + num(d.smem_per_sm) + ", \"smem_per_block_bytes\": " + num(d.smem_per_block) +
         ", \"compute_capability\": [" + num(d.cc_major) + "," + num(d.cc_minor) +
         "], \"memory_bytes\": " + num(d.memory_bytes) + "}";
    first = false;
  }
}

/// The contexts (id, device, SMs, green): the items of the profile's "contexts".
void append_contexts(std::string& o,
                     const std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, bool>>& contexts) {
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    const auto& [id, dev, sms, green] = contexts[i];
    o += std::string(i ? ", " : "") + "{\"id\": " + num(id) + ", \"device\": " + num(dev) + ", \"sms\": " + num(sms) +
         ", \"green\": " + (green ? "true" : "false") + "}";
  }
}

}  // namespace

ProfileRecorder::ProfileRecorder(RecorderLimits limits, std::uint64_t t0_ns)
    : limits_(limits),
      t0_ns_(t0_ns),
      intervals_(limits.head_intervals, limits.tail_intervals),
      waits_(limits.head_waits, limits.tail_waits),
      ranges_(limits.head_ranges, limits.tail_ranges) {
  pending_.reserve(limits_.pending_batch);
}

void ProfileRecorder::kernel(const KernelLaunch& k) {
  const std::uint64_t ns = k.end_ns > k.start_ns ? k.end_ns - k.start_ns : 0;
  ++kernel_count_;
  kernel_ns_ += ns;
  auto it = kernels_.find(k.shape);
  if (it == kernels_.end()) {
    if (kernels_.size() >= limits_.max_signatures) {
      ++other_kernels_.count;
      other_kernels_.total_ns += ns;
      const auto d = devices_.find(k.shape.device);  // no shape kept: its fill now, or the whole device
      busy_span(k.start_ns, k.end_ns, d == devices_.end() ? 1.0 : kernel_fill(k.shape, d->second));
      return;
    }
    it = kernels_.emplace(k.shape, KernelTotals{}).first;
  }
  ++it->second.count;
  it->second.total_ns += ns;
  busy_span(k.start_ns, k.end_ns, it->second.fill, &it->first, &it->second);
}

void ProfileRecorder::copy(std::uint64_t start_ns, std::uint64_t end_ns, std::uint64_t bytes) {
  busy_span(start_ns, end_ns, 0.0);  // a copy engine's work, no SM's
  ++copies_.count;
  copies_.total_ns += end_ns > start_ns ? end_ns - start_ns : 0;
  copies_.bytes += bytes;
}

void ProfileRecorder::memset(std::uint64_t start_ns, std::uint64_t end_ns, std::uint64_t bytes) {
  busy_span(start_ns, end_ns, 1.0);  // its grid is not in CUPTI's record: taken as filling the device
  ++memsets_.count;
  memsets_.total_ns += end_ns > start_ns ? end_ns - start_ns : 0;
  memsets_.bytes += bytes;
}

void ProfileRecorder::host_wait(std::uint64_t start_ns, std::uint64_t end_ns) {
  if (end_ns < start_ns || start_ns == 0) return;  // CUPTI's "unknown" timestamps
  pending_waits_.push_back({start_ns, end_ns});
  if (pending_waits_.size() >= limits_.pending_batch) keep_pending_waits();
}

void ProfileRecorder::sync_copy(std::uint64_t start_ns, std::uint64_t end_ns, std::uint64_t bytes) {
  copy(start_ns, end_ns, bytes);
  host_wait(start_ns, end_ns);
  ++sync_copies_;
}

void ProfileRecorder::waits_unavailable(const std::string& why) {
  if (waits_available()) waits_status_ = why;
}

void ProfileRecorder::unit_range_span(std::uint64_t start_ns, std::uint64_t end_ns) {
  if (end_ns < start_ns || start_ns == 0 || unit_range_name_.empty()) return;
  pending_ranges_.push_back({start_ns, end_ns});
  if (pending_ranges_.size() >= limits_.pending_batch) keep_sorted(pending_ranges_, ranges_);
}

void ProfileRecorder::unit_range_unavailable(const std::string& why) {
  if (unit_range_status_ == "ok") unit_range_status_ = why;
}

/// Waits (and ranges) arrive in completion order per thread: sorted by end a batch at a time.
void ProfileRecorder::keep_sorted(std::vector<Wait>& pending, HeadTail<Wait>& into) {
  std::sort(pending.begin(), pending.end(),
            [](const Wait& a, const Wait& b) { return a.end < b.end || (a.end == b.end && a.start < b.start); });
  for (const Wait& w : pending) into.push(w);
  pending.clear();
}

void ProfileRecorder::keep_pending_waits() { keep_sorted(pending_waits_, waits_); }

void ProfileRecorder::memory(std::uint32_t device, bool allocation, std::uint64_t bytes) {
  Memory& m = memory_[device];
  if (allocation) {
    ++m.allocations;
    m.current += bytes;
    m.peak = std::max(m.peak, m.current);
  } else {
    ++m.releases;
    m.current = m.current > bytes ? m.current - bytes : 0;
  }
}

void ProfileRecorder::device(const DeviceLimits& d) { devices_[d.id] = d; }

void ProfileRecorder::context(std::uint32_t context_id, std::uint32_t device, std::uint32_t sms, bool green) {
  for (const auto& c : contexts_)
    if (std::get<0>(c) == context_id) return;
  contexts_.emplace_back(context_id, device, sms, green);
}

void ProfileRecorder::monotonic_anchor(std::uint64_t cupti_ns, std::int64_t monotonic_ns, std::int64_t spread_ns) {
  const Anchor a{cupti_ns, monotonic_ns, spread_ns};
  if (anchors_.size() < 2)
    anchors_.push_back(a);
  else
    anchors_.back() = a;
}

void ProfileRecorder::monotonic_unavailable(const std::string& why) {
  if (monotonic_why_.empty()) monotonic_why_ = why;
}

void ProfileRecorder::error(const std::string& what) {
  if (errors_.size() < 20) errors_.push_back(what);
}

void ProfileRecorder::busy_span(std::uint64_t start_ns, std::uint64_t end_ns, double fill, const KernelShape* shape,
                                KernelTotals* totals) {
  if (end_ns < start_ns || start_ns == 0) return;  // CUPTI's "unknown" timestamps
  pending_.push_back({start_ns, end_ns, fill, shape, totals});
  if (pending_.size() >= limits_.pending_batch) merge_pending();
}

/// A piece's fill: known, or its shape's against its device's limits (cached in its totals), or the
/// whole device where the device's record never came.
double ProfileRecorder::fill_of(const Piece& p) {
  if (p.fill >= 0) return p.fill;
  if (p.totals && p.totals->fill >= 0) return p.totals->fill;
  const auto d = p.shape ? devices_.find(p.shape->device) : devices_.end();
  if (d == devices_.end()) return 1.0;
  const double f = kernel_fill(*p.shape, d->second);
  if (p.totals) p.totals->fill = f;
  return f;
}

void ProfileRecorder::count_gap(std::uint64_t gap_ns) {
  if (gap_ns == 0) {
    ++gaps_overlap_;
    return;
  }
  std::size_t bin = 63 - static_cast<std::size_t>(__builtin_clzll(gap_ns));
  ++gap_bins_[std::min(bin, gap_bins_.size() - 1)];
}

/// Spans arrive by buffer, in completion order per stream: sorted by start a batch at a time and
/// merged into the open interval. A span that began before the open interval (another stream's records in a
/// buffer delivered later: results/2026-12-04-late-spans) is a late span
/// (`late_spans`). Its time before the last closed interval's end may lie over intervals already closed (kept or
/// counted): it goes to `late_ns`, not busy_ns (busy_ns a lower bound of the union, busy_ns + late_ns an upper one).
/// Its time after that end joins the open interval where it reaches it (closer than the min gap), or is closed as
/// an interval of its own between the two where it ends in the gap. (Before 2026-12-05 every late span moved the
/// open interval's start back to the last closed end, marking that gap busy wherever the span lay, and added the
/// distance from its start to that end to busy_ns, which could exceed the run's length many times over.)
void ProfileRecorder::merge_pending() {
  std::sort(pending_.begin(), pending_.end());
  for (const Piece& piece : pending_) {
    const std::uint64_t start = piece.start, end = piece.end;
    const double sm = static_cast<double>(end - start) * fill_of(piece);
    if (!have_open_) {
      open_ = {start, end, end - start, sm};
      have_open_ = true;
      if (!first_ns_) first_ns_ = start;
      continue;
    }
    if (start < open_.start) {
      ++late_spans_;
      const std::uint64_t from = std::min(end, std::max(start, last_closed_end_));
      late_ns_ += from - start;  // over closed history: maybe counted already
      if (end <= from) continue;
      const double sm_after = end > start ? sm * static_cast<double>(end - from) / static_cast<double>(end - start) : 0;
      if (end < open_.start && open_.start - end >= limits_.min_gap_ns) {  // in the gap, apart from the open one
        busy_total_ns_ += end - from;
        intervals_.push({from, end, end - from, sm_after});
        last_closed_end_ = end;
        continue;
      }
      open_.sm += sm_after;
      open_.busy += std::min(end, open_.start) - from;  // a gap under the min gap between them is not busy
      open_.start = from;
      if (end > open_.end) {
        open_.busy += end - open_.end;
        open_.end = end;
      }
      continue;
    }
    if (start <= open_.end) {  // overlaps: the union grows by what sticks out
      open_.sm += sm;
      if (end > open_.end) {
        open_.busy += end - open_.end;
        open_.end = end;
      }
      count_gap(0);
      continue;
    }
    const std::uint64_t gap = start - open_.end;
    count_gap(gap);
    if (gap < limits_.min_gap_ns) {
      open_.busy += end - start;
      open_.sm += sm;
      open_.end = end;
    } else {
      close_open();
      open_ = {start, end, end - start, sm};
      have_open_ = true;
    }
  }
  pending_.clear();
}

void ProfileRecorder::close_open() {
  if (!have_open_) return;
  have_open_ = false;
  busy_total_ns_ += open_.busy;
  last_ns_ = std::max(last_ns_, open_.end);
  last_closed_end_ = open_.end;
  intervals_.push(open_);
}

std::string ProfileRecorder::json(std::uint64_t end_ns, const ProcessFacts& process) {
  merge_pending();
  close_open();  // the last interval: a later call starts a new one after it
  keep_pending_waits();
  keep_sorted(pending_ranges_, ranges_);
  auto rel = [this](std::uint64_t t) { return std::to_string(t >= t0_ns_ ? t - t0_ns_ : 0); };
  std::string o;
  append_head(o, errors_, waits_status_, waits_source_, process);
  // CLOCK_MONOTONIC at profile times: [ns from t0, monotonic ns, spread ns]; or why there is none.
  o += "\"clock\": {\"t0_ns\": " + num(t0_ns_) + ", \"end_ns\": " + rel(end_ns) + ", \"monotonic_anchors\": [";
  for (std::size_t i = 0; i < anchors_.size(); ++i)
    o += std::string(i ? ", " : "") + "[" + rel(anchors_[i].cupti) + "," + std::to_string(anchors_[i].monotonic) + "," +
         std::to_string(anchors_[i].spread) + "]";
  o += "]";
  if (!monotonic_why_.empty()) o += ", \"monotonic_error\": " + quoted(monotonic_why_);
  o += "},\n";
  o += "\"dropped_records\": " + num(dropped_records_) + ",\n\"devices\": [";
  append_devices(o, devices_);
  o += "],\n\"contexts\": [";
  append_contexts(o, contexts_);
  o += "],\n\"memory\": [";
  bool first = true;
  for (const auto& [dev, m] : memory_) {
    o += std::string(first ? "" : ", ") + "{\"device\": " + num(dev) + ", \"peak_bytes\": " + num(m.peak) +
         ", \"end_bytes\": " + num(m.current) + ", \"allocations\": " + num(m.allocations) +
         ", \"releases\": " + num(m.releases) + "}";
    first = false;
  }
  o += "],\n\"copies\": {\"count\": " + num(copies_.count) + ", \"total_ns\": " + num(copies_.total_ns) +
       ", \"bytes\": " + num(copies_.bytes) + "},\n";
  o += "\"memsets\": {\"count\": " + num(memsets_.count) + ", \"total_ns\": " + num(memsets_.total_ns) +
       ", \"bytes\": " + num(memsets_.bytes) + "},\n";
  o += "\"kernels\": {\"count\": " + num(kernel_count_) + ", \"total_ns\": " + num(kernel_ns_) +
       ", \"other_count\": " + num(other_kernels_.count) + ", \"other_total_ns\": " + num(other_kernels_.total_ns) +
       ", \"signatures\": [";
  first = true;
  for (const auto& [s, t] : kernels_) {
    o += std::string(first ? "" : ",") + "\n  {\"name\": " + quoted(readable(s.name)) +
         ", \"device\": " + num(s.device) + ", \"grid\": " + triple(s.grid) + ", \"block\": " + triple(s.block) +
         ", \"registers\": " + num(s.registers) + ", \"static_smem_bytes\": " + std::to_string(s.static_smem) +
         ", \"dynamic_smem_bytes\": " + std::to_string(s.dynamic_smem) + ", \"count\": " + num(t.count) +
         ", \"total_ns\": " + num(t.total_ns) + "}";
    first = false;
  }
  o += "]},\n";
  o += "\"busy\": {\"min_gap_ns\": " + num(limits_.min_gap_ns) + ", \"intervals\": " + num(intervals_.count()) +
       ", \"busy_ns\": " + num(busy_total_ns_) + ", \"first_ns\": " + rel(first_ns_) +
       ", \"last_ns\": " + rel(last_ns_) + ", \"late_spans\": " + num(late_spans_) + ", \"late_ns\": " + num(late_ns_) +
       ",\n  \"gap_overlaps\": " + num(gaps_overlap_) + ", \"gap_log2_ns_counts\": [";
  for (std::size_t i = 0; i < gap_bins_.size(); ++i) o += (i ? "," : "") + num(gap_bins_[i]);
  o += "],\n  \"kept_head\": " + num(intervals_.kept_head()) + ", \"kept_tail\": " + num(intervals_.kept_tail()) +
       ",\n  \"spans\": [";
  first = true;
  intervals_.for_each([&](const Interval& iv) {
    o += std::string(first ? "" : ",") + "[" + rel(iv.start) + "," + rel(iv.end) + "," + num(iv.busy) + "," +
         num(static_cast<std::uint64_t>(std::llround(iv.sm))) + "]";
    first = false;
  });
  o += "]},\n";
  if (!unit_range_name_.empty()) {  // where asked: its occurrences, or why there are none
    o += "\"unit_range\": {\"name\": " + quoted(unit_range_name_) + ", \"status\": " + quoted(unit_range_status_) +
         ", \"count\": " + num(ranges_.count()) + ", \"kept_head\": " + num(ranges_.kept_head()) +
         ", \"kept_tail\": " + num(ranges_.kept_tail()) + ",\n  \"spans\": [";
    first = true;
    ranges_.for_each([&](const Wait& w) {
      o += std::string(first ? "" : ",") + "[" + rel(w.start) + "," + rel(w.end) + "]";
      first = false;
    });
    o += "]},\n";
  }
  o += "\"waits\": {\"count\": " + num(waits_.count()) + ", \"sync_copies\": " + num(sync_copies_) +
       ", \"kept_head\": " + num(waits_.kept_head()) + ", \"kept_tail\": " + num(waits_.kept_tail()) +
       ",\n  \"spans\": [";
  first = true;
  waits_.for_each([&](const Wait& w) {
    o += std::string(first ? "" : ",") + "[" + rel(w.start) + "," + rel(w.end) + "]";
    first = false;
  });
  o += "]}\n}\n";
  return o;
}

}  // namespace bench_mps::profiler
