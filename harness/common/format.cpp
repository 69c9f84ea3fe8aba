#include "harness/common/format.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace bench_mps::harness {

std::string fmt_num(double value, int significant) {
  if (std::isnan(value)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant, value);
  return buf;
}

std::string fmt_fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  if (std::fabs(value) >= kFixedUpTo) return printed("%.*e", 3, value);  // 1e300: "1.000e+300", not 301 digits
  return printed("%.*f", decimals, value);
}

std::string printed(const char* format, int precision, double value) {
  const int size = std::snprintf(nullptr, 0, format, precision, value);  // 1e300 with "%.2f" is 303 characters
  if (size < 0) return "-";
  std::string out(static_cast<std::size_t>(size) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, precision, value);
  out.resize(static_cast<std::size_t>(size));
  return out;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  for (;;) {
    const auto pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos - start));
    if (pos == std::string::npos) return parts;
    start = pos + 1;
  }
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string one_line(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return trim(out);
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    const bool plain = !w.empty() && w.find_first_not_of(
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                         "0123456789_./:=,+@%-") == std::string::npos;
    std::string word = plain ? w : "'";
    if (!plain) {
      for (const char c : w) word += c == '\'' ? std::string("'\\''") : std::string(1, c);
      word += "'";
    }
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

}  // namespace bench_mps::harness
