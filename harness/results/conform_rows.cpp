#include "harness/results/conform_rows.hpp"

#include <algorithm>
#include <cmath>
#include "harness/results/meta.hpp"
#include "harness/common/json_text.hpp"

#include <array>

#include "harness/common/csv_table.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_writer.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

constexpr std::array<std::pair<ConformVerdict, const char*>, 5> kVerdictNames{
    {{ConformVerdict::pass, "PASS"},
     {ConformVerdict::fail, "FAIL"},
     {ConformVerdict::skip, "SKIP"},
     {ConformVerdict::error, "ERROR"},
     {ConformVerdict::inconclusive, "INCONCLUSIVE"}}};

nlohmann::json row_json(const ConformRow& r) {
  return {{"id", r.id},
          {"lever", r.lever},
          {"verdict", conform_verdict_name(r.verdict)},
          {"expectation", r.expectation},
          {"evidence", r.evidence},
          {"reason", r.reason},
          {"seconds", r.seconds}};
}

ConformRow row_from_json(const nlohmann::json& j, const std::string& where) {
  ConformRow r;
  r.id = j.at("id").get<std::string>();
  r.lever = j.at("lever").get<std::string>();
  const std::string verdict = j.at("verdict").get<std::string>();
  const auto v = parse_conform_verdict(verdict);
  if (!v) throw ResultsError(where + ": row " + r.id + ": unknown verdict '" + verdict + "'");
  r.verdict = *v;
  r.expectation = j.at("expectation").get<std::string>();
  r.evidence = j.at("evidence").get<std::string>();
  r.reason = j.at("reason").get<std::string>();
  r.seconds = j.at("seconds").get<double>();
  if (!std::isfinite(r.seconds) || r.seconds < 0 || r.seconds > 1e7)
    throw ResultsError(where + ": row " + r.id.substr(0, 40) + ": seconds " + j.at("seconds").dump().substr(0, 40) +
                       " is not a time a row took");
  if (r.id.empty()) throw ResultsError(where + ": a row without a lever id");
  return r;
}

std::string conform_csv(const std::vector<ConformRow>& rows) {
  std::string text = csv_line({"id", "verdict", "lever", "expectation", "evidence", "reason", "seconds_s"});
  for (const ConformRow& r : rows)  // csv_line ends each line
    text += csv_line(
        {r.id, conform_verdict_name(r.verdict), r.lever, r.expectation, r.evidence, r.reason, fmt_fixed(r.seconds, 1)});
  return text;
}

}  // namespace

std::string conform_verdict_name(ConformVerdict v) {
  for (const auto& [verdict, name] : kVerdictNames)
    if (verdict == v) return name;
  return "ERROR";
}

std::optional<ConformVerdict> parse_conform_verdict(const std::string& name) {
  for (const auto& [verdict, text] : kVerdictNames)
    if (name == text) return verdict;
  return std::nullopt;
}

std::string conform_table_markdown(const std::vector<ConformRow>& rows) {
  MarkdownTable table({"lever", "verdict", "expectation", "evidence", "reason"});
  for (const ConformRow& r : rows)
    table.add_row({r.id, conform_verdict_name(r.verdict), r.expectation, r.evidence.empty() ? "-" : r.evidence,
                   r.reason.empty() ? "-" : r.reason});
  return table.str();
}

void write_conform(const fs::path& dir, const ConformResults& results) {
  nlohmann::json j = results.meta;
  j["conform_schema_version"] = kConformSchemaVersion;
  j["rows"] = nlohmann::json::array();
  for (const ConformRow& r : results.rows) j["rows"].push_back(row_json(r));
  write_file_atomically(dir / kConformJsonFile, json_text(j, 2) + "\n");
  write_file_atomically(dir / "conform.csv", conform_csv(results.rows));
  const std::string machine = machine_line(results.meta, "no GPU (CPU stand-ins)");
  std::string stopped;
  if (results.meta.contains("not_judged") && results.meta["not_judged"].is_array()) {
    for (const nlohmann::json& id : results.meta["not_judged"])
      stopped += (stopped.empty() ? "" : ", ") + (id.is_string() ? id.get<std::string>() : id.dump());
    stopped = "**Interrupted** by a stop signal: not judged: " + stopped + ".\n\n";
  }
  write_file_atomically(dir / "conform.md", "# Does each MPS lever hold? (bench_mps conform)\n\n" + machine + ", " +
                                                results.meta.value("started_utc", std::string()) + "\n\n" + stopped +
                                                conform_table_markdown(results.rows));
}

bool is_conform_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kConformJsonFile, ec);
}

ConformResults read_conform(const fs::path& dir) {
  const fs::path file = dir / kConformJsonFile;
  const std::string where = file.string();
  if (!is_conform_folder(dir)) throw ResultsError(where + ": not found (not a conform results folder)");
  ConformResults results;
  try {
    nlohmann::json j = nlohmann::json::parse(read_input_file(file));
    const int version = j.at("conform_schema_version").get<int>();
    if (version != kConformSchemaVersion)
      throw ResultsError(where + ": conform_schema_version " + std::to_string(version) + ", this bench_mps reads " +
                         std::to_string(kConformSchemaVersion));
    for (const nlohmann::json& row : j.at("rows")) {
      results.rows.push_back(row_from_json(row, where));
      const std::string& id = results.rows.back().id;  // one row per lever: a second would hide the first's verdict
      if (std::count_if(results.rows.begin(), results.rows.end(), [&id](const ConformRow& r) { return r.id == id; }) >
          1)
        throw ResultsError(where + ": lever '" + id.substr(0, 40) + "' has two rows");
    }
    j.erase("rows");
    results.meta = std::move(j);
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(where + ": " + json_value_problem(e));
  }
  return results;
}

}  // namespace bench_mps::harness
