#include "harness/workers/workload_kind.hpp"

#include "harness/common/word_table.hpp"

namespace bench_mps::harness {
namespace {

constexpr WordTable<WorkloadKind, 10> kWorkloadWords{{
    {WorkloadKind::spin, "spin"},
    {WorkloadKind::mlp, "mlp"},
    {WorkloadKind::membw, "membw"},
    {WorkloadKind::filler, "filler"},
    {WorkloadKind::mlp_infer, "mlp-infer"},
    {WorkloadKind::duty, "duty"},
    {WorkloadKind::exec, "exec"},
    {WorkloadKind::cpu, "cpu"},
    {WorkloadKind::fault, "fault"},
    {WorkloadKind::xray, "xray"},
}};

}  // namespace

std::string_view workload_kind_name(WorkloadKind kind) { return word_of(kWorkloadWords, kind).value_or("?"); }

std::optional<WorkloadKind> parse_workload_kind(std::string_view word) { return value_of(kWorkloadWords, word); }

std::string to_string(WorkloadKind kind) { return std::string(workload_kind_name(kind)); }

std::ostream& operator<<(std::ostream& out, WorkloadKind kind) { return out << workload_kind_name(kind); }

}  // namespace bench_mps::harness
