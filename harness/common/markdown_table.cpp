// Markdown tables and reader-friendly number formatting for report.md.
#include "harness/common/markdown_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/common/format.hpp"
#include "harness/common/stats.hpp"

namespace bench_mps::harness {
namespace {

std::string escape_cell(const std::string& text) {
  std::string out;
  for (char c : one_line(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out.empty() ? " " : out;
}

}  // namespace

MarkdownTable::MarkdownTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_(std::move(right_aligned)) {
  right_.resize(header_.size(), false);
}

void MarkdownTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string MarkdownTable::str() const {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const auto& c : cells) out += " " + escape_cell(c) + " |";
    return out + "\n";
  };
  std::string out = line(header_) + "|";
  for (bool right : right_) out += right ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string fmt_sig(double value, int significant) {
  if (!std::isfinite(value)) return "-";
  if (value == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  // Far from 1 the digits would be mostly zeros (1e-70) or past what a double holds (1e80): written as 1.234e+80.
  if (magnitude < -6 || magnitude >= 15) return printed("%.*g", significant, value);
  const int decimals = std::max(0, significant - 1 - magnitude);
  return printed("%.*f", decimals, value);
}

std::string fmt_range(double median, double min, double max, int significant) {
  if (!std::isfinite(median)) return "-";
  const std::string m = fmt_sig(median, significant), lo = fmt_sig(min, significant), hi = fmt_sig(max, significant);
  if (lo == hi) return m;
  return m + " (" + lo + "–" + hi + ")";
}

std::string fmt_times(double ratio) { return std::isfinite(ratio) ? fmt_fixed(ratio, 2) + "x" : "-"; }

std::string fmt_times_interval(const RatioInterval& r, const std::string& none, const std::string& note) {
  if (!std::isfinite(r.ratio)) return "-";
  return fmt_times(r.ratio) +
         (r.has_interval() ? " (" + fmt_fixed(r.lo, 2) + "-" + fmt_fixed(r.hi, 2) + note + ")" : none);
}

}  // namespace bench_mps::harness
