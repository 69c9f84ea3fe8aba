#include "harness/compare/compare_conform.hpp"

#include <algorithm>
#include <optional>

#include "harness/common/markdown_table.hpp"
#include "harness/results/results_writer.hpp"

namespace bench_mps::harness {
namespace {

/// How a lever's verdict moved from `base` to `next`.
std::string change_of(const std::optional<ConformRow>& base, const std::optional<ConformRow>& next) {
  if (!base) return "only in new";
  if (!next) return "only in base";
  if (base->verdict == next->verdict) return "same";
  if (base->verdict == ConformVerdict::pass && next->verdict == ConformVerdict::fail) return "REGRESSION";
  if (base->verdict == ConformVerdict::fail && next->verdict == ConformVerdict::pass) return "fixed";
  return "changed";
}

std::string verdict_of(const std::optional<ConformRow>& r) { return r ? conform_verdict_name(r->verdict) : "-"; }

/// Evidence, else the reason, else "-".
std::string finding_of(const std::optional<ConformRow>& r) {
  if (!r) return "-";
  if (!r->evidence.empty()) return r->evidence;
  return r->reason.empty() ? "-" : r->reason;
}

std::string machine(const ConformResults& r) {
  const nlohmann::json& gpu = r.meta.value("gpu", nlohmann::json());
  if (!gpu.is_object()) return "no GPU (CPU stand-ins)";
  return gpu.value("name", std::string("?")) + ", driver " + gpu.value("driver_version", std::string("?"));
}

/// "LABEL: status S" where `r`'s run did not complete (stopped, or still running), "" where it did.
std::string incomplete_side(const ConformResults& r, const std::string& label) {
  const nlohmann::json status = r.meta.value("status", nlohmann::json());
  if (status.is_string() && status.get<std::string>() == "complete") return "";
  return label + ": status " + (status.is_string() ? status.get<std::string>() : std::string("not recorded"));
}

std::optional<ConformRow> row_of(const ConformResults& r, const std::string& id) {
  const auto it = std::find_if(r.rows.begin(), r.rows.end(), [&](const ConformRow& x) { return x.id == id; });
  return it == r.rows.end() ? std::nullopt : std::optional<ConformRow>(*it);
}

}  // namespace

ConformComparison compare_conform(const ConformResults& base, const ConformResults& next, const std::string& base_label,
                                  const std::string& next_label) {
  std::vector<std::string> ids;
  for (const ConformResults* side : {&base, &next})
    for (const ConformRow& r : side->rows)
      if (std::find(ids.begin(), ids.end(), r.id) == ids.end()) ids.push_back(r.id);
  ConformComparison c;
  MarkdownTable table({"lever", "base", "new", "change", "base evidence", "new evidence"});
  c.csv =
      csv_line({"lever", "base_verdict", "new_verdict", "change", "base_evidence", "new_evidence"});  // ends the line
  for (const std::string& id : ids) {
    const std::optional<ConformRow> b = row_of(base, id), n = row_of(next, id);
    const std::string change = change_of(b, n);
    if (b && n) ++c.paired;
    if (change == "REGRESSION") ++c.regressions;
    if (b && (!n || n->verdict == ConformVerdict::error)) ++c.unjudged;
    table.add_row({id, verdict_of(b), verdict_of(n), change == "REGRESSION" ? "**REGRESSION**" : change, finding_of(b),
                   finding_of(n)});
    c.csv += csv_line({id, verdict_of(b), verdict_of(n), change, finding_of(b), finding_of(n)});
  }
  for (const std::string& side : {incomplete_side(base, "base"), incomplete_side(next, "new")})
    if (!side.empty()) c.incomplete += (c.incomplete.empty() ? "" : "; ") + side;
  c.markdown =
      "# conform: " + base_label + " vs " + next_label + "\n\nbase: " + machine(base) + "; new: " + machine(next) +
      "\n\n" +
      (c.incomplete.empty() ? std::string()
                            : "**Not a complete run** (" + c.incomplete + "): its missing levers are not judged.\n\n") +
      table.str() + "\n" + std::to_string(c.paired) + " levers in both: " + std::to_string(c.regressions) +
      " REGRESSION (PASS -> FAIL); " + std::to_string(c.unjudged) + " of base's not judged in new (missing or ERROR)\n";
  return c;
}

}  // namespace bench_mps::harness
