#include "harness/mps/compute_mode.hpp"
#include "harness/common/json_text.hpp"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/proc_scan.hpp"
#include "harness/common/process.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// nvidia-smi's query spelling ("Exclusive_Process") to its -c argument ("EXCLUSIVE_PROCESS").
std::string mode_argument(const std::string& queried) {
  std::string mode = trim(queried);
  for (char& c : mode) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (mode != "DEFAULT" && mode != "EXCLUSIVE_PROCESS" && mode != "PROHIBITED")
    throw EnvironmentError("nvidia-smi reported an unknown compute mode '" + queried + "'");
  return mode;
}

void set_mode(const std::string& smi, const std::string& gpu, const std::string& mode, const fs::path& scratch) {
  const CommandResult r = run_command(smi, {"-i", gpu, "-c", mode}, {}, "", 30, scratch);
  if (r.exit_code != 0)
    throw EnvironmentError("nvidia-smi -i " + gpu + " -c " + mode + " failed: " + one_line(r.output));
}

}  // namespace

std::string find_nvidia_smi() {
  if (const char* env = std::getenv("BENCH_MPS_NVIDIA_SMI"); env && *env) return env;
  return find_on_path("nvidia-smi");
}

std::optional<std::string> parse_timeslice_policy(const std::string& listing, int index) {
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    for (char& c : line)
      if (c == '|') c = ' ';
    std::istringstream words(line);
    std::string gpu, name, value;
    if (words >> gpu >> name >> value && name == "Timeslice" && gpu == std::to_string(index)) return value;
  }
  return std::nullopt;
}

std::optional<std::string> read_timeslice_policy(const std::string& nvidia_smi, int index, const fs::path& scratch) {
  if (nvidia_smi.empty() || index < 0) return std::nullopt;
  try {
    const CommandResult r = run_command(nvidia_smi, {"compute-policy", "-l"}, {}, "", 15, scratch);
    if (r.exit_code == 0) return parse_timeslice_policy(r.output, index);
  } catch (const std::exception&) {  // could not start, or hung: the policy stays unknown
  }
  return std::nullopt;
}

ExclusiveComputeMode::ExclusiveComputeMode(const std::string& nvidia_smi, const std::string& gpu_id,
                                           const fs::path& state_dir)
    : smi_(nvidia_smi), gpu_(gpu_id) {
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  CommandResult r;
  try {
    r = run_command(smi_, {"--query-gpu=compute_mode", "--format=csv,noheader", "-i", gpu_}, {}, "", 30, state_dir);
  } catch (const CommandError& e) {
    throw EnvironmentError(std::string("--set-exclusive: ") + e.what());
  }
  if (r.exit_code != 0)
    throw EnvironmentError("--set-exclusive: nvidia-smi cannot read the compute mode: " + one_line(r.output));
  previous_ = mode_argument(r.output);
  restore_file_ = state_dir / ("compute-mode-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(restore_file_);
    out << json_text(
        nlohmann::json{{"owner", ::getpid()}, {"gpu", gpu_}, {"previous", previous_}, {"nvidia_smi", smi_}});
    if (!out) throw EnvironmentError("--set-exclusive: cannot write " + restore_file_.string());
  }
  if (previous_ != "EXCLUSIVE_PROCESS") set_mode(smi_, gpu_, "EXCLUSIVE_PROCESS", state_dir);
}

ExclusiveComputeMode::~ExclusiveComputeMode() {
  try {
    if (previous_ != "EXCLUSIVE_PROCESS") set_mode(smi_, gpu_, previous_, restore_file_.parent_path());
    std::error_code ec;
    fs::remove(restore_file_, ec);
  } catch (const std::exception& e) {
    std::cerr << "bench_mps: warning: could not restore the compute mode " << previous_ << ": " << e.what()
              << " (restore file kept: " << restore_file_.string() << ")\n";
  }
}

std::vector<std::string> restore_stale_compute_modes(const fs::path& state_dir) {
  std::vector<std::string> done;
  std::error_code ec;
  if (!fs::is_directory(state_dir, ec)) return done;
  for (const auto& entry : fs::directory_iterator(state_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("compute-mode-", 0) != 0 || entry.path().extension() != ".json") continue;
    nlohmann::json j;
    try {
      std::ifstream in(entry.path());
      j = nlohmann::json::parse(in);
      const pid_t owner = j.at("owner").get<pid_t>();
      if (owner == ::getpid() || process_alive(owner)) continue;
      const std::string smi = j.at("nvidia_smi"), gpu = j.at("gpu"), previous = j.at("previous");
      set_mode(smi, gpu, previous, state_dir);
      done.push_back("restored compute mode " + previous + " of GPU " + gpu + " left switched by bench_mps pid " +
                     std::to_string(owner));
    } catch (const std::exception& e) {
      done.push_back("could not act on " + entry.path().string() + ": " + e.what());
      continue;
    }
    fs::remove(entry.path(), ec);
  }
  return done;
}

}  // namespace bench_mps::harness
