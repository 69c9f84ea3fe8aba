#include "harness/common/run_status.hpp"

#include <stdexcept>

#include "harness/common/word_table.hpp"

namespace bench_mps::harness {
namespace {

constexpr WordTable<RunStatus, 15> kStatusWords{{
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
  if (const std::optional<std::string_view> word = word_of(kStatusWords, status)) return *word;
  throw std::logic_error("status_name: a RunStatus without a word");
}

std::optional<RunStatus> parse_run_status(std::string_view word) { return value_of(kStatusWords, word); }

std::string to_string(RunStatus status) { return std::string(status_name(status)); }

std::ostream& operator<<(std::ostream& out, RunStatus status) { return out << status_name(status); }

}  // namespace bench_mps::harness
