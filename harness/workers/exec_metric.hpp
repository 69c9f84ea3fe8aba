#pragma once
// --exec-metric: a per-step time read from the exec command's stdout lines, with bounds that no
// pattern and no output can break. std::regex's default engine backtracks recursively: a 60 KB line
// overflows its stack and a pattern such as (a|a)*x takes exponential time; its compiler recurses per
// term, so a 100 KB pattern overflows too. Here:
// - a pattern has at most kMetricPatternMaxBytes bytes and no back-references (exit 2 at parse time);
// - it runs on libstdc++'s polynomial engine (regex_constants::__polynomial: a breadth-first NFA
//   whose recursion is bounded by the pattern, not the text; it finds the leftmost match and, from
//   there, the longest, as POSIX does, which for a number is what a metric wants);
// - a line is matched on at most kMetricWindowBytes bytes: a longer line on its first and then its
//   last kMetricWindowBytes bytes (the value of a progress bar is often at its end), and counted cut;
// - matching stops for the rest of the run once it has taken kMetricBudgetS seconds in all (a costly
//   pattern on many long lines), and the run says so.
#include "harness/workers/wing.hpp"

#include <cstdint>
#include <optional>
#include <regex>
#include <string>

#include "harness/workers/exec_output.hpp"

namespace bench_mps::harness {

inline constexpr std::size_t kMetricPatternMaxBytes = 256;
inline constexpr std::size_t kMetricWindowBytes = 256;
inline constexpr double kMetricBudgetS = 2.0;

/// Throws std::invalid_argument naming the problem: too long, not valid, a back-reference, not
/// exactly one capture group.
/// `option` names the option in the message (--exec-metric, --exec-check).
void validate_metric_pattern(const std::string& pattern, const std::string& option = "--exec-metric");

/// What of a line a pattern is matched on: its first kMetricWindowBytes bytes and, for a longer line, its
/// last kMetricWindowBytes (about 512 bytes whatever the line: small enough to keep lines for matching later).
struct MetricText {
  std::string head;  ///< the whole line if it is short, else its first kMetricWindowBytes bytes
  std::string end;   ///< a longer line's last kMetricWindowBytes bytes; empty for a short one
  bool cut = false;  ///< the line was longer than the window
  static MetricText of(const LongLine& line);
};

class MetricReader {
 public:
  /// `pattern` as validate_metric_pattern accepts it.
  explicit MetricReader(const std::string& pattern);
  /// The value the line gives, if it matches and its capture is a number in [0, 1e12].
  std::optional<double> read(const LongLine& line) { return read(MetricText::of(line)); }
  std::optional<double> read(const MetricText& text);
  /// Lines longer than the window (matched on their head and tail only).
  std::uint64_t lines_cut() const { return lines_cut_; }
  /// Lines the pattern matched whose capture was no number in [0, 1e12] (nan, inf, a sign, "1.2.3"): not counted.
  std::uint64_t rejected() const { return rejected_; }
  /// Whether matching stopped because it had taken kMetricBudgetS.
  bool stopped() const { return spent_ns_ > static_cast<std::int64_t>(kMetricBudgetS * 1e9); }

 private:
  /// The value, or nullopt with `matched` set where the pattern matched but its capture was no number in range.
  std::optional<double> search(const std::string& text, bool& matched) const;
  std::regex re_;
  std::uint64_t lines_cut_ = 0, rejected_ = 0;
  std::int64_t spent_ns_ = 0;
};

}  // namespace bench_mps::harness
