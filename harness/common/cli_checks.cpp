#include "harness/common/cli_checks.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <utility>
#include <vector>

#include "harness/common/format.hpp"

namespace bench_mps::harness {

CLI::Validator not_blank() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.find_first_not_of(" \t\r\n") == std::string::npos ? std::string("it is empty: give a value")
                                                                      : std::string();
      },
      "TEXT");
}

std::size_t decimal_prefix(const std::string& text) {
  static const std::regex decimal(R"(^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)");
  std::smatch m;
  return std::regex_search(text, m, decimal) ? static_cast<std::size_t>(m.length(0)) : 0;
}

CLI::Validator finite_in(double lo, double hi) {
  const std::string range = fmt_num(lo) + ".." + fmt_num(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || decimal_prefix(text) != text.size() || end != text.c_str() + text.size() ||
            (errno == ERANGE && std::fabs(v) > 1) || !std::isfinite(v) || v < lo || v > hi)
          return "'" + text.substr(0, 40) + "' is not a number in " + range;
        return "";
      },
      "number in " + range);
}

CLI::Validator whole_in(long long lo, long long hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || v < lo || v > hi)
          return "'" + text.substr(0, 40) + "' is not a whole number in " + range;
        // CLI11 converts with base 0 after this check: "010" would become 8, "0x10" is refused above.
        const std::size_t digits = text.find_first_not_of("+- \t");
        if (digits != std::string::npos && text[digits] == '0' && digits + 1 < text.size())
          return "'" + text.substr(0, 40) + "' has a leading zero (write " + std::to_string(v) + ")";
        return "";
      },
      "whole number in " + range);
}

std::string plain_cli_error(const CLI::Error& error) {
  static const std::vector<std::pair<std::regex, std::string>> rewrites{
      {std::regex("^Could not convert: (\\S+) = (.{0,40}).*$"), "$1: '$2' is not a valid value"},
      {std::regex("^(\\S+): At Most 1 required but received ([0-9]+)$"), "$1: given $2 times; give it once"},
      {std::regex("^(\\S+): [0-9]+ required \\S+ missing$"), "$1 needs a value"},
      {std::regex("^Expected (?:exactly|at least) ([0-9]+) arguments? to (\\S+), got ([0-9]+)$"),
       "$2 takes $1 value(s), got $3"},
      {std::regex("^(.+) is required$"), "missing $1 (see --help)"},
      {std::regex("^The following arguments? (?:was|were) not expected: (.*)$"),
       "unknown option or extra argument: $1 (see --help)"},
      {std::regex("^(\\S+) excludes (\\S+)$"), "$1 and $2 cannot be given together"},
      {std::regex("^(\\S+) requires (\\S+)$"), "$1 needs $2 as well"},
  };
  const std::string text = error.what();
  for (const auto& [pattern, replacement] : rewrites)
    if (std::regex_match(text, pattern)) return std::regex_replace(text, pattern, replacement);
  return text;
}

}  // namespace bench_mps::harness
