#include "harness/plan/mode_names.hpp"

#include "harness/common/errors.hpp"
#include "harness/common/word_table.hpp"
#include "harness/plan/sweep_cli.hpp"

namespace bench_mps::harness {
namespace {

constexpr WordTable<ModeKind, 5> kModeKindWords{{{ModeKind::timeslice, "timeslice"},
                                                 {ModeKind::mps, "mps"},
                                                 {ModeKind::streams, "streams"},
                                                 {ModeKind::threads, "threads"},
                                                 {ModeKind::green, "green"}}};

}  // namespace

std::string_view mode_kind_word(ModeKind kind) { return word_of(kModeKindWords, kind).value_or("?"); }

bool is_plain(const Mode& mode, ModeKind kind) { return mode.name == mode_kind_word(kind); }

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

std::optional<Mode> mode_in_results(const std::string& name) {
  const std::optional<NamedMode> named = mode_of_name(name);
  if (!named || named->external) return std::nullopt;
  return named->mode;
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
