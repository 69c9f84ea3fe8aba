#include "harness/workers/exec_metric.hpp"

#include <algorithm>
#include <stdexcept>

#include "harness/common/clock.hpp"

namespace bench_mps::harness {
namespace {

std::regex compile(const std::string& pattern) {
#ifdef __GLIBCXX__
  constexpr auto flags = std::regex::ECMAScript | std::regex_constants::__polynomial;
#else
  constexpr auto flags = std::regex::ECMAScript;
#endif
  return std::regex(pattern, flags);
}

}  // namespace

void validate_metric_pattern(const std::string& pattern, const std::string& option) {
  if (pattern.size() > kMetricPatternMaxBytes)
    throw std::invalid_argument(option + ": the pattern has " + std::to_string(pattern.size()) + " bytes, at most " +
                                std::to_string(kMetricPatternMaxBytes) + " are accepted");
  const std::string shown = "'" + pattern + "'";
  std::regex re;
  try {
    re = compile(pattern);
  } catch (const std::regex_error& e) {
    if (e.code() == std::regex_constants::error_complexity)
      throw std::invalid_argument(option + ": " + shown + " uses a back-reference, which is not supported");
    throw std::invalid_argument(option + ": " + shown + " is not a valid regular expression (" + e.what() + ")");
  }
  if (re.mark_count() != 1)
    throw std::invalid_argument(option + ": " + shown + " must have exactly one capture group, it has " +
                                std::to_string(re.mark_count()));
}

MetricReader::MetricReader(const std::string& pattern) : re_(compile(pattern)) {}

MetricText MetricText::of(const LongLine& line) {
  MetricText t;
  const std::string& head = line.head();
  if (line.size() <= kMetricWindowBytes) {
    t.head = head;
    return t;
  }
  t.cut = true;
  t.head = head.substr(0, kMetricWindowBytes);
  std::string end = line.tail();  // the line's last bytes: from the head too when the tail is short
  if (end.size() < kMetricWindowBytes)
    end = head.substr(head.size() - std::min(head.size(), kMetricWindowBytes - end.size())) + end;
  t.end = end.substr(end.size() - kMetricWindowBytes);
  return t;
}

std::optional<double> MetricReader::read(const MetricText& text) {
  if (stopped()) return std::nullopt;
  const std::int64_t t0 = monotonic_ns();
  bool matched = false;
  std::optional<double> value = search(text.head, matched);
  if (text.cut) {
    ++lines_cut_;
    if (!value) value = search(text.end, matched);
  }
  if (!value && matched) ++rejected_;
  spent_ns_ += monotonic_ns() - t0;
  return value;
}

std::optional<double> MetricReader::search(const std::string& text, bool& matched) const {
  std::smatch m;
  if (!std::regex_search(text, m, re_)) return std::nullopt;
  matched = true;
  try {
    std::size_t used = 0;
    const std::string s = m[1].str();
    const double v = std::stod(s, &used);
    if (used != s.size() || !(v >= 0) || v > 1e12) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;  // not a number: the line does not count as a step
  }
}

}  // namespace bench_mps::harness
