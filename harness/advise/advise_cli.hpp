#pragma once
// `bench_mps advise`'s command line.
#include "harness/advise/wing.hpp"

#include "harness/advise/advise_spec.hpp"

namespace CLI {
class App;
}

namespace bench_mps::harness {

CLI::App* add_advise_command(CLI::App& app, AdviseSpec& spec, std::string& ladder_text);
/// Checks what CLI11 cannot (one subject, the ladder); throws UsageError.
void finalize_advise_spec(AdviseSpec& spec, const std::string& ladder_text, const CLI::App& cmd);

}  // namespace bench_mps::harness
