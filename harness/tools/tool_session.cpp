// A verb's session: see tool_session.hpp.
#include "harness/tools/tool_session.hpp"

#include <iostream>

#include "harness/common/format.hpp"
#include "harness/common/signals.hpp"
#include "harness/mps/compute_mode.hpp"
#include "harness/mps/mps_session.hpp"
#include "harness/results/meta.hpp"

namespace bench_mps::harness {

void check_session_out_dir(const ToolSessionSpec& spec) {
  check_tool_out_dir(spec.out_dir, spec.marker_file, spec.what, spec.writes);
}

ToolSession::ToolSession(const ToolSessionSpec& spec)
    : spec_(spec),
      device_(choose_tool_device(spec.device, spec.cpu_stand_in)),
      gpu_(read_tool_gpu(spec.cpu_stand_in, spec.command)),
      mps_control_(require_mps_control(spec.command)),
      out_(make_tool_out_dir(spec.out_dir, gpu_, spec.label, spec.marker_file, spec.what, spec.writes)),
      claim_(out_.path, out_.made) {
  install_stop_handlers();
  meta_ = make_machine_meta(spec.argv, gpu_, mps_control_);
}

void ToolSession::finish() {
  // A child stopped at the budget's end cannot quit its daemon or restore a compute mode: done here.
  const std::filesystem::path base = default_mps_base_dir();
  for (const std::string& line : restore_stale_compute_modes(base / device_dir_name(device_.id)))
    std::cerr << "bench_mps: " << line << "\n";
  for (const std::string& line : stop_stale_sessions(base, mps_control_)) std::cerr << "bench_mps: " << line << "\n";
  meta_["status"] = stop_signal().load() ? "interrupted" : "complete";
  meta_["finished_utc"] = utc_timestamp();
}

int ToolSession::signal_exit() {
  const int sig = stop_signal().load();
  return sig ? 128 + sig : 0;
}

}  // namespace bench_mps::harness
