#pragma once
// Small text helpers shared by writers, tables and messages.
#include "harness/common/wing.hpp"

#include <string>
#include <vector>

namespace bench_mps::harness {

/// Shortest faithful text of a number: 100 -> "100", 0.1 -> "0.1", NaN -> "" (an empty CSV cell).
std::string fmt_num(double value, int significant = 6);
/// Where fmt_fixed gives up fixed decimals: a number this large (a damaged or hostile file's) reads as 1.000e+15.
inline constexpr double kFixedUpTo = 1e15;
/// Fixed decimals: fmt_fixed(3.14159, 2) -> "3.14"; NaN -> "-"; from kFixedUpTo on, 4 significant digits and an
/// exponent, so a table cell stays a cell. A negative that rounds to zero prints as zero: fmt_fixed(-0.01, 1) -> "0.0",
/// never "-0.0" (a sign the shown number does not have).
std::string fmt_fixed(double value, int decimals);
/// fmt_fixed with its sign always shown: fmt_signed(2.34, 1) -> "+2.3", fmt_signed(-2.34, 1) -> "-2.3"; what rounds to
/// zero, either side, prints "+0.0", or "0.0" where `sign_zero` is false. NaN -> "-".
std::string fmt_signed(double value, int decimals, bool sign_zero = true);
/// A change as a fraction, in signed percent to a tenth: fmt_change(0.123) -> "+12.3%", fmt_change(-0.0004) -> "+0.0%"
/// ("0.0%" where `sign_zero` is false); NaN or infinite -> "-".
std::string fmt_change(double fraction, bool sign_zero = true);
/// `format` (one precision, one double: "%.*f", "%.*g") as long as it comes out, never cut at a buffer's end.
std::string printed(const char* format, int precision, double value);
/// Splits on `sep`, keeping empty fields.
std::vector<std::string> split(const std::string& text, char sep);
std::string trim(const std::string& text);
/// Replaces newlines and tabs by spaces, so a message stays on one line, and every other control byte and every
/// byte that is not part of valid UTF-8 by '?': a program's stderr quoted in a message cannot recolour or clear
/// the terminal, nor leave bytes a CSV or JSON reader refuses.
std::string one_line(const std::string& text);
/// UTC time as 2026-11-21T22:59:01Z.
std::string utc_timestamp();
/// A command line as a POSIX shell reads it back: each word that holds more than letters, digits and _./:=,+@%-
/// in single quotes (a ' inside as '\''), an empty word as ''.
std::string shell_words(const std::vector<std::string>& words);

}  // namespace bench_mps::harness
