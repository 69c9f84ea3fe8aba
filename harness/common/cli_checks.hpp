#pragma once
// Validators for numeric command-line options. CLI11's Range lets NaN through (every comparison with
// NaN is false) and its PositiveNumber prints the largest double in full; these reject anything but a
// finite number in [lo, hi] and say so in one short line: "--duration: nan is not a number in 0.001..86400".
#include "harness/common/wing.hpp"

#include <cstddef>
#include <string>

namespace CLI {
class Validator;
class Error;
}  // namespace CLI

namespace bench_mps::harness {

/// How many leading characters of `text` spell a decimal number ([-+]digits[.digits][e[-+]digits]); 0 for none.
/// strtod alone would also read hex (0x10 as 16, 0x1p4), "inf" and "nan": where a value is typed, only this is.
std::size_t decimal_prefix(const std::string& text);

/// A finite real number in [lo, hi], written in decimal.
CLI::Validator finite_in(double lo, double hi);
/// A whole number in [lo, hi] (no sign tricks, no exponent, no fraction, no leading zero).
CLI::Validator whole_in(long long lo, long long hi);

/// A text with something in it: '' or blanks only are refused ("is empty"), where the option needs a value.
CLI::Validator not_blank();

/// CLI11's parse error in our words: "--procs: given 2 times; give it once" for "--procs: At Most 1
/// required but received 2", "missing new (see --help)" for "new is required", and so on. Messages
/// that are already ours (the validators above) pass through unchanged.
std::string plain_cli_error(const CLI::Error& error);

}  // namespace bench_mps::harness
