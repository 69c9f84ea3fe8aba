#include "harness/results/gpus_index.hpp"
#include "harness/common/json_text.hpp"

#include <nlohmann/json.hpp>

#include "harness/common/csv_table.hpp"
#include "harness/common/files.hpp"
#include "harness/common/markdown_table.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

nlohmann::json entry_json(const GpusIndexEntry& e) {
  auto text = [](const std::string& s) { return s.empty() ? nlohmann::json() : nlohmann::json(s); };
  return {{"folder", e.folder},
          {"device", e.device},
          {"gpu_name", text(e.gpu_name)},
          {"uuid", text(e.uuid)},
          {"index", e.index >= 0 ? nlohmann::json(e.index) : nlohmann::json()},
          {"cpus", text(e.cpus)},
          {"exit_code", e.exit_code ? nlohmann::json(*e.exit_code) : nlohmann::json()},
          {"status", e.status}};
}

std::string index_markdown(const GpusIndex& index) {
  std::string argv;
  for (const std::string& a : index.argv) argv += (argv.empty() ? "" : " ") + a;
  MarkdownTable t({"folder", "device", "GPU", "CPUs", "exit code", "status"}, {false, false, false, false, true});
  for (const GpusIndexEntry& e : index.gpus)
    t.add_row({"[" + e.folder + "](" + e.folder + "/)", e.device, e.gpu_name.empty() ? "-" : e.gpu_name,
               e.cpus.empty() ? "all" : e.cpus, e.exit_code ? std::to_string(*e.exit_code) : "-", e.status});
  return "# One sweep per GPU\n\n`" + argv + "`\n\nStarted " + index.started_utc + ", finished " +
         (index.finished_utc.empty() ? "-" : index.finished_utc) + ", status " + index.status +
         ". `bench_mps report` on this folder compares the GPUs.\n\n" + t.str();
}

}  // namespace

void write_gpus_index(const fs::path& dir, const GpusIndex& index) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpusIndexEntry& e : index.gpus) gpus.push_back(entry_json(e));
  const nlohmann::json j{
      {"format", "bench_mps gpus index"},
      {"format_version", kGpusIndexFormatVersion},
      {"argv", index.argv},
      {"started_utc", index.started_utc},
      {"finished_utc", index.finished_utc.empty() ? nlohmann::json() : nlohmann::json(index.finished_utc)},
      {"status", index.status},
      {"gpus", gpus}};
  write_file_atomically(dir / kGpusIndexFile, json_text(j, 2) + "\n");
  write_file_atomically(dir / "index.md", index_markdown(index));
}

GpusIndex read_gpus_index(const fs::path& dir) {
  const fs::path file = dir / kGpusIndexFile;
  const std::string where = file.string();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_input_file(file));
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(where + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("format_version") || !j["format_version"].is_number_integer())
    throw ResultsError(where + ": no format_version: not a bench_mps --gpus index");
  if (j["format_version"].get<int>() != kGpusIndexFormatVersion)
    throw ResultsError(where + ": format version " + std::to_string(j["format_version"].get<int>()) +
                       ", this bench_mps reads " + std::to_string(kGpusIndexFormatVersion));
  GpusIndex index;
  try {
    index.argv = j.value("argv", std::vector<std::string>{});
    index.started_utc = j.value("started_utc", "");
    index.status = j.value("status", "");
    if (j.contains("finished_utc") && j["finished_utc"].is_string()) index.finished_utc = j["finished_utc"];
    for (const auto& g : j.at("gpus")) {
      GpusIndexEntry e;
      e.folder = g.at("folder").get<std::string>();
      e.device = g.value("device", "");
      if (g.contains("gpu_name") && g["gpu_name"].is_string()) e.gpu_name = g["gpu_name"];
      if (g.contains("uuid") && g["uuid"].is_string()) e.uuid = g["uuid"];
      if (g.contains("index") && g["index"].is_number_integer()) e.index = g["index"];
      if (g.contains("cpus") && g["cpus"].is_string()) e.cpus = g["cpus"];
      if (g.contains("exit_code") && g["exit_code"].is_number_integer()) e.exit_code = g["exit_code"].get<int>();
      e.status = g.value("status", "");
      if (e.folder.empty() || fs::path(e.folder).is_absolute() || e.folder.find("..") != std::string::npos)
        throw ResultsError(where + ": folder '" + e.folder + "' is not a folder inside " + dir.string());
      index.gpus.push_back(e);
    }
  } catch (const nlohmann::json::exception& e) {
    throw ResultsError(where + ": a value has the wrong type or is missing (" + std::string(e.what()) + ")");
  }
  return index;
}

}  // namespace bench_mps::harness
