#pragma once
// The sweep's command-line options (bench_mps --procs 1,4,10 ...) and their validation.
#include "harness/plan/wing.hpp"

#include <string>

#include "harness/plan/device_options.hpp"
#include "harness/plan/sweep_spec.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace bench_mps::harness {

/// How a message about an option of the exec workload's, given without it, ends (advise, which sets
/// --workloads itself, says its own).
inline constexpr const char* kAddExecHint = "add --workloads exec";

/// Raw option values that need validation beyond what CLI11 checks.
struct SweepCliValues {
  std::string procs = "1,4,10";
  std::string modes = "timeslice,mps";
  std::string workloads;  ///< not given: spin,mlp (spin alone for --scenario fault)
  std::string resume_dir;
  std::string scenario = "sweep";                     ///< --scenario, parsed into SweepSpec::scenario
  std::string regime_bursts, regime_duties;           ///< --regime-bursts-ms, --regime-duties
  const CLI::Option* regime_bursts_option = nullptr;  ///< given (even empty) or not
  const CLI::Option* regime_duties_option = nullptr;
  const CLI::Option* workloads_option = nullptr;        ///< tells "not given" from "given empty"
  const CLI::Option* repeats_option = nullptr;          ///< the scenarios xray and regimes default to 2 repeats
  const CLI::Option* procs_option = nullptr;            ///< --scenario xray defaults to N = 1,2,4,10
  const CLI::Option* exec_warmups_option = nullptr;     ///< given without exec: refused
  const CLI::Option* profile_gap_option = nullptr;      ///< given without --profile-gpu: refused
  const CLI::Option* exec_alone_runs_option = nullptr;  ///< given without exec: refused
  const CLI::Option* exec_gate_option = nullptr;        ///< given without exec: refused
  const CLI::Option* exec_unit_range_option = nullptr;  ///< given without --profile-gpu: refused
  const CLI::Option* exec_gate_timeout_option = nullptr;
  const CLI::Option* max_repeats_option = nullptr;  ///< given where no noise target applies: refused
  const CLI::Option* noise_time_cap_option = nullptr;
  DeviceCliValues device;  ///< --device, --gpus, --cpus, --external-mps
};

void add_sweep_options(CLI::App& app, SweepSpec& spec, SweepCliValues& raw);

/// Validates the raw values into `spec`; throws UsageError with a one-line message.
void finalize_sweep_spec(SweepSpec& spec, const SweepCliValues& raw);

/// Parses a whole sweep command line (without the program name), as stored in meta.json's argv. A parse error is
/// a UsageError prefixed by `origin` ("stored command line: ..."); an empty origin, for options the user has just
/// typed (advise's after --), leaves the option's own words alone.
SweepSpec parse_sweep_args(const std::vector<std::string>& args, const std::string& origin = "stored command line");

/// True if the command line set options that define a sweep (anything but --resume and the limits).
bool sweep_defined_on_command_line(const CLI::App& app);

/// `--resume DIR` alone: the sweep `stored` in DIR/meta.json, with the limits given on this command
/// line (--timeout, --ready-timeout, --mps-max-clients, --settle, --no-pin, --cores-per-worker, --cpus,
/// --worker) in place of its own. A placement given (--no-pin, or --cores-per-worker K) replaces the stored one
/// whole: K cores each pins workers that the folder's sweep left unpinned.
SweepSpec with_limits_given(SweepSpec stored, const SweepSpec& given, const CLI::App& app);

/// Parses "1,4,10" (positive, distinct integers). `what` names the option in errors.
std::vector<int> parse_procs(const std::string& text, const std::string& what = "--procs", int most = kMaxProcs);
/// Parses one mode, "mps:25+prio" (its canonical name in Mode::name); UsageError for an unknown one.
Mode parse_mode(const std::string& item);
/// Parses "timeslice,mps,mps:25".
std::vector<Mode> parse_modes(const std::string& text);
/// Parses "spin,mlp".
std::vector<std::string> parse_workloads(const std::string& text);
/// Throws UsageError naming `option` (--workloads, advise's --workload) unless `name` is a workload --workloads takes.
void check_known_workload(const std::string& name, const std::string& option);
/// Parses "0.1,1,10": distinct finite numbers in [lo, hi], ascending as given or not (returned sorted).
std::vector<double> parse_number_list(const std::string& text, double lo, double hi, const std::string& what);

}  // namespace bench_mps::harness
