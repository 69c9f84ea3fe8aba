#include "harness/plan/mode_names.hpp"

#include "harness/common/errors.hpp"
#include "harness/plan/sweep_cli.hpp"

namespace bench_mps::harness {

std::optional<NamedMode> mode_of_name(const std::string& name) {
  static const std::string external = "external-";  // --external-mps's runs (harness/sweep/external_mps)
  NamedMode named;
  std::string base = name;
  if (base.compare(0, external.size(), external) == 0) {
    named.external = true;
    base = base.substr(external.size());
  }
  try {
    named.mode = parse_mode(base);
  } catch (const UsageError&) {
    return std::nullopt;
  }
  return named;
}

bool has_mps_options(const Mode& mode) {
  return mode.prio_first || !mode.client_priorities.empty() || !mode.client_mem_limits.empty() ||
         !mode.client_pcts.empty();
}

bool is_limited_mps(const Mode& mode) {
  return mode.kind == ModeKind::mps && (mode.auto_pct || mode.active_thread_pct > 0 || !mode.client_pcts.empty());
}

bool is_limited_mps_mode(const std::string& name) {
  const auto named = mode_of_name(name);
  return named && !named->external && is_limited_mps(named->mode);
}

}  // namespace bench_mps::harness
