#include "harness/common/option_args.hpp"

#include <algorithm>

namespace bench_mps::harness {

std::vector<std::string> with_missing_options(std::vector<std::string> args, const std::vector<std::string>& extra) {
  const std::vector<std::string> given = args;
  for (std::size_t i = 0; i < extra.size(); ++i) {
    if (extra[i].rfind("--", 0) != 0) continue;
    const bool valued = i + 1 < extra.size() && extra[i + 1].rfind("--", 0) != 0;
    const std::string& name = extra[i];
    const bool present = std::any_of(
        given.begin(), given.end(), [&name](const std::string& a) { return a == name || a.rfind(name + "=", 0) == 0; });
    if (!present) {
      args.push_back(name);
      if (valued) args.push_back(extra[i + 1]);
    }
    if (valued) ++i;
  }
  return args;
}

}  // namespace bench_mps::harness
