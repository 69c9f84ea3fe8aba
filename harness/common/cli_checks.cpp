#include "harness/common/cli_checks.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "harness/common/format.hpp"

namespace bench_mps::harness {

CLI::Validator finite_in(double lo, double hi) {
  const std::string range = fmt_num(lo) + ".." + fmt_num(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v) || v < lo ||
            v > hi)
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
        return "";
      },
      "whole number in " + range);
}

}  // namespace bench_mps::harness
