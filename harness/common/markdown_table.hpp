#pragma once
// Markdown building blocks for report.md: pipe tables with escaped cells, and numbers formatted
// for reading (significant digits without exponents, "median (min–max)" spreads).
#include "harness/common/wing.hpp"

#include <string>
#include <vector>

namespace bench_mps::harness {

/// A GitHub-flavoured markdown table; cells are escaped (`|`, newlines), numeric columns right-aligned.
class MarkdownTable {
 public:
  /// `right_aligned[i]` right-aligns column i (missing entries: left).
  explicit MarkdownTable(std::vector<std::string> header, std::vector<bool> right_aligned = {});
  void add_row(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  /// The table, one line per row, ending with a newline.
  std::string str() const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

/// `value` with about `significant` digits and no exponent: 29603.6 -> "29604", 0.1264224 -> "0.1264";
/// NaN -> "-".
std::string fmt_sig(double value, int significant = 4);

/// "median (min–max)" with fmt_sig, or just the median when the range is one value; "-" if NaN.
std::string fmt_range(double median, double min, double max, int significant = 4);

/// A ratio as "0.94x"; NaN -> "-".
std::string fmt_times(double ratio);

struct RatioInterval;  // harness/common/stats.hpp

/// A ratio with its interval at two decimals, "1.04x (1.03-1.05)", `note` inside the brackets (", ~94 %"); where it
/// has no interval, the ratio and then `none` (" (no interval: one repeat)"); "-" where the ratio is not a number.
std::string fmt_times_interval(const RatioInterval& r, const std::string& none = "", const std::string& note = "");

}  // namespace bench_mps::harness
