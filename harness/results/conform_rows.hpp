#pragma once
// `bench_mps conform`'s results: one row per MPS lever with its verdict, the expectation it was held
// to, the evidence measured and (for SKIP / ERROR) the reason. Written as conform.json (versioned, with
// the machine's metadata), conform.csv and conform.md; read back by compare and the fleet report.
#include "harness/results/wing.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bench_mps::harness {

/// Bumped when a field of conform.json changes meaning or goes away (readers refuse other versions).
inline constexpr int kConformSchemaVersion = 1;
inline constexpr const char* kConformJsonFile = "conform.json";

/// PASS: the lever held to its expectation; FAIL: it did not (the evidence says how far); SKIP: not
/// measured here (the reason says why, e.g. the version found); ERROR: the measurement itself failed.
/// inconclusive: a timed criterion whose interval still crossed it when its runs or budget ended.
enum class ConformVerdict { pass, fail, skip, error, inconclusive };

/// "PASS", "FAIL", "SKIP", "ERROR", "INCONCLUSIVE".
std::string conform_verdict_name(ConformVerdict v);
/// The verdict a name spells; nothing for any other text.
std::optional<ConformVerdict> parse_conform_verdict(const std::string& name);

struct ConformRow {
  std::string id;     ///< e.g. "thread-pct"
  std::string lever;  ///< what is checked, in words
  ConformVerdict verdict = ConformVerdict::error;
  std::string expectation;  ///< what PASS needs, with its tolerance
  std::string evidence;     ///< the numbers measured
  std::string reason;       ///< SKIP / ERROR: why (empty otherwise)
  double seconds = 0;       ///< time the row took
};

struct ConformResults {
  nlohmann::json meta;  ///< conform.json without "rows": schema, tool, host, gpu, mps, argv, times, status
  std::vector<ConformRow> rows;
};

/// Writes conform.json, conform.csv and conform.md into `dir` (each replaced atomically).
void write_conform(const std::filesystem::path& dir, const ConformResults& results);
/// The markdown table (id, verdict, expectation, evidence, reason) conform.md and the screen show.
std::string conform_table_markdown(const std::vector<ConformRow>& rows);

/// Whether `dir` holds conform results (a conform.json).
bool is_conform_folder(const std::filesystem::path& dir);
/// Reads conform.json back; a ResultsError (exit 2) names the file and the problem.
ConformResults read_conform(const std::filesystem::path& dir);

}  // namespace bench_mps::harness
