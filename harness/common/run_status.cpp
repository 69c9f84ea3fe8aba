#include "harness/common/run_status.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace bench_mps::harness {
namespace {

constexpr std::array<std::pair<RunStatus, std::string_view>, 15> kStatusWords{{
    {RunStatus::ok, "ok"},
    {RunStatus::error, "error"},
    {RunStatus::crashed, "crashed"},
    {RunStatus::timeout, "timeout"},
    {RunStatus::aborted, "aborted"},
    {RunStatus::interrupted, "interrupted"},
    {RunStatus::mode_mismatch, "mode_mismatch"},
    {RunStatus::mps_error, "mps_error"},
    {RunStatus::mps_mem_limit, "mps_mem_limit"},
    {RunStatus::mps_unproven, "mps_unproven"},
    {RunStatus::fault_not_triggered, "fault_not_triggered"},
    {RunStatus::exec_not_found, "exec_not_found"},
    {RunStatus::exec_failed, "exec_failed"},
    {RunStatus::exec_timeout, "exec_timeout"},
    {RunStatus::exec_left_children, "exec_left_children"},
}};

}  // namespace

std::string_view status_name(RunStatus status) {
  for (const auto& [s, word] : kStatusWords)
    if (s == status) return word;
  throw std::logic_error("status_name: a RunStatus without a word");
}

std::optional<RunStatus> parse_run_status(std::string_view word) {
  for (const auto& [s, w] : kStatusWords)
    if (w == word) return s;
  return std::nullopt;
}

std::string to_string(RunStatus status) { return std::string(status_name(status)); }

std::ostream& operator<<(std::ostream& out, RunStatus status) { return out << status_name(status); }

}  // namespace bench_mps::harness
