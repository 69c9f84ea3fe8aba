// meta.json lookups for compare. Results folders are read before they are trusted, so every lookup
// walks the JSON defensively: a missing key or a wrongly shaped section is a null value, not a throw.
#include "harness/compare/compare_meta.hpp"
#include "harness/common/json_text.hpp"

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"

namespace bench_mps::harness {
namespace {

nlohmann::json lookup(const nlohmann::json& meta, const std::string& dotted) {
  const nlohmann::json* node = &meta;
  for (const auto& part : split(dotted, '.')) {
    if (!node->is_object()) return nullptr;
    const auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return *node;
}

}  // namespace

const std::vector<std::string>& compared_meta_keys() {
  static const std::vector<std::string> keys{
      "gpu.name",
      "gpu.uuid",  // another card of one model: two H100s differed by 1.0-1.5% in time-sliced mlp here
      "gpu.driver_version",
      "gpu.cuda_driver_version",
      "gpu.cuda_runtime_version",
      "gpu.compute_mode",
      "mps.version",
      "gpu.max_sm_clock_mhz",
      "gpu.max_mem_clock_mhz",
      "gpu.sm_count",
      "gpu.conditions_start.power_limit_w",
      "gpu.conditions_start.persistence_mode",
      "gpu.conditions_start.app_sm_clock_mhz",
      "gpu.conditions_start.app_mem_clock_mhz",
      "gpu.conditions_start.ecc_mode",
      "gpu.conditions_start.timeslice_policy",  // nvidia-smi compute-policy: how long a context keeps its turn
      "gpu.conditions_start.clock_event_reasons",
      "gpu.conditions_end.clock_event_reasons",
      "gpu.conditions_start.temperature_c",
      "host.cpu_model",
      "host.cpu_governor",
      "host.kernel",
      "environment",
      "tool.build.cxx_compiler",
      "tool.build.cuda_compiler",
      "tool.build.cuda_architectures",
      "tool.build.cublas_headers",
      "tool.git_sha",
      "tool.git_dirty"};
  return keys;
}

bool can_explain_a_change(const std::string& key) {
  // Temperature and the git sha differ between any two runs; the rest each changes what a run measures.
  return key != "gpu.conditions_start.temperature_c" && key != "tool.git_sha" && key != "gpu.name";
}

std::vector<MetaDiffRow> diff_metadata(const nlohmann::json& base, const nlohmann::json& next) {
  std::vector<MetaDiffRow> rows;
  for (const auto& key : compared_meta_keys()) {
    MetaDiffRow row;
    row.key = key;
    row.base = lookup(base, key);
    row.next = lookup(next, key);
    row.differs = row.base != row.next;
    row.can_explain = row.differs && can_explain_a_change(key);
    rows.push_back(row);
  }
  return rows;
}

std::string meta_value_text(const nlohmann::json& value) {
  if (value.is_null()) return "-";
  if (value.is_string()) return one_line(value.get<std::string>());
  return one_line(json_text(value));
}

void check_same_gpu(const nlohmann::json& base, const nlohmann::json& next, bool allow) {
  const nlohmann::json a = lookup(base, "gpu.name"), b = lookup(next, "gpu.name");
  if (allow || a == b) return;
  // a folder without a GPU (scripts/run.sh --demo, CPU workers) records none: say so, not "-"
  const auto gpu = [](const nlohmann::json& name) {
    return name.is_null() ? std::string(
                                "no GPU (its meta.json records none: a run on the CPU, as scripts/run.sh "
                                "--demo makes)")
                          : meta_value_text(name);
  };
  throw UsageError("different GPUs: base has " + gpu(a) + ", new has " + gpu(b) +
                   " (pass --allow-different-gpu to compare them anyway)");
}

std::string meta_text(const nlohmann::json& meta, const char* section, const char* key) {
  if (!meta.contains(section) || !meta[section].is_object() || !meta[section].contains(key) ||
      meta[section][key].is_null())
    return "";
  const nlohmann::json& v = meta[section][key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::vector<std::string> testbed_of(const nlohmann::json& meta) {
  const std::string memory = meta_text(meta, "gpu", "memory_total_bytes");
  std::string mem = "?";
  if (!memory.empty()) mem = fmt_fixed(std::strtod(memory.c_str(), nullptr) / (1024.0 * 1024 * 1024), 1) + " GiB";
  const std::string name = meta_text(meta, "gpu", "name"), sms = meta_text(meta, "gpu", "sm_count"),
                    cpu = meta_text(meta, "host", "cpu_model");
  return {name.empty() ? "no GPU" : name, sms.empty() ? "?" : sms + " SMs", mem, cpu.empty() ? "?" : cpu};
}

std::string testbed_text(const std::vector<std::string>& f) { return f[0] + ", " + f[1] + ", " + f[2] + "; " + f[3]; }

namespace {

/// Field `i` recorded on both sides, and different.
bool field_differs(const std::vector<std::string>& a, const std::vector<std::string>& b, std::size_t i) {
  return a[i] != b[i] && a[i] != "?" && b[i] != "?";
}

}  // namespace

bool same_testbed(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (field_differs(a, b, i)) return false;
  return true;
}

std::string testbed_line(const nlohmann::json& base, const nlohmann::json& next) {
  const std::vector<std::string> a = testbed_of(base), b = testbed_of(next);
  static const char* const kNames[] = {"GPU model", "SM count", "GPU memory", "host CPU model"};
  std::string differs;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (field_differs(a, b, i))
      differs += (differs.empty() ? "" : "; ") + std::string(kNames[i]) + " " + a[i] + " -> " + b[i];
  if (!differs.empty()) return "Testbed differs: " + differs + ": a change may be the testbed's, not the software's";
  std::vector<std::string> known = a;
  std::string missing, neither;  // recorded by one side only; by no side (a CPU stand-in's GPU fields)
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] == "?" && b[i] == "?") {
      neither += (neither.empty() ? "" : ", ") + std::string(kNames[i]);
    } else if (a[i] == "?" || b[i] == "?") {
      if (a[i] == "?") known[i] = b[i];
      missing += (missing.empty() ? "" : ", ") + std::string(kNames[i]);
    }
  return "Testbed: the same (" + testbed_text(known) + ")" +
         (missing.empty() ? std::string() : "; not recorded on one side: " + missing) +
         (neither.empty() ? std::string() : "; recorded on neither side: " + neither);
}

}  // namespace bench_mps::harness
