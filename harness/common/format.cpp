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
  std::string text = printed("%.*f", decimals, value);
  if (text[0] == '-' && text.find_first_of("123456789") == std::string::npos) text.erase(0, 1);  // "-0.0"
  return text;
}

std::string fmt_signed(double value, int decimals, bool sign_zero) {
  if (std::isnan(value)) return "-";
  const std::string text = fmt_fixed(value, decimals);
  if (text[0] == '-') return text;
  const bool zero = text.find_first_of("123456789") == std::string::npos;
  return zero && !sign_zero ? text : "+" + text;
}

std::string fmt_change(double fraction, bool sign_zero) {
  return std::isfinite(fraction) ? fmt_signed(100 * fraction, 1, sign_zero) + "%" : "-";
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

namespace {

/// The length of the valid UTF-8 sequence at text[i] (1 for ASCII), or 0 where none starts there.
std::size_t utf8_sequence_at(const std::string& text, std::size_t i) {
  const auto byte = [&text](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  const std::size_t n = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  const unsigned char b1 = byte(i + 1);  // no overlong forms, surrogates or code points past U+10FFFF
  if ((b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 > 0x9F) || (b == 0xF0 && b1 < 0x90) || (b == 0xF4 && b1 > 0x8F))
    return 0;
  return n;
}

}  // namespace

std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      out += '?';
      ++i;
    } else if (const std::size_t n = utf8_sequence_at(text, i)) {
      out.append(text, i, n);
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
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
