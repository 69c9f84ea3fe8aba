#pragma once
// Command lines built from parts: one part's options added to another's where it does not give them already.
#include "harness/common/wing.hpp"

#include <string>
#include <vector>

namespace bench_mps::harness {

/// `args`, then each option of `extra` (a `--name`, and its value where the next word is not an option) that
/// `args` do not give already (as `--name` or `--name=value`): the options of `args` win. Words of `extra`
/// that are not options, outside a value, are left out.
std::vector<std::string> with_missing_options(std::vector<std::string> args, const std::vector<std::string>& extra);

}  // namespace bench_mps::harness
