#include "harness/report/report_fleet_conform.hpp"

#include <algorithm>

#include "harness/common/markdown_table.hpp"
#include "harness/report/report_meta.hpp"

namespace bench_mps::harness {

FleetConform read_fleet_conform(const std::filesystem::path& dir, const std::string& label) {
  const ConformResults results = read_conform(dir);
  return {label, meta_text(results.meta, "/host/hostname"), meta_text(results.meta, "/gpu/name"),
          meta_text(results.meta, "/gpu/driver_version"), results.rows};
}

std::string render_fleet_conform(const std::vector<FleetConform>& conforms) {
  if (conforms.empty()) return "";
  std::vector<std::string> ids;  // levers in order of first appearance
  for (const FleetConform& c : conforms)
    for (const ConformRow& r : c.rows)
      if (std::find(ids.begin(), ids.end(), r.id) == ids.end()) ids.push_back(r.id);
  std::vector<std::string> header{"lever"};
  for (const FleetConform& c : conforms)
    header.push_back(c.label + " (" + c.host + ", " + (c.gpu_name == "-" ? "no GPU" : c.gpu_name) +
                     (c.driver == "-" ? "" : ", driver " + c.driver) + ")");
  MarkdownTable verdicts(header);
  for (const std::string& id : ids) {
    std::vector<std::string> cells{id};
    for (const FleetConform& c : conforms) {
      const auto it = std::find_if(c.rows.begin(), c.rows.end(), [&](const ConformRow& r) { return r.id == id; });
      cells.push_back(it == c.rows.end() ? "-" : conform_verdict_name(it->verdict));
    }
    verdicts.add_row(cells);
  }
  MarkdownTable findings({"folder", "lever", "verdict", "evidence", "reason"});
  for (const FleetConform& c : conforms)
    for (const ConformRow& r : c.rows)
      if (r.verdict == ConformVerdict::fail || r.verdict == ConformVerdict::error)
        findings.add_row({c.label, r.id, conform_verdict_name(r.verdict), r.evidence.empty() ? "-" : r.evidence,
                          r.reason.empty() ? "-" : r.reason});
  std::string md =
      "## MPS levers per GPU (conform)\n\nEach conform folder's verdict per lever (`bench_mps conform`; "
      "docs/CONFORM.md says what each row expects).\n\n" +
      verdicts.str() + "\n";
  md +=
      findings.empty() ? "No lever FAILed or ERRORed.\n\n" : "Rows that FAILed or ERRORed:\n\n" + findings.str() + "\n";
  return md;
}

}  // namespace bench_mps::harness
